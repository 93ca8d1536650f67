//! The long-form CSV: one row per cell x metric x statistic, for pandas
//! (`pd.read_csv(...).query("metric == 'ttft_ms' and statistic == 'p50'")`). Every number
//! of a summary's metrics is a row, read as the summary serializes it: a `Distribution`
//! gives `n mean std min max p50 p90 p95 p99 p99.9` (the confidence intervals beside p50
//! and p99, the small-sample flag on each percentile), any other number is one `value` row.
//! Metrics are named by their path in `summary.json` (`ttft_ms`, `throughput.request_rps`,
//! `load.from_send.ttft_ms`); series (lists) are left to `summary.json`. The GPUs' block
//! (`summary.gpu`) follows, prefixed `gpu.` (`gpu.joules_per_output_token`).

use std::path::{Path, PathBuf};

use plateau_model::results::summary::CellSummary;
use plateau_model::results::{ResultsError, write_atomic};
use serde_json::Value;

use super::{Written, read};
use crate::error::ReportError;

/// The header, in order.
pub const HEADER: [&str; 16] = [
    "endpoint",
    "engine",
    "model",
    "scenario",
    "load_kind",
    "load",
    "repeat",
    "status",
    "steady",
    "metric",
    "statistic",
    "value",
    "unit",
    "ci_low",
    "ci_high",
    "small_sample",
];

/// A distribution's statistics: column name and its key in `summary.json`.
const STATISTICS: [(&str, &str); 10] = [
    ("n", "n"),
    ("mean", "mean"),
    ("std", "std"),
    ("min", "min"),
    ("max", "max"),
    ("p50", "p50"),
    ("p90", "p90"),
    ("p95", "p95"),
    ("p99", "p99"),
    ("p99.9", "p999"),
];

/// One row after the cell's columns.
#[derive(Debug, PartialEq)]
struct Row {
    metric: String,
    statistic: &'static str,
    value: f64,
    unit: &'static str,
    ci: Option<[f64; 2]>,
    small_sample: Option<bool>,
}

/// Writes the long CSV of every cell of `results_dir` to `out`.
pub fn write(results_dir: &Path, out: &Path) -> Result<Written, ReportError> {
    let cells = read(results_dir)?;
    let summaries: Vec<&CellSummary> = cells.cells.iter().map(|(_, s)| s).collect();
    let bytes = render(&summaries).map_err(|message| {
        ReportError::Output(ResultsError::Format {
            path: out.to_owned(),
            line: None,
            message,
        })
    })?;
    write_atomic(out, &bytes).map_err(ReportError::Output)?;
    Ok(Written {
        files: vec![PathBuf::from(out)],
        cells: summaries.len(),
        unreadable: cells.unreadable,
        missing: cells.missing,
        warnings: cells.warnings,
    })
}

/// The CSV of `summaries`, header first.
pub fn render(summaries: &[&CellSummary]) -> Result<Vec<u8>, String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(HEADER).map_err(|e| e.to_string())?;
    for s in summaries {
        let metrics = serde_json::to_value(&s.metrics).map_err(|e| e.to_string())?;
        let (load_kind, load) = match (s.cell.load.concurrency, s.cell.load.request_rate) {
            (Some(n), _) => ("concurrency", n.to_string()),
            (None, Some(r)) => ("request_rate", r.to_string()),
            (None, None) => ("", String::new()),
        };
        let status = serde_json::to_value(s.status).map_err(|e| e.to_string())?;
        let cell = [
            s.cell.endpoint.clone(),
            s.cell.engine.as_str().to_owned(),
            s.cell.model.clone(),
            s.cell.scenario.clone(),
            load_kind.to_owned(),
            load,
            s.cell.repeat.to_string(),
            status.as_str().unwrap_or_default().to_owned(),
            s.metrics.steady.steady.to_string(),
        ];
        let mut rows = Vec::new();
        walk(&metrics, "", &mut rows);
        if let Some(g) = &s.gpu {
            walk(
                &serde_json::to_value(g).map_err(|e| e.to_string())?,
                "gpu",
                &mut rows,
            );
        }
        for r in rows {
            let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
            let record = cell.iter().cloned().chain([
                r.metric,
                r.statistic.to_owned(),
                r.value.to_string(),
                r.unit.to_owned(),
                opt(r.ci.map(|c| c[0])),
                opt(r.ci.map(|c| c[1])),
                r.small_sample.map(|b| b.to_string()).unwrap_or_default(),
            ]);
            w.write_record(record).map_err(|e| e.to_string())?;
        }
    }
    w.into_inner().map_err(|e| e.to_string())
}

/// Every number under `v` (at JSON path `path`) as rows; lists are skipped.
fn walk(v: &Value, path: &str, rows: &mut Vec<Row>) {
    match v {
        Value::Object(map) if is_distribution(map) => {
            let unit = unit(path);
            let flagged = |label: &str| {
                map.get("small_sample")
                    .and_then(Value::as_array)
                    .is_some_and(|a| a.iter().any(|f| f.as_str() == Some(label)))
            };
            let ci = |key: &str| {
                let pair = map.get(key)?.as_array()?;
                Some([pair.first()?.as_f64()?, pair.get(1)?.as_f64()?])
            };
            for (statistic, key) in STATISTICS {
                let Some(value) = map.get(key).and_then(Value::as_f64) else {
                    continue;
                };
                rows.push(Row {
                    metric: path.to_owned(),
                    statistic,
                    value,
                    unit: if statistic == "n" { "count" } else { unit },
                    ci: match statistic {
                        "p50" => ci("p50_ci"),
                        "p99" => ci("p99_ci"),
                        _ => None,
                    },
                    small_sample: statistic.starts_with('p').then(|| flagged(statistic)),
                });
            }
        }
        Value::Object(map) => {
            for (key, child) in map {
                let child_path = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                walk(child, &child_path, rows);
            }
        }
        Value::Number(n) => {
            if let Some(value) = n.as_f64() {
                rows.push(Row {
                    metric: path.to_owned(),
                    statistic: "value",
                    value,
                    unit: unit(path),
                    ci: None,
                    small_sample: None,
                });
            }
        }
        _ => {}
    }
}

/// Whether a JSON object is a serialized `Distribution`.
fn is_distribution(map: &serde_json::Map<String, Value>) -> bool {
    STATISTICS.iter().all(|(_, key)| map.contains_key(*key))
}

/// The unit a summary field's name carries (`_ms`, `_tps`, `_rps`, `_s`, `_us`), else
/// empty (counts and ratios).
fn unit(path: &str) -> &'static str {
    // A gauge's `mean` and `max` are in the unit of the gauge (`gpu.measure.power_w.max`).
    let mut parts = path.rsplit('.');
    let name = match parts.next() {
        Some("mean" | "max") => parts.next().unwrap_or(path),
        last => last.unwrap_or(path),
    };
    [
        ("_ms", "ms"),
        ("_j", "J"),
        ("_w", "W"),
        ("_mib", "MiB"),
        ("_pct", "%"),
        ("_us", "us"),
        ("_tps", "tok/s"),
        ("_rps", "req/s"),
        ("_s", "s"),
    ]
    .into_iter()
    .find(|(suffix, _)| name.ends_with(suffix))
    .map_or("", |(_, unit)| unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_come_from_the_field_names() {
        assert_eq!(unit("ttft_ms"), "ms");
        assert_eq!(unit("throughput.server_direct_tps"), "tok/s");
        assert_eq!(unit("throughput.request_rps"), "req/s");
        assert_eq!(unit("throughput.window_s"), "s");
        assert_eq!(unit("requests.error_rate"), "");
        assert_eq!(unit("output_tokens"), "");
        assert_eq!(unit("gpu.measure.energy_j"), "J");
        assert_eq!(unit("gpu.measure.power_w.max"), "W");
        assert_eq!(unit("gpu.measure.memory_used_mib.mean"), "MiB");
    }

    #[test]
    fn a_distribution_is_rows_of_statistics_and_other_numbers_are_values() {
        let v = serde_json::json!({
            "ttft_ms": {"n": 3, "mean": 2.0, "std": 0.5, "min": 1.0, "max": 3.0,
                "p50": 2.0, "p90": 2.8, "p95": 2.9, "p99": 2.98, "p999": 2.998,
                "p50_ci": null, "p99_ci": [2.5, 3.0], "small_sample": ["p99", "p99.9"]},
            "throughput": {"request_rps": 4.5, "series": [1, 2]},
            "steady": {"steady": true},
        });
        let mut rows = Vec::new();
        walk(&v, "", &mut rows);
        assert_eq!(
            rows.len(),
            11,
            "10 statistics + 1 scalar, list and bool skipped"
        );
        let p99 = rows.iter().find(|r| r.statistic == "p99").unwrap();
        assert_eq!(
            (p99.value, p99.ci, p99.small_sample),
            (2.98, Some([2.5, 3.0]), Some(true))
        );
        let p50 = rows.iter().find(|r| r.statistic == "p50").unwrap();
        assert_eq!((p50.ci, p50.small_sample), (None, Some(false)));
        let n = rows.iter().find(|r| r.statistic == "n").unwrap();
        assert_eq!((n.value, n.unit), (3.0, "count"));
        let rps = rows.iter().find(|r| r.statistic == "value").unwrap();
        assert_eq!(
            (rps.metric.as_str(), rps.statistic, rps.value, rps.unit),
            ("throughput.request_rps", "value", 4.5, "req/s")
        );
    }
}
