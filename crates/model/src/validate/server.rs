//! Checks on what the server says of itself. `server_saturated`: its own waiting queue
//! (scraped from its `/metrics`) was non-empty through most of Measure, so the N plateau
//! held exceeds what the server runs at once. `server_timing_disagrees`: its own timing of
//! some requests is longer than plateau's TTFT. Findings about the server, not failed
//! measurements: warn.

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

/// Why the server's own timings disagree with plateau's clock (some prefill longer than the
/// client's TTFT from the send); `None` when they agree or there are none.
pub fn server_timing_disagrees(s: &CellSummary) -> Option<String> {
    let st = s.server_timing.as_ref()?;
    if st.negative_gaps == 0 {
        return None;
    }
    let worst = st
        .gap_ms
        .as_ref()
        .map(|g| format!(" (by up to {:.1} ms)", -g.min))
        .unwrap_or_default();
    Some(format!(
        "on {} of {} measured requests the server's prefill is longer than plateau's TTFT{worst}: the two do not time the same events",
        st.negative_gaps, st.matched
    ))
}
