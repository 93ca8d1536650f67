//! Capacity in sessions end to end: D at N = 1 and 4 (closed loop) and at two session start
//! rates (open loop of sessions; under `rate_unit: sessions` no request-rate probes run)
//! against the in-process simulator, one decode slot, with a capacity SLO;
//! capacity.json's `sessions` and `session_rates` blocks hold the answers the cells' own
//! summaries imply (each cell judged here from its summary.json, not from a constant).

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{assert_finished, json, plateau, run, temp, tiny_config};

const TTFT_P99_MS: f64 = 120.0;
const TPOT_P99_MS: f64 = 50.0;

/// Whether the cell at `dir` meets the SLO (p99s over its turns), completed and was
/// steady; for an open loop also not overloaded and every offered session start sent.
fn passes(dir: &Path, open: bool) -> bool {
    let s = json(&dir.join("summary.json"));
    let p99 = |k: &str| s[k]["p99"].as_f64();
    let within = p99("ttft_ms").is_some_and(|v| v <= TTFT_P99_MS)
        && p99("tpot_ms").is_some_and(|v| v <= TPOT_P99_MS);
    let done = s["status"] == "complete" && s["steady"]["steady"] == true;
    if !open {
        return within && done;
    }
    let sessions = &s["sessions"];
    let offered = &sessions["session_starts_offered_per_minute"];
    let sent = &sessions["session_starts_per_minute"];
    assert!(offered.is_number(), "{sessions}");
    // No max_concurrency: every start is sent at its arrival.
    assert_eq!(offered, sent, "{sessions}");
    // `overloaded` is written only when true.
    within && done && s["steady"]["overloaded"] != true
}

/// The cell directories under `scenario` whose name is `prefix` and a number, with it.
fn loads(scenario: &Path, prefix: char) -> Vec<(f64, std::path::PathBuf)> {
    let mut out: Vec<(f64, std::path::PathBuf)> = std::fs::read_dir(scenario)
        .unwrap()
        .filter_map(|e| {
            let e = e.unwrap();
            let name = e.file_name().into_string().ok()?;
            let load: f64 = name.strip_prefix(prefix)?.parse().ok()?;
            Some((load, e.path()))
        })
        .collect();
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out
}

/// The answer the judged loads imply: the largest passing load below every failing one,
/// and that lowest failure.
fn expected(judged: &[(f64, bool)]) -> (Option<f64>, Option<f64>) {
    let fail = judged
        .iter()
        .filter(|j| !j.1)
        .map(|j| j.0)
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.min(v))));
    let pass = judged
        .iter()
        .filter(|j| j.1 && fail.is_none_or(|f| j.0 < f))
        .map(|j| j.0)
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
    (pass, fail)
}

#[test]
fn session_capacity_answers_what_the_cells_imply_both_ways() {
    let tmp = temp("session-capacity");
    let dir = tmp.path();
    // One decode slot: at N = 4 turns queue behind each other, so TTFT grows with load.
    let config = tiny_config(
        dir,
        json!({
            "endpoints": [{"name": "sim", "engine": "sim",
                           "sim": {"profile": "realistic", "engine": {"max_num_seqs": 1}}}],
            "scenarios": ["D"],
            "batch_sizes": [1, 4],
            "request_rates": [1, 8],
            "rate_unit": "sessions",
            "measure_seconds": 4,
            "scenario_options": {"D": {"think": {"dist": "fixed", "seconds": 0.1}}},
            "capacity": {"slo": {"ttft_p99_ms": TTFT_P99_MS, "tpot_p99_ms": TPOT_P99_MS},
                         "target_sessions": 10, "headroom": 0.25}
        }),
    );
    let (code, out, err) = run(&mut plateau(&["run", "--config", config.to_str().unwrap()]));
    assert_finished(code, &err);
    let results = dir.join("results");
    let capacity: Value = json(&results.join("capacity.json"));
    let cells = results.join("sim/m/D");

    let closed = &capacity["sessions"][0];
    let judged: Vec<(f64, bool)> = loads(&cells, 'c')
        .into_iter()
        .map(|(n, dir)| (n, passes(&dir, false)))
        .collect();
    assert_eq!(judged.len(), 2, "{judged:?}");
    eprintln!("closed loop: {judged:?}\n{closed}");
    let (pass, fail) = expected(&judged);
    assert_eq!(closed["max_sessions"].as_f64(), pass, "{closed}");
    assert_eq!(closed["failing_sessions"].as_f64(), fail, "{closed}");
    if let Some(n) = pass {
        // 10 users at n sessions per instance.
        let plan = &closed["plan"];
        assert_eq!(
            plan["instances"].as_f64(),
            Some((10.0 / n).ceil()),
            "{plan}"
        );
    }

    let open = &capacity["session_rates"][0];
    let rates = loads(&cells, 's');
    assert_eq!(rates.len(), 2, "{rates:?}");
    let judged: Vec<(f64, bool)> = rates
        .iter()
        .map(|(r, dir)| (r * 60.0, passes(dir, true)))
        .collect();
    eprintln!("open loop: {judged:?}\n{open}");
    let (pass, fail) = expected(&judged);
    assert_eq!(open["max_starts_per_minute"].as_f64(), pass, "{open}");
    assert_eq!(open["failing_starts_per_minute"].as_f64(), fail, "{open}");
    if let Some(r) = pass {
        let dir = &rates.iter().find(|l| l.0 * 60.0 == r).unwrap().1;
        let active = json(&dir.join("summary.json"))["sessions"]["sessions_active_mean"]
            .as_f64()
            .unwrap();
        assert_eq!(open["sessions_active_mean"].as_f64(), Some(active));
        let plan = &open["plan"];
        assert_eq!(
            plan["instances"].as_f64(),
            Some((10.0 / active - 1e-9).ceil().max(1.0)),
            "{plan}"
        );
    }
    assert!(out.contains("sim/m/D"), "{out}");
}
