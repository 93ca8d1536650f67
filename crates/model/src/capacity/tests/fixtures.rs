//! Settings and cell summaries for the session capacity tests: a real complete cell made into whatever cell a test needs.

use std::collections::BTreeMap;

use crate::config::CapacityConfig;
use crate::metrics::SessionMetrics;
use crate::results::summary::{CellStatus, CellSummary};

/// TTFT p99 at most 500 ms and TPOT p99 at most 50 ms, 25% headroom, an instance plan for
/// `target_sessions` users.
pub(crate) fn config(target_sessions: Option<u32>) -> CapacityConfig {
    serde_json::from_value(serde_json::json!({
        "slo": {"ttft_p99_ms": 500, "tpot_p99_ms": 50},
        "target_sessions": target_sessions,
        "headroom": 0.25,
    }))
    .unwrap()
}

/// A real complete cell summary (the report's fixtures), complete, with turn TTFT p99 `ttft`
/// ms and TPOT p99 `tpot` ms.
pub(crate) fn summary(ttft: f64, tpot: f64) -> CellSummary {
    let text =
        include_str!("../../../../report/tests/fixtures/clean/sglang/llama-8b/A1/c2/summary.json");
    let mut s: CellSummary = serde_json::from_str(text).unwrap();
    s.status = CellStatus::Complete;
    s.metrics.ttft_ms.as_mut().unwrap().p99 = ttft;
    s.metrics.tpot_ms.as_mut().unwrap().p99 = tpot;
    s
}

/// A sessions block: `active` sessions active, `in_flight` requests in flight and
/// `thinking` sessions thinking on average, `per_minute` sessions per minute, none ended,
/// no session starts counted and no breakdowns.
pub(crate) fn sessions(
    active: f64,
    in_flight: f64,
    thinking: f64,
    per_minute: f64,
) -> SessionMetrics {
    SessionMetrics {
        sessions_target: None,
        sessions_active_mean: active,
        requests_in_flight_mean: in_flight,
        thinking_mean: thinking,
        sessions_completed: 0,
        sessions_failed: 0,
        sessions_per_minute: Some(per_minute),
        session_starts_offered_per_minute: None,
        session_starts_per_minute: None,
        turns_per_session: None,
        session_duration_s: None,
        think_ms: None,
        by_turn: Vec::new(),
        by_context: Vec::new(),
        unmeasured: BTreeMap::new(),
    }
}

/// `cells` as the capacity functions take them: each summary by reference beside its
/// directory name.
pub(crate) fn refs(cells: &[(String, CellSummary)]) -> Vec<(String, &CellSummary)> {
    cells.iter().map(|(d, s)| (d.clone(), s)).collect()
}
