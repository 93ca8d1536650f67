//! The parser, the engine tables against excerpts of each engine's exposition, and the
//! per-phase arithmetic on hand-built scrapes with exact answers.

use std::collections::BTreeMap;

use super::engines::{self, Table};
use super::prom::{self, parse};
use super::summary::{self, Span, quantiles};
use super::*;
use crate::results::summary::PhaseBounds;

fn scrape(t_us: u64, values: &[(&str, f64)]) -> Scrape {
    Scrape {
        t_us,
        values: values.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
    }
}

/// The mapped values of `text` under `table`, as the scraper keeps them.
fn mapped(text: &str, table: &Table) -> BTreeMap<String, f64> {
    parse(text)
        .expect("valid exposition")
        .into_iter()
        .filter(|s| s.value.is_finite() && table.wants(&s.name))
        .map(|s| (s.key(), s.value))
        .collect()
}

#[test]
fn parses_names_labels_escapes_specials_and_timestamps() {
    let text = "# HELP x help\n# TYPE x counter\n\
        x_total 3\n\
        y{a=\"1\",b=\"q\\\"u\\\\o\\nte\"} 2.5 1700000000000\n\
        z{le=\"+Inf\",} +Inf\n\
        w NaN\n";
    let s = parse(text).expect("valid");
    assert_eq!(s.len(), 4);
    assert_eq!(s[0].name, "x_total");
    assert_eq!(s[0].value, 3.0);
    assert_eq!(s[1].label("b"), Some("q\"u\\o\nte"));
    assert_eq!(s[1].value, 2.5);
    assert_eq!(s[1].key(), "y{a=\"1\",b=\"q\\\"u\\\\o\\nte\"}");
    assert_eq!(s[2].label("le"), Some("+Inf"));
    assert!(s[2].value.is_infinite());
    assert!(s[3].value.is_nan());
}

#[test]
fn keys_sort_labels() {
    let s = parse("m{z=\"1\",a=\"2\"} 1").expect("valid");
    assert_eq!(s[0].key(), "m{a=\"2\",z=\"1\"}");
}

#[test]
fn rejects_what_is_not_prometheus_text() {
    for (text, line, what) in [
        ("<html><body>404</body></html>", 1, "metric name"),
        ("ok 1\nm{a=1} 2", 2, "quoted value"),
        ("m{a=\"1\" 2", 1, "or `}`"),
        ("m{a=\"1 2", 1, "unterminated"),
        ("m", 1, "no value"),
        ("m abc", 1, "not a number"),
        ("m 1 2 3", 1, "unexpected text"),
    ] {
        let e = parse(text).expect_err(text);
        assert_eq!(e.line, line, "{text}");
        assert!(e.message.contains(what), "{text}: {}", e.message);
    }
}

#[test]
fn info_labels_lists_every_info_metric() {
    let text = "# TYPE vllm:cache_config_info gauge\n\
        vllm:cache_config_info{block_size=\"16\",enable_prefix_caching=\"True\",engine=\"0\"} 1.0\n\
        vllm:num_requests_running{engine=\"0\"} 3\n\
        build_info{version=\"1.2\"} 1\n";
    let info = info_labels(text);
    assert_eq!(info.len(), 2);
    assert_eq!(info["vllm:cache_config_info"]["block_size"], "16");
    assert_eq!(
        info["vllm:cache_config_info"]["enable_prefix_caching"],
        "True"
    );
    assert_eq!(info["build_info"]["version"], "1.2");
    assert!(info_labels("<html>").is_empty());
}

// Excerpts in each engine's exposition format and names (see engines.rs for the sources).

const VLLM_TEXT: &str = r#"# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 7.0
vllm:num_requests_waiting{engine="0",model_name="m"} 2.0
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.42
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 1000.0
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 900.0
vllm:num_preemptions_total{engine="0",model_name="m"} 1.0
vllm:prompt_tokens_total{engine="0",model_name="m"} 5000.0
vllm:generation_tokens_total{engine="0",model_name="m"} 800.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.1",model_name="m"} 3.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf",model_name="m"} 4.0
vllm:time_to_first_token_seconds_count{engine="0",model_name="m"} 4.0
vllm:time_to_first_token_seconds_sum{engine="0",model_name="m"} 0.5
vllm:time_per_output_token_seconds_bucket{engine="0",le="0.01",model_name="m"} 10.0
vllm:time_per_output_token_seconds_bucket{engine="0",le="+Inf",model_name="m"} 10.0
vllm:request_success_total{engine="0",finished_reason="length",model_name="m"} 4.0
python_gc_objects_collected_total{generation="0"} 123.0
"#;

const SGLANG_TEXT: &str = r#"# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="m",tp_rank="0"} 5.0
sglang:num_queue_reqs{model_name="m",tp_rank="0"} 1.0
sglang:token_usage{model_name="m",tp_rank="0"} 0.25
sglang:prompt_tokens_total{model_name="m"} 400.0
sglang:cached_tokens_total{model_name="m"} 100.0
sglang:generation_tokens_total{model_name="m"} 60.0
# TYPE sglang:num_retracted_reqs gauge
sglang:num_retracted_reqs{model_name="m",tp_rank="0"} 3.0
# TYPE sglang:num_retracted_requests_total counter
sglang:num_retracted_requests_total{model_name="m",tp_rank="0"} 2.0
sglang:time_to_first_token_seconds_bucket{le="0.5",model_name="m"} 1.0
sglang:time_to_first_token_seconds_bucket{le="+Inf",model_name="m"} 1.0
sglang:inter_token_latency_seconds_bucket{le="0.02",model_name="m"} 9.0
sglang:inter_token_latency_seconds_bucket{le="+Inf",model_name="m"} 9.0
"#;

const TGI_TEXT: &str = r#"# TYPE tgi_batch_current_size gauge
tgi_batch_current_size 6
# TYPE tgi_queue_size gauge
tgi_queue_size 3
tgi_batch_current_max_tokens 2048
tgi_batch_max_total_tokens 8192
tgi_request_input_length_sum 1500
tgi_request_input_length_count 3
tgi_request_generated_tokens_sum 300
tgi_request_mean_time_per_token_duration_bucket{le="0.01"} 2
tgi_request_mean_time_per_token_duration_bucket{le="+Inf"} 3
"#;

const LLAMACPP_TEXT: &str = r#"# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.
# TYPE llamacpp:prompt_tokens_total counter
llamacpp:prompt_tokens_total 2500
# TYPE llamacpp:tokens_predicted_total counter
llamacpp:tokens_predicted_total 640
# TYPE llamacpp:prompt_tokens_seconds gauge
llamacpp:prompt_tokens_seconds 5000
# TYPE llamacpp:requests_processing gauge
llamacpp:requests_processing 4
# TYPE llamacpp:requests_deferred gauge
llamacpp:requests_deferred 0
"#;

/// Two scrapes of `text`, the second with every counter doubled, one second apart.
fn twice(text: &str, table: &Table) -> PhaseServer {
    let first = mapped(text, table);
    let second: BTreeMap<String, f64> = first
        .iter()
        .map(|(k, v)| {
            let name = k.split('{').next().unwrap_or(k);
            let counter = ["_total", "_sum", "_bucket"]
                .iter()
                .any(|x| name.ends_with(x));
            (k.clone(), if counter { v * 2.0 } else { *v })
        })
        .collect();
    let scrapes = [
        Scrape {
            t_us: 0,
            values: first,
        },
        Scrape {
            t_us: 1_000_000,
            values: second,
        },
    ];
    summary::phase(
        &scrapes,
        table,
        Span {
            from_us: 0,
            to_us: 2_000_000,
        },
    )
}

use super::summary::PhaseServer;

#[test]
fn vllm_exposition_maps_every_quantity() {
    let m = mapped(VLLM_TEXT, &engines::VLLM);
    assert!(
        !m.keys()
            .any(|k| k.starts_with("python_") || k.contains("request_success"))
    );
    assert_eq!(
        m["vllm:num_requests_running{engine=\"0\",model_name=\"m\"}"],
        7.0
    );
    let p = twice(VLLM_TEXT, &engines::VLLM);
    assert_eq!(p.scrapes, 2);
    assert_eq!(p.running.map(|g| g.mean), Some(7.0));
    assert_eq!(p.waiting.map(|g| g.max), Some(2.0));
    assert_eq!(p.waiting_share, Some(1.0));
    assert_eq!(p.kv_cache_usage.map(|g| g.mean), Some(0.42));
    assert_eq!(p.prefix_cache_hit_rate, Some(0.9));
    assert_eq!(p.preemptions, Some(1.0));
    assert_eq!(p.prompt_tokens_per_s, Some(5000.0));
    assert_eq!(p.generation_tokens_per_s, Some(800.0));
    // TTFT increase: 3 in (0, 0.1], 1 above: p50 = 0.1 * 2/3, p90 and p99 in +Inf -> 0.1.
    let ttft = p.ttft_s.expect("ttft");
    assert_eq!(ttft.count, 4.0);
    assert!((ttft.p50 - 0.1 * 2.0 / 3.0).abs() < 1e-12, "{ttft:?}");
    assert_eq!(ttft.p99, 0.1);
    let tpot = p.tpot_s.expect("tpot");
    assert!((tpot.p50 - 0.005).abs() < 1e-12, "{tpot:?}");
    assert!(engines::VLLM.absent().is_empty());
}

#[test]
fn sglang_exposition_maps_cached_over_prompt_tokens() {
    let p = twice(SGLANG_TEXT, &engines::SGLANG);
    assert_eq!(p.running.map(|g| g.mean), Some(5.0));
    assert_eq!(p.waiting.map(|g| g.mean), Some(1.0));
    assert_eq!(p.kv_cache_usage.map(|g| g.mean), Some(0.25));
    assert_eq!(p.prefix_cache_hit_rate, Some(0.25));
    assert_eq!(p.prompt_tokens_per_s, Some(400.0));
    assert_eq!(p.generation_tokens_per_s, Some(60.0));
    assert!((p.ttft_s.expect("ttft").p50 - 0.25).abs() < 1e-12);
    assert!((p.tpot_s.expect("itl").p50 - 0.01).abs() < 1e-12);
    // Retractions are SGLang's preemptions: the counter's increase, never the old gauge
    // (`num_retracted_reqs`, the last batch's count), which would read 3 here.
    assert_eq!(p.preemptions, Some(2.0));
    assert!(engines::SGLANG.absent().is_empty());
}

#[test]
fn tgi_exposition_maps_kv_as_a_ratio_and_tokens_from_histogram_sums() {
    let p = twice(TGI_TEXT, &engines::TGI);
    assert_eq!(p.running.map(|g| g.mean), Some(6.0));
    assert_eq!(p.waiting.map(|g| g.mean), Some(3.0));
    assert_eq!(p.kv_cache_usage.map(|g| g.mean), Some(0.25));
    assert_eq!(p.prompt_tokens_per_s, Some(1500.0));
    assert_eq!(p.generation_tokens_per_s, Some(300.0));
    // 2 of 3 in (0, 0.01]: p50 at rank 1.5 -> 0.0075.
    assert!((p.tpot_s.expect("tpot").p50 - 0.0075).abs() < 1e-12);
    assert_eq!(p.ttft_s, None);
    assert_eq!(p.prefix_cache_hit_rate, None);
    assert_eq!(
        engines::TGI.absent(),
        vec!["prefix_cache_hit_rate", "preemptions", "ttft_s"]
    );
}

#[test]
fn llamacpp_exposition_maps_processing_and_deferred() {
    let m = mapped(LLAMACPP_TEXT, &engines::LLAMACPP);
    assert!(!m.contains_key("llamacpp:prompt_tokens_seconds"));
    let p = twice(LLAMACPP_TEXT, &engines::LLAMACPP);
    assert_eq!(p.running.map(|g| g.mean), Some(4.0));
    assert_eq!(p.waiting.map(|g| g.max), Some(0.0));
    assert_eq!(p.waiting_share, Some(0.0));
    assert_eq!(p.prompt_tokens_per_s, Some(2500.0));
    assert_eq!(p.generation_tokens_per_s, Some(640.0));
    assert_eq!(p.kv_cache_usage, None);
}

#[test]
fn an_unknown_engine_is_detected_from_its_names() {
    for (text, name) in [
        (VLLM_TEXT, "vllm"),
        (SGLANG_TEXT, "sglang"),
        (TGI_TEXT, "tgi"),
        (LLAMACPP_TEXT, "llamacpp"),
    ] {
        let samples = parse(text).expect("valid");
        let t = engines::detect(|n| samples.iter().any(|s| s.name == n)).expect(name);
        assert_eq!(t.name, name);
    }
    assert_eq!(engines::detect(|_| false), None);
}

#[test]
fn gauges_are_plain_means_of_the_phase_scrapes_only() {
    let g = "vllm:num_requests_running";
    let w = "vllm:num_requests_waiting";
    let scrapes: Vec<Scrape> = [
        (0, 1.0, 0.0),
        (250_000, 3.0, 0.0),
        (500_000, 8.0, 2.0),
        (750_000, 8.0, 0.0),
        (1_000_000, 8.0, 4.0),
    ]
    .iter()
    .map(|&(t, r, q)| scrape(t, &[(g, r), (w, q)]))
    .collect();
    let p = summary::phase(
        &scrapes,
        &engines::VLLM,
        Span {
            from_us: 500_000,
            to_us: 1_000_000,
        },
    );
    assert_eq!(
        p.scrapes, 2,
        "the scrape at the end bound belongs to the next phase"
    );
    assert_eq!(p.running.map(|x| (x.mean, x.max)), Some((8.0, 8.0)));
    assert_eq!(p.waiting.map(|x| (x.mean, x.max)), Some((1.0, 2.0)));
    assert_eq!(p.waiting_share, Some(0.5));
}

#[test]
fn counters_read_from_the_scrape_before_the_phase_and_survive_a_reset() {
    let c = "vllm:generation_tokens_total";
    // 100 -> 300 -> (restart) 50 -> 150: increase 200 + 50 + 100 = 350 over 3 s.
    let scrapes = vec![
        scrape(0, &[(c, 100.0)]),
        scrape(1_000_000, &[(c, 300.0)]),
        scrape(2_000_000, &[(c, 50.0)]),
        scrape(3_000_000, &[(c, 150.0)]),
        scrape(4_000_000, &[(c, 1000.0)]),
    ];
    let p = summary::phase(
        &scrapes,
        &engines::VLLM,
        Span {
            from_us: 500_000,
            to_us: 3_500_000,
        },
    );
    assert_eq!(p.generation_tokens_per_s, Some(350.0 / 3.0));
    let p = summary::phase(
        &scrapes,
        &engines::VLLM,
        Span {
            from_us: 0,
            to_us: 1_000_000,
        },
    );
    assert_eq!(p.generation_tokens_per_s, Some(200.0));
    let one = summary::phase(
        &scrapes[..1],
        &engines::VLLM,
        Span {
            from_us: 0,
            to_us: 5,
        },
    );
    assert_eq!(one.generation_tokens_per_s, None, "one scrape has no rate");
}

#[test]
fn quantiles_interpolate_inside_buckets_like_histogram_quantile() {
    // Buckets 0.1:10, 0.2:30, 0.5:90, +Inf:100.
    let q = quantiles(&[
        (0.1, 10.0),
        (0.2, 30.0),
        (0.5, 90.0),
        (f64::INFINITY, 100.0),
    ])
    .expect("observations");
    assert_eq!(q.count, 100.0);
    // p50: rank 50 in (0.2, 0.5] holding 60 -> 0.2 + 0.3 * 20/60 = 0.3.
    assert!((q.p50 - 0.3).abs() < 1e-12, "{q:?}");
    // p90: rank 90 is exactly the 0.5 bucket's count -> 0.5.
    assert!((q.p90 - 0.5).abs() < 1e-12);
    // p99: rank 99 falls in +Inf -> the highest finite bound.
    assert_eq!(q.p99, 0.5);
    // First bucket interpolates from 0: rank 5 of 10 in (0, 0.1] -> 0.05.
    let q = quantiles(&[(0.1, 10.0), (f64::INFINITY, 10.0)]).expect("observations");
    assert!((q.p50 - 0.05).abs() < 1e-12);
    assert_eq!(quantiles(&[(0.1, 0.0), (f64::INFINITY, 0.0)]), None);
    assert_eq!(quantiles(&[(0.1, 3.0)]), None, "no +Inf bucket");
}

#[test]
fn histogram_quantiles_come_from_bucket_increases_summed_over_engines() {
    let b = |le: &str, e: &str| {
        format!("vllm:time_to_first_token_seconds_bucket{{engine=\"{e}\",le=\"{le}\"}}")
    };
    let at = |t, x: f64| Scrape {
        t_us: t,
        values: [
            (b("0.1", "0"), 5.0 * x),
            (b("+Inf", "0"), 5.0 * x),
            (b("0.1", "1"), 0.0),
            (b("+Inf", "1"), 5.0 * x),
        ]
        .into_iter()
        .collect(),
    };
    // Before the phase: 5 fast + 5 slow; after: 10 + 10. Increase 5 at <= 0.1, 10 total.
    let p = summary::phase(
        &[at(0, 1.0), at(1_000_000, 2.0)],
        &engines::VLLM,
        Span {
            from_us: 0,
            to_us: 2_000_000,
        },
    );
    let q = p.ttft_s.expect("ttft");
    assert_eq!(q.count, 10.0);
    assert_eq!(q.p50, 0.1, "rank 5 is exactly the 0.1 bucket's count");
    assert_eq!(q.p90, 0.1, "in +Inf: the highest finite bound");
}

fn bounds() -> PhaseBounds {
    PhaseBounds {
        fill_s: 1.0,
        stabilize_s: 1.0,
        measure_s: 2.0,
        drain_max_s: 30.0,
        drain_limit: Default::default(),
        m0_us: 2_000_000,
        m1_us: 4_000_000,
        drain_end_us: 5_000_000,
        end_us: 5_000_000,
        drain_timed_out: false,
        phase_end: None,
    }
}

#[test]
fn saturation_needs_a_queue_in_most_of_measure() {
    let w = "vllm:num_requests_waiting";
    let cell = |waiting: &[f64]| {
        let scrapes = waiting
            .iter()
            .enumerate()
            .map(|(i, &q)| scrape(2_000_000 + i as u64 * 250_000, &[(w, q)]))
            .collect::<Vec<_>>();
        summarize(&scrapes, 0, &engines::VLLM, &bounds(), 250)
    };
    assert_eq!(
        cell(&[0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]).saturated,
        Some(false)
    );
    let s = cell(&[3.0, 4.0, 4.0, 0.0, 4.0, 4.0, 3.0, 4.0]);
    assert_eq!(s.saturated, Some(true));
    assert_eq!(s.measure.scrapes, 8);
    assert_eq!(s.measure.waiting.map(|g| g.mean), Some(26.0 / 8.0));
    assert_eq!(s.fill.scrapes, 0);
    assert_eq!(
        cell(&[4.0, 4.0, 4.0]).saturated,
        None,
        "too few scrapes to say"
    );
}

#[test]
fn scrapes_round_trip_through_their_file() {
    let tmp = tempfile::Builder::new()
        .prefix("plateau-scrape-")
        .tempdir()
        .expect("dir");
    let dir = tmp.path();
    let path = dir.join(SERVER_METRICS_FILE);
    let scrapes = vec![
        scrape(1, &[("vllm:num_requests_running{engine=\"0\"}", 3.0)]),
        scrape(250_001, &[("vllm:num_requests_running{engine=\"0\"}", 4.0)]),
    ];
    write(&path, &scrapes).expect("written");
    assert_eq!(read(&path).expect("read"), scrapes);
}

#[test]
fn a_parse_error_names_the_line() {
    assert_eq!(
        prom::parse("a 1\nb 2\n{").expect_err("bad").to_string(),
        "line 3: expected a metric name, got `{`"
    );
}
