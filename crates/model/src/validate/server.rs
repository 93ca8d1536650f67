//! The `server_saturated` check: the server's own waiting queue (scraped from its
//! `/metrics`) was non-empty through most of Measure, so the N plateau held exceeds what
//! the server runs at once. A finding about the server, not a failed measurement: warn.

use crate::results::summary::CellSummary;

/// Why the server was saturated at this cell's load, with its numbers; `None` when it was
/// not, or when its metrics could not say.
pub fn server_saturated(s: &CellSummary) -> Option<String> {
    let server = s.server.as_ref()?;
    if server.saturated != Some(true) {
        return None;
    }
    let m = &server.measure;
    let waiting = m.waiting?;
    let load = match (s.cell.load.concurrency, s.cell.load.request_rate) {
        (Some(n), _) => format!("while plateau held {n} in flight"),
        (None, Some(rps)) => format!("while plateau sent {rps} req/s"),
        (None, None) => "under this load".into(),
    };
    let running = m
        .running
        .map(|r| format!(", running mean {:.1}", r.mean))
        .unwrap_or_default();
    Some(format!(
        "the server queued requests in {:.0}% of Measure's scrapes (waiting mean {:.1}, max {}{running}) {load}: the server is saturated at this load",
        m.waiting_share.unwrap_or(0.0) * 100.0,
        waiting.mean,
        waiting.max,
    ))
}
