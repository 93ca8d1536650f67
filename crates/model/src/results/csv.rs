//! `summary.csv`: one row per cell, the identity of each cell and the numbers of its
//! `summary.json` as the [quantity registry](crate::quantity) reads them (no metric is
//! computed here). The hardware, cost and server columns are always there, empty where the
//! endpoint states no hardware or its `/metrics` was not scraped, so that every run's CSV
//! has the same columns.

use std::path::Path;

use crate::quantity::{self as q, Quantity};
use crate::results::summary::{CellStatus, CellSummary};
use crate::results::{ResultsError, write_atomic};

/// One column of `summary.csv`.
#[derive(Clone, Copy, Debug)]
pub enum Column {
    /// Text that is not a number of the registry: header and how to write it.
    Text(&'static str, fn(&CellSummary) -> String),
    /// A registered quantity, under its [`Quantity::column`] name, written in full
    /// precision; empty where the summary has none.
    Number(Quantity),
}

impl Column {
    /// The header.
    pub fn header(&self) -> &'static str {
        match self {
            Column::Text(h, _) => h,
            Column::Number(q) => q.column,
        }
    }

    /// The value in `s`.
    pub fn value(&self, s: &CellSummary) -> String {
        match self {
            Column::Text(_, f) => f(s),
            Column::Number(q) => q.value(s).map(|v| v.to_string()).unwrap_or_default(),
        }
    }
}

use Column::{Number, Text};

/// The columns, in order.
pub const COLUMNS: &[Column] = &[
    Text("endpoint", |s| s.cell.endpoint.clone()),
    Text("engine", |s| s.cell.engine.as_str().into()),
    Text("model", |s| s.cell.model.clone()),
    Text("model_name", |s| s.cell.model_name.clone()),
    Text("scenario", |s| s.cell.scenario.clone()),
    Number(q::CONCURRENCY),
    Number(q::TARGET_RPS),
    Text("arrival", |s| {
        s.cell.load.arrival.map(|a| a.label()).unwrap_or_default()
    }),
    Text("max_concurrency", |s| opt(s.cell.load.max_concurrency)),
    Text("repeat", |s| s.cell.repeat.to_string()),
    Text("status", |s| status(s.status).into()),
    Text("steady", |s| s.metrics.steady.steady.to_string()),
    Number(q::MEASURED),
    Number(q::OK),
    Number(q::ERRORS),
    Number(q::ERROR_RATE),
    Number(q::ERROR_TIME_FRACTION),
    Number(q::TTFT_P50),
    Number(q::TTFT_P90),
    Number(q::TTFT_P99),
    Number(q::TPOT_P50),
    Number(q::TPOT_P99),
    Number(q::ITL_P50),
    Number(q::ITL_P99),
    Number(q::E2E_P50),
    Number(q::E2E_P99),
    Number(q::JITTER_CHUNK),
    Number(q::JITTER_TOKEN),
    Number(q::USER_TPS),
    Number(q::GENERATION_TPS),
    Number(q::SERVER_TPS),
    Number(q::SERVER_DERIVED_TPS),
    Number(q::REQUEST_RPS),
    Number(q::INPUT_TPS),
    Number(q::GOODPUT_FRACTION),
    Number(q::CONCURRENCY_MEAN),
    Number(q::OFFERED_RPS),
    Number(q::ACHIEVED_RPS),
    Number(q::SCHEDULE_LAG_P99),
    Number(q::QUEUE_P99),
    Number(q::TTFT_FROM_SEND_P99),
    Text("overloaded", |s| s.metrics.steady.overloaded.to_string()),
    Text("synthetic_data", |s| s.workload.synthetic.to_string()),
    Text("labels", |s| {
        s.cell
            .labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(";")
    }),
    Text("gpu", |s| {
        opt(s.cell.hardware.as_ref().and_then(|h| h.gpu.clone()))
    }),
    Number(q::GPU_COUNT),
    Number(q::TPS_PER_GPU),
    Number(q::COST_PER_HOUR),
    Number(q::USD_PER_MILLION),
    Text("server_saturated", |s| {
        opt(s.server.as_ref().and_then(|m| m.saturated))
    }),
    Number(q::SERVER_RUNNING_MEAN),
    Number(q::SERVER_WAITING_MEAN),
    Number(q::SERVER_WAITING_MAX),
    Number(q::SERVER_KV_MAX),
    Number(q::SERVER_PREFIX_HIT_RATE),
    Number(q::SERVER_PREEMPTIONS),
    Number(q::SERVER_PROMPT_TOKENS_DIFF),
    Number(q::SERVER_CHAT_PROMPT_TOKENS),
    Number(q::GPU_POWER_MEAN),
    Number(q::GPU_ENERGY),
    Number(q::GPU_UTIL),
    Number(q::GPU_JOULES_PER_TOKEN),
    Number(q::GPU_TOKENS_PER_JOULE),
    Number(q::GPU_JOULES_PER_REQUEST),
];

/// How every plateau `summary.csv` begins: its first five column names, the identity of a
/// cell (how a file plateau wrote is told from one it did not).
pub fn header_start() -> String {
    let names: Vec<&str> = COLUMNS.iter().take(5).map(Column::header).collect();
    format!("{},", names.join(","))
}

/// The CSV text for `summaries` (a slice, or references: the report passes its cells'
/// summaries without copying them).
pub fn render<'a>(
    summaries: impl IntoIterator<Item = &'a CellSummary>,
) -> Result<String, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(COLUMNS.iter().map(Column::header))?;
    for s in summaries {
        w.write_record(COLUMNS.iter().map(|c| c.value(s)))?;
    }
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Writes `summary.csv` atomically.
pub fn write<'a>(
    path: &Path,
    summaries: impl IntoIterator<Item = &'a CellSummary>,
) -> Result<(), ResultsError> {
    let text = render(summaries).map_err(|e| ResultsError::Format {
        path: path.to_owned(),
        line: None,
        message: e.to_string(),
    })?;
    write_atomic(path, text.as_bytes())
}

fn status(s: CellStatus) -> &'static str {
    match s {
        CellStatus::Complete => "complete",
        CellStatus::Interrupted => "interrupted",
        CellStatus::Failed => "failed",
    }
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real cell summary from the report's fixtures.
    fn summary() -> CellSummary {
        let text =
            include_str!("../../../report/tests/fixtures/clean/sglang/llama-8b/A1/c2/summary.json");
        serde_json::from_str(text).expect("fixture summary")
    }

    #[test]
    fn every_number_is_the_registrys_reading_and_text_is_quoted() {
        let mut headers: Vec<&str> = COLUMNS.iter().map(Column::header).collect();
        headers.sort_unstable();
        let n = headers.len();
        headers.dedup();
        assert_eq!(headers.len(), n, "a header repeats");

        let mut s = summary();
        s.cell.endpoint = "a,\"b\"".into();
        let text = render(std::slice::from_ref(&s)).expect("renders");
        let mut rows = csv::Reader::from_reader(text.as_bytes());
        let head = rows.headers().expect("header").clone();
        let row = rows.records().next().expect("a row").expect("parses");
        assert_eq!(row.len(), COLUMNS.len());
        let at = |h: &str| &row[head.iter().position(|x| x == h).expect(h)];
        assert_eq!(at("endpoint"), "a,\"b\"");
        let ttft = s.metrics.ttft_ms.as_ref().expect("ttft").p50;
        assert_eq!(at("ttft_ms_p50").parse::<f64>().expect("number"), ttft);
        for c in COLUMNS {
            if let Column::Number(q) = c {
                let cell = at(q.column);
                match q.value(&s) {
                    Some(v) => assert_eq!(cell.parse::<f64>().expect(q.column), v, "{}", q.column),
                    None => assert_eq!(cell, "", "{}", q.column),
                }
            }
        }
        assert_eq!(at("server_saturated"), "", "not scraped");
    }
}
