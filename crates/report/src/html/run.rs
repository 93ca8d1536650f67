//! The "Run" section of report.html: what ran, where and when, from `run.json`, and the
//! full configuration (secrets already removed by `plateau run`) folded away.

use std::fmt::Write;

use plateau_model::load::format_rps;
use plateau_model::metrics::{MIN_BLOCKS, MIN_BLOCKS_FOR_SIGNIFICANCE, TREND_SIGNIFICANCE};
use plateau_model::results::run_info::RunInfo;

use super::escape;

/// Writes the section; `run` is `run.json` or why it could not be read.
pub fn section(out: &mut String, run: &Result<&RunInfo, String>) {
    out.push_str("<h2 id=\"run\">Run</h2>\n");
    let run = match run {
        Ok(run) => run,
        Err(why) => {
            let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(why));
            return;
        }
    };
    let c = &run.config;
    let status = crate::tables::run_status(run.status);
    let time = "%Y-%m-%d %H:%M:%S UTC";
    let when = format!(
        "{} to {}{}",
        run.started_at.format(time),
        run.ended_at
            .map_or("–".into(), |t| t.format(time).to_string()),
        run.wall_duration_s
            .map_or(String::new(), |s| format!(" ({s:.0} s)"))
    );
    let host = format!(
        "{} ({} {}, {} CPUs)",
        run.host.hostname, run.host.os, run.host.arch, run.host.cpus
    );
    let endpoints: Vec<String> = run
        .endpoints
        .iter()
        .map(|e| {
            let served: Vec<&str> = e
                .models
                .as_ref()
                .and_then(|m| m.get("data"))
                .and_then(|d| d.as_array())
                .map(|a| a.iter().filter_map(|m| m.get("id")?.as_str()).collect())
                .unwrap_or_default();
            let mut line = format!(
                "{} ({}) at {}; serves {}",
                e.name,
                e.engine.as_str(),
                e.url,
                if served.is_empty() {
                    "–".into()
                } else {
                    served.join(", ")
                }
            );
            if let Some(h) = &e.hardware {
                let gpus = match (h.gpu_count, h.gpu.as_deref()) {
                    (Some(n), Some(gpu)) => Some(format!("{n} x {gpu}")),
                    (Some(n), None) => Some(format!("{n} GPU")),
                    (None, gpu) => gpu.map(str::to_owned),
                };
                let price = h.cost_per_hour.map(|usd| format!("{usd} USD/h"));
                let said: Vec<String> = gpus.into_iter().chain(price).collect();
                let _ = write!(line, "; hardware: {}", said.join(", "));
            }
            if !e.labels.is_empty() {
                let labels: Vec<String> =
                    e.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
                let _ = write!(line, "; labels: {}", labels.join(", "));
            }
            line
        })
        .collect();
    let models: Vec<String> = c
        .models
        .iter()
        .map(|m| format!("{} = {}", m.id, m.name))
        .collect();
    let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
    let slo = c.slo.as_ref().map_or("none (no goodput)".into(), |s| {
        let part = |name: &str, v: Option<f64>| v.map(|v| format!("{name} ≤ {v} ms"));
        [
            part("TTFT", s.ttft_ms),
            part("TPOT", s.tpot_ms),
            part("E2E", s.e2e_ms),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ")
    });
    let rows: Vec<(&str, String)> = vec![
        (
            "status",
            run.reason
                .as_ref()
                .map_or(status.into(), |r| format!("{status}: {r}")),
        ),
        ("plateau", run.plateau_version.clone()),
        ("when", when),
        ("client host", host),
        ("endpoints", endpoints.join("\n")),
        ("models", models.join("\n")),
        ("scenarios", c.scenarios.join(", ")),
        ("concurrencies", list(&c.batch_sizes)),
        (
            "request rates",
            if c.request_rates.is_empty() {
                "–".into()
            } else {
                let rates: Vec<String> = c.request_rates.iter().map(|&r| format_rps(r)).collect();
                format!(
                    "{} {}, {} arrivals",
                    rates.join(", "),
                    c.rate_unit.per_second(),
                    c.arrival.label()
                )
            },
        ),
        (
            "phases",
            format!(
                "Fill {} s, Stabilize {} s, Measure {} s, Drain up to {}",
                c.fill_seconds,
                c.stabilize_seconds,
                c.measure_seconds,
                c.drain_seconds
                    .map_or("a limit derived per cell".into(), |d| format!("{d} s"))
            ),
        ),
        (
            "requests",
            format!(
                "max_tokens {}, stream {}, ignore_eos {}, seed {}, tokenizer {}",
                c.max_tokens,
                c.stream,
                c.ignore_eos
                    .map_or("engine default".into(), |b| b.to_string()),
                c.seed,
                c.tokenizer
                    .as_ref()
                    .map_or("embedded".into(), |p| p.display().to_string())
            ),
        ),
        (
            "steady when",
            format!(
                "≥ {MIN_BLOCKS} blocks of one request lifetime; block cv ≤ {}; \
                 |trend| ≤ {} (or, from {MIN_BLOCKS_FOR_SIGNIFICANCE} blocks, its p ≥ \
                 {TREND_SIGNIFICANCE}); mean concurrency ≥ {} × N",
                c.steady.max_cv, c.steady.max_trend, c.steady.min_concurrency_ratio
            ),
        ),
        ("SLOs", slo),
    ];
    out.push_str("<table class=\"meta\">\n");
    for (key, value) in rows {
        let value = escape(&value).replace('\n', "<br/>");
        let _ = writeln!(out, "<tr><th>{key}</th><td>{value}</td></tr>");
    }
    out.push_str("</table>\n");
    if let Ok(json) = serde_json::to_string_pretty(c) {
        let _ = writeln!(
            out,
            "<details><summary>configuration (from run.json, secrets removed)</summary>\
             <pre>{}</pre></details>",
            escape(&json)
        );
    }
}
