//! `phases`: adaptive ranges in the plan and the schedule, the wall-time range, and each
//! bad value named by its field.

use super::*;

#[test]
fn adaptive_phases_reach_the_schedule_and_give_a_wall_time_range() {
    let mut v = base();
    v["phases"] = serde_json::json!({"mode": "adaptive", "stabilize": {"min": 5, "max": 60},
        "measure": {"min": 10, "max": 100}, "precision": 0.05});
    let plan = build(&v).unwrap();
    let a = plan.phases.adaptive.expect("adaptive");
    assert_eq!(a.precision, 0.05);
    assert_eq!(
        (plan.phases.stabilize, plan.phases.measure),
        (Duration::from_secs(60), Duration::from_secs(100)),
        "the schedule's lengths are the maxima"
    );
    let cell = &plan.cells()[0];
    let s = plan.schedule_of(cell).adaptive.expect("adaptive schedule");
    assert_eq!(s.stabilize_min, Some(Duration::from_secs(5)));
    assert_eq!(s.measure_min, Some(Duration::from_secs(10)));
    // 2 cells: (1 + 5 + 10) x 2 to (1 + 60 + 100 + 4) x 2.
    let (lo, hi) = plan.estimated_duration();
    assert_eq!(
        (lo, hi),
        (Duration::from_secs(32), Duration::from_secs(330))
    );
    // A capacity probe keeps its derived Measure.
    let probe = Cell {
        measure: Some(Duration::from_secs(33)),
        ..cell.clone()
    };
    let s = plan.schedule_of(&probe);
    assert_eq!(s.measure, Duration::from_secs(33));
    assert_eq!(s.adaptive.and_then(|a| a.measure_min), None);
}

#[test]
fn the_shorthand_takes_the_defaults_and_fixed_is_unchanged() {
    let mut v = base();
    v["phases"] = serde_json::json!("adaptive");
    let plan = build(&v).unwrap();
    assert_eq!(
        (plan.phases.stabilize, plan.phases.measure),
        (Duration::from_secs(120), Duration::from_secs(300))
    );
    v["phases"] = serde_json::json!("fixed");
    let fixed = build(&v).unwrap();
    assert_eq!(fixed.phases, build(&base()).unwrap().phases);
    assert_eq!(fixed.schedule_of(&fixed.cells()[0]).adaptive, None);
}

#[test]
fn bad_adaptive_values_name_their_field() {
    let rows: &[(serde_json::Value, &str)] = &[
        (
            serde_json::json!({"mode": "adaptive", "stabilize": {"min": 50, "max": 10}}),
            "phases.stabilize.min: got 50 above max 10, expected min <= max",
        ),
        (
            serde_json::json!({"mode": "adaptive", "measure": {"min": 0, "max": 10}}),
            "phases.measure.min: got 0, expected a number of seconds above 0",
        ),
        (
            serde_json::json!({"mode": "adaptive", "measure": {"min": 5, "max": -1}}),
            "phases.measure.max: got -1, expected a number of seconds above 0",
        ),
        (
            serde_json::json!({"mode": "adaptive", "precision": 0}),
            "phases.precision: got 0, expected a fraction above 0 and below 1",
        ),
        (
            serde_json::json!({"mode": "fixed", "measure": {"min": 5, "max": 10}}),
            "phases.measure: only used with \"mode\": \"adaptive\"",
        ),
    ];
    for (phases, want) in rows {
        let mut v = base();
        v["phases"] = phases.clone();
        let got = problems(v);
        assert!(got.iter().any(|p| p.starts_with(want)), "{phases}: {got:?}");
    }
}
