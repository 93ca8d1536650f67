//! The `ignore_eos` finding: each reply against its own request's length, and the median
//! against the cell's `max_tokens` in summaries without requested lengths.

use super::*;
use crate::config::OutputTokens;
use crate::metrics::{Distribution, RequestedTokens};
use crate::results::workload::OutputTokensInfo;

/// A real cell summary from the report's fixtures: ignore_eos sent, max_tokens 12, every
/// measured reply 12 tokens.
pub(super) fn summary() -> CellSummary {
    let text =
        include_str!("../../../report/tests/fixtures/clean/sglang/llama-8b/A1/c2/summary.json");
    serde_json::from_str(text).expect("fixture summary")
}

fn eos(s: &CellSummary) -> Vec<String> {
    check_cell(s, &Thresholds::default())
        .into_iter()
        .filter(|f| f.check == "ignore_eos")
        .map(|f| f.message)
        .collect()
}

fn with_replies(replies: u64, short_replies: u64) -> CellSummary {
    let mut s = summary();
    s.cell.max_tokens = None;
    s.workload.output_tokens = Some(OutputTokensInfo {
        spec: serde_json::from_str::<OutputTokens>(r#"{"dist": "uniform", "min": 4, "max": 40}"#)
            .expect("a distribution"),
        requested: Some(RequestedTokens {
            max_tokens: Distribution::from_values(&[4.0, 40.0]).expect("values"),
            replies,
            short_replies,
        }),
    });
    s
}

#[test]
fn replies_are_compared_with_their_own_requests() {
    // The fixture's median reply (12) is below 40, the longest asked for, but what counts
    // is each reply against its own request.
    assert_eq!(eos(&with_replies(52, 0)), Vec::<String>::new());
    assert_eq!(
        eos(&with_replies(52, 26)),
        Vec::<String>::new(),
        "half is not most"
    );
    assert_eq!(
        eos(&with_replies(52, 27)),
        vec![
            "ignore_eos was sent but 27 of 52 measured replies are shorter than the max_tokens \
             they asked for: the engine ignored it, so reply lengths vary with the model"
                .to_owned()
        ]
    );
}

#[test]
fn old_summaries_compare_the_median_with_max_tokens() {
    assert_eq!(eos(&summary()), Vec::<String>::new(), "12 of max_tokens 12");
    let mut s = summary();
    s.cell.max_tokens = Some(16);
    assert_eq!(
        eos(&s),
        vec![
            "ignore_eos was sent but the median reply is 12 tokens of max_tokens 16: the engine \
             ignored it, so reply lengths vary with the model"
                .to_owned()
        ]
    );
}

/// The prompt-length findings against the server's `/tokenize` check.
mod prompt_tokens {
    use super::*;
    use crate::metrics::InputAgreement;

    use crate::results::token_check::TokenCheck;
    use crate::validate::tokens::tests::check as token_check;

    /// The findings of a cell whose server counts 30% more prompt tokens than the targets
    /// (130 for 100), with the client tokenizer named `tokenizer` and the token check
    /// `check`.
    fn findings(tokenizer: &str, check: Option<TokenCheck>) -> Vec<Finding> {
        let text =
            include_str!("../../../report/tests/fixtures/clean/sglang/llama-8b/A1/c2/summary.json");
        let mut s: CellSummary = serde_json::from_str(text).expect("fixture summary");
        s.tokenizer = tokenizer.into();
        s.metrics.tokens.input = Some(InputAgreement {
            n: 10,
            mean_target: 100.0,
            mean_server: 130.0,
            mean_rel_diff: 0.3,
        });
        s.token_check = check;
        check_cell(&s, &Thresholds::default())
    }

    fn message(findings: &[Finding], check: &str) -> Option<String> {
        findings
            .iter()
            .find(|f| f.check == check)
            .map(|f| f.message.clone())
    }

    #[test]
    fn input_length_advice_depends_on_the_tokenizer() {
        let embedded = message(&findings("cl100k_base", None), "input_length").unwrap();
        assert!(
            embedded.starts_with("server prompt tokens average 130 for a target of 100 (+30.0%)")
                && embedded.ends_with(
                    "set `tokenizer` to the model's Hugging Face id or its tokenizer.json"
                ),
            "{embedded}"
        );
        let own = message(
            &findings("meta-llama/Llama-3.1-8B-Instruct@0e9e39f", None),
            "input_length",
        )
        .unwrap();
        assert!(
            own.contains("part of it is the server's chat template"),
            "{own}"
        );
        assert!(!own.contains("set `tokenizer`"), "{own}");
    }

    #[test]
    fn the_token_check_decides_what_the_prompt_gap_is() {
        // The texts agree and the template makes up the usage: no finding at all.
        let f = findings("m@1", Some(token_check(100.0, Some(130.0))));
        assert_eq!(message(&f, "input_length"), None, "{f:?}");
        assert_eq!(message(&f, "tokenizer_mismatch"), None, "{f:?}");
        // The texts agree, the usage is longer than the first prompts templated.
        let f = findings("m@1", Some(token_check(100.0, Some(110.0))));
        let m = message(&f, "input_length").unwrap();
        assert!(
            m.contains("within 0.0%, so the rest is its chat template"),
            "{m}"
        );
        // The texts differ: one finding, naming the tokenizer.
        let f = findings("cl100k_base", Some(token_check(125.0, Some(130.0))));
        assert_eq!(message(&f, "input_length"), None, "{f:?}");
        let m = message(&f, "tokenizer_mismatch").unwrap();
        assert!(m.contains("+25.0% against plateau's cl100k_base"), "{m}");
    }
}

#[test]
fn an_adaptive_measure_that_ran_out_of_time_is_imprecise() {
    use crate::phase::{EndRule, PhaseEnd, PhaseEnds, Precision};
    let found = |rule| {
        let mut s = summary();
        s.phases.phase_end = Some(PhaseEnds {
            stabilize: None,
            measure: Some(PhaseEnd {
                rule,
                after_s: 40.0,
                why: "max 40.0 s reached with output tokens/s ±12.1%, TTFT p50 ±1.1%, \
                      target ±5%"
                    .into(),
                precision: Some(Precision {
                    target: 0.05,
                    output_tps: Some(0.121),
                    ttft_p50: Some(0.011),
                    ttft_p50_interval: None,
                }),
            }),
        });
        check_cell(&s, &Thresholds::default())
            .into_iter()
            .filter(|f| f.check == "imprecise")
            .map(|f| (f.severity, f.message))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        found(EndRule::Imprecise),
        vec![(
            Severity::Warn,
            "max 40.0 s reached with output tokens/s ±12.1%, TTFT p50 ±1.1%, target ±5%; \
             raise phases.measure.max or loosen phases.precision"
                .to_owned()
        )]
    );
    assert_eq!(found(EndRule::PrecisionMet), Vec::new());
    assert!(
        check_cell(&summary(), &Thresholds::default())
            .iter()
            .all(|f| f.check != "imprecise"),
        "fixed phases have no phase_end"
    );
}

#[test]
fn gpu_readings_that_barely_change_are_stale() {
    use crate::gpu::{GpuMetrics, GpuPhase};
    let found = |distinct: u64| {
        let mut s = summary();
        s.phases.m0_us = 0;
        s.phases.m1_us = 10_000_000;
        s.gpu = Some(Box::new(GpuMetrics {
            sources: vec!["http://n1:9400/metrics".into()],
            file: "gpu_metrics.jsonl.gz".into(),
            interval_ms: 250,
            samples: 40,
            failed_samples: 0,
            gpus: Vec::new(),
            fill: GpuPhase::default(),
            stabilize: GpuPhase::default(),
            measure: GpuPhase {
                samples: 40,
                distinct_readings: distinct,
                ..GpuPhase::default()
            },
            drain: GpuPhase::default(),
            joules_per_output_token: None,
            output_tokens_per_joule: None,
            joules_per_request: None,
            output_tps_per_gpu: None,
            unmeasured: Default::default(),
        }));
        check_cell(&s, &Thresholds::default())
            .into_iter()
            .filter(|f| f.check == "gpu_samples_stale")
            .map(|f| f.message)
            .collect::<Vec<_>>()
    };
    // 10 s of Measure want at least 5 changes.
    assert!(found(5).is_empty());
    assert_eq!(
        found(1),
        [
            "the GPU readings changed 1 times in 40 samples over Measure's 10.0 s (fewer than one change per 2 s): the source refreshes slower than plateau reads it every 250 ms; a DCGM exporter collects every 30 s unless started with `-c 250`"
        ]
    );
}

#[test]
fn missing_spans_and_a_dominant_api_layer_are_findings_with_their_causes() {
    use crate::metrics::fixtures::{ok, sample};
    use crate::metrics::{Distribution, Window};
    use crate::sample::server::{ServerTiming, TimingSource};
    use crate::server_timing::{ReceiverCounts, ServerTimingSummary, SpanJoin};
    // 20 requests sent at 1 ms with their first token at 11 ms (TTFT 10 ms); the server's
    // TTFT `server_ms`; `matched` of them joined.
    let cell = |matched: usize, server_ms: u64, receiver: ReceiverCounts| {
        let samples: Vec<_> = (0..20)
            .map(|i| {
                let mut x = ok(sample(1_000, &[(11_000, 1)], 12_000));
                x.seq = i as u64;
                x.trace_id = Some(format!("{i:032x}"));
                x.server = (i < matched).then(|| ServerTiming {
                    ttft_us: Some(server_ms * 1_000),
                    ..ServerTiming::new(TimingSource::Span)
                });
                x
            })
            .collect();
        let window = Window {
            m0_us: 0,
            m1_us: 1_000_000,
            concurrency: Some(2),
        };
        let join = SpanJoin {
            receiver,
            ..SpanJoin::default()
        };
        let mut s = summary();
        s.server_timing = Some(Box::new(ServerTimingSummary::measure_spans(
            &samples, &window, true, &join,
        )));
        s.metrics.ttft_ms = Distribution::from_values(&[10.0; 20]);
        s
    };
    let found = |s: &CellSummary, check: &str| -> Vec<String> {
        check_cell(s, &Thresholds::default())
            .into_iter()
            .filter(|f| f.check == check)
            .map(|f| f.message)
            .collect()
    };
    let grpc = ReceiverCounts {
        grpc_connections: 2,
        ..ReceiverCounts::default()
    };
    let s = cell(10, 9, grpc);
    assert_eq!(
        found(&s, "server_spans_missing"),
        [
            "only 10 of 20 measured requests (50%) got the server's span: 2 connections spoke gRPC (HTTP/2): set OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf in the server's environment"
        ]
    );
    let nothing = cell(0, 9, ReceiverCounts::default());
    assert!(found(&nothing, "server_spans_missing")[0].contains("nothing was received"));
    assert!(found(&cell(20, 9, grpc), "server_spans_missing").is_empty());
    // Gap 1 ms of a 10 ms TTFT: no finding; gap 6 ms: one.
    assert!(found(&cell(20, 9, grpc), "api_layer_dominates_ttft").is_empty());
    assert_eq!(
        found(&cell(20, 4, grpc), "api_layer_dominates_ttft"),
        [
            "the gap between plateau's TTFT and the server's TTFT is 6.0 ms at p99, 60% of the TTFT p99 of 10.0 ms: most of the tail is spent outside the engine (network, HTTP, the server's API layer and tokenizer)"
        ]
    );
    // Fewer than 20 matched: no finding.
    assert!(found(&cell(19, 4, grpc), "api_layer_dominates_ttft").is_empty());
}
