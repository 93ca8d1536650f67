//! The open loop of sessions in the rate figures: the open fixture's open-loop cells made
//! session-rate cells (`rate_unit: sessions`, known session starts per minute) draw
//! achieved and offered session starts per second against the offered sessions/s, labelled
//! so; goodput stays in requests/s without the y = x diagonal; a run of request rates keeps
//! its requests.

use std::collections::BTreeMap;

use plateau_model::config::RateUnit;
use plateau_model::metrics::SessionMetrics;
use plateau_model::results::dir::ResultsDir;
use plateau_model::results::summary::CellSummary;
use plateau_model::results::{read_json, write_json};
use plateau_report::Options;
use plateau_report::figures::requests_vs_rate::{ACHIEVED, GOODPUT, RequestsVsRate};
use plateau_report::matrix::Matrix;

use crate::common;

/// Per target rate (sessions/s): session starts per minute achieved and offered.
const STARTS: [(u32, f64, f64); 4] = [
    (2, 114.0, 120.0),
    (4, 240.0, 234.0),
    (6, 354.0, 366.0),
    (8, 330.0, 480.0),
];

fn sessions(started: f64, offered: f64) -> SessionMetrics {
    SessionMetrics {
        sessions_target: None,
        sessions_active_mean: 1.0,
        requests_in_flight_mean: 1.0,
        thinking_mean: 0.0,
        sessions_completed: 3,
        sessions_failed: 0,
        sessions_per_minute: Some(started),
        session_starts_offered_per_minute: Some(offered),
        session_starts_per_minute: Some(started),
        turns_per_session: None,
        session_duration_s: None,
        think_ms: None,
        by_turn: Vec::new(),
        by_context: Vec::new(),
        unmeasured: BTreeMap::new(),
    }
}

/// The open-loop cells of the open fixture at `results` made session-rate cells, in the
/// directories plateau gives them (`s2`, not `r2`).
fn sessionize(results: &std::path::Path) {
    for (rate, started, offered) in STARTS {
        let cells = results.join("vllm/llama-8b/A1");
        let dir = cells.join(format!("s{rate}"));
        std::fs::rename(cells.join(format!("r{rate}")), &dir).unwrap();
        let path = dir.join("summary.json");
        let mut s: CellSummary = read_json(&path).unwrap();
        s.cell.load.rate_unit = Some(RateUnit::Sessions);
        s.metrics.sessions = Some(sessions(started, offered).into());
        write_json(&path, &s).unwrap();
    }
}

/// `(dashed, [(x, y)])` of each line of A1's panel.
fn lines(m: &Matrix, figure: &RequestsVsRate) -> Vec<(bool, Vec<(f64, f64)>)> {
    let a1 = m.scenarios.iter().position(|s| s.id == "A1").unwrap();
    figure
        .lines(a1)
        .into_iter()
        .map(|(_, dashed, points)| (dashed, points.iter().map(|p| (p.x, p.y)).collect()))
        .collect()
}

#[test]
fn session_rates_draw_session_starts_against_offered_sessions() {
    let (_guard, results, figures) = common::fixture_copy("open", "session-rates");
    sessionize(&results);
    let dir = ResultsDir::read(&results).unwrap();
    assert_eq!(dir.problems(), Vec::<String>::new());
    let m = Matrix::new(&dir);
    let achieved = RequestsVsRate {
        m: &m,
        capacity: None,
        spec: &ACHIEVED,
    };
    // Starts per minute / 60, at the offered session rate: 114/min at 2 sessions/s is 1.9/s.
    assert_eq!(
        lines(&m, &achieved),
        vec![
            (false, vec![(2.0, 1.9), (4.0, 4.0), (6.0, 5.9), (8.0, 5.5)]),
            (true, vec![(2.0, 2.0), (4.0, 3.9), (6.0, 6.1), (8.0, 8.0)]),
        ]
    );
    assert_eq!(achieved.y_desc(), "session starts/s");
    assert_eq!(
        achieved.title(),
        "Achieved vs offered session start rate (open loop)"
    );
    let goodput = RequestsVsRate {
        m: &m,
        capacity: None,
        spec: &GOODPUT,
    };
    assert_eq!(goodput.y_desc(), "requests/s");

    plateau_report::render(&Options::new(&results, &figures)).unwrap();
    let texts = common::texts(&common::svg(&figures, "achieved_vs_offered_rate"));
    for want in [
        "target rate (sessions/s, open loop)",
        "session starts/s",
        "achieved: sessions started per second in the window",
        "offered: session starts due per second in the window",
        "y = x: the target rate",
    ] {
        assert!(texts.iter().any(|t| t == want), "{want} in {texts:?}");
    }
    assert!(!texts.iter().any(|t| t.contains("requests completed")));
    let texts = common::texts(&common::svg(&figures, "goodput_vs_rate"));
    assert!(texts.iter().any(|t| t == "requests/s"), "{texts:?}");
    assert!(!texts.iter().any(|t| t.starts_with("y = x")), "{texts:?}");
}

#[test]
fn request_rates_keep_requests_per_second() {
    let (results, _, _) = common::open();
    let dir = ResultsDir::read(results).unwrap();
    let m = Matrix::new(&dir);
    let achieved = RequestsVsRate {
        m: &m,
        capacity: None,
        spec: &ACHIEVED,
    };
    let read = |rate: u32, f: fn(&CellSummary) -> f64| {
        let path = results.join(format!("vllm/llama-8b/A1/r{rate}/summary.json"));
        f(&read_json(&path).unwrap())
    };
    let want = |f: fn(&CellSummary) -> f64| -> Vec<(f64, f64)> {
        [2, 4, 6, 8].map(|r| (f64::from(r), read(r, f))).to_vec()
    };
    assert_eq!(
        lines(&m, &achieved),
        vec![
            (
                false,
                want(|s| s.metrics.load.as_ref().unwrap().achieved_rps)
            ),
            (true, want(|s| s.metrics.load.as_ref().unwrap().offered_rps)),
        ]
    );
    assert_eq!(achieved.y_desc(), "requests/s");
    assert_eq!(
        achieved.title(),
        "Achieved vs offered request rate (open loop)"
    );
}
