//! The scraper: GETs the server's `/metrics` every interval on the cell's clock, keeps the
//! series its engine's table maps, and ends when the cell does. It has its own connection
//! (never one a slot would reuse) and a timeout; a failed or slow scrape is counted and
//! skipped. When the first scrape shows the endpoint has no usable `/metrics` (an error
//! status, text that is not Prometheus, no name any table knows), it stops and says why.

use std::time::Duration;

use http::{HeaderMap, Uri};
use tokio::time::MissedTickBehavior;
use tokio_util::sync::CancellationToken;

use super::engines::{self, Table};
use super::{Scrape, prom};
use plateau_http::clock::Clock;
use plateau_http::{Client, ClientError};

/// Longest a scrape may take; a slower one is counted as failed.
pub const TIMEOUT: Duration = Duration::from_secs(2);

/// Where and how often to scrape.
pub struct Target {
    /// The scraper's own client (one connection).
    pub client: Client,
    /// `<origin>/metrics`.
    pub uri: Uri,
    /// The endpoint's auth headers (values marked sensitive, never logged).
    pub headers: HeaderMap,
    /// Time between scrapes.
    pub interval: Duration,
    /// The engine's table; `None` picks one from the first scrape's names.
    pub table: Option<&'static Table>,
}

/// What a cell's scraper collected.
#[derive(Debug, Default)]
pub struct Polled {
    /// Every successful scrape, in time order.
    pub scrapes: Vec<Scrape>,
    /// The table the scrapes were mapped with.
    pub table: Option<&'static Table>,
    /// Scrapes that failed or timed out after the first.
    pub failed: u64,
    /// Why the endpoint has no usable `/metrics` (the first scrape said so).
    pub refused: Option<String>,
}

/// Scrapes `target` every interval until `stop` fires.
pub async fn run(target: Target, clock: Clock, stop: CancellationToken) -> Polled {
    let mut out = Polled {
        table: target.table,
        ..Polled::default()
    };
    let mut ticker = tokio::time::interval(target.interval);
    ticker.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut first = true;
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = ticker.tick() => {}
        }
        let t_us = clock.now_us();
        let got = tokio::select! {
            _ = stop.cancelled() => break,
            got = target.client.get_text(target.uri.clone(), &target.headers, TIMEOUT) => got,
        };
        match read(got, &mut out.table) {
            Ok(values) => out.scrapes.push(Scrape { t_us, values }),
            Err(Failure::Refused(why)) if first => {
                out.refused = Some(why);
                break;
            }
            Err(_) => out.failed += 1,
        }
        first = false;
    }
    out
}

/// Why a scrape gave nothing.
enum Failure {
    /// The endpoint has no usable `/metrics`.
    Refused(String),
    /// This scrape failed (timeout, connection); the next may not.
    Transient,
}

/// The mapped values of one answer; picks the table on first sight when unknown.
fn read(
    got: Result<String, ClientError>,
    table: &mut Option<&'static Table>,
) -> Result<std::collections::BTreeMap<String, f64>, Failure> {
    let text = match got {
        Ok(text) => text,
        Err(ClientError::Status { status, .. }) => {
            return Err(Failure::Refused(format!("/metrics answered HTTP {status}")));
        }
        Err(_) => return Err(Failure::Transient),
    };
    let samples = prom::parse(&text)
        .map_err(|e| Failure::Refused(format!("/metrics is not Prometheus text ({e})")))?;
    let table = match table {
        Some(t) => *t,
        None => {
            let found = engines::detect(|name| samples.iter().any(|s| s.name == name)).ok_or_else(
                || Failure::Refused("/metrics has none of the metric names plateau maps".into()),
            )?;
            *table = Some(found);
            found
        }
    };
    let values: std::collections::BTreeMap<String, f64> = samples
        .iter()
        .filter(|s| s.value.is_finite() && table.wants(&s.name))
        .map(|s| (s.key(), s.value))
        .collect();
    if values.is_empty() {
        return Err(Failure::Refused(format!(
            "/metrics has none of the {} metric names plateau maps",
            table.name
        )));
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(got: Result<String, ClientError>) -> String {
        match read(got, &mut None) {
            Err(Failure::Refused(why)) => why,
            Err(Failure::Transient) => panic!("transient"),
            Ok(v) => panic!("read {v:?}"),
        }
    }

    #[test]
    fn the_first_answer_says_whether_the_endpoint_has_usable_metrics() {
        let status = ClientError::Status {
            status: 404,
            message: "Not Found".into(),
        };
        assert_eq!(refused(Err(status)), "/metrics answered HTTP 404");
        assert!(
            refused(Ok("<html>no</html>".into())).starts_with("/metrics is not Prometheus text")
        );
        assert_eq!(
            refused(Ok("process_cpu_seconds_total 1.5\n".into())),
            "/metrics has none of the metric names plateau maps"
        );
        let timeout = read(Err(ClientError::Timeout(Duration::from_secs(2))), &mut None);
        assert!(matches!(timeout, Err(Failure::Transient)));
    }

    #[test]
    fn an_unknown_engine_gets_the_table_its_names_match_and_keeps_only_mapped_series() {
        let mut table = None;
        let text = "vllm:num_requests_running{engine=\"0\"} 2\nother_metric 7\n";
        let values = read(Ok(text.into()), &mut table).ok().expect("read");
        assert_eq!(table.map(|t| t.name), Some("vllm"));
        assert_eq!(values.len(), 1);
        assert_eq!(values["vllm:num_requests_running{engine=\"0\"}"], 2.0);
        // A known engine's table is kept; its names missing is a refusal.
        let mut llama = Some(&engines::LLAMACPP);
        assert!(matches!(
            read(Ok(text.into()), &mut llama),
            Err(Failure::Refused(_))
        ));
    }
}
