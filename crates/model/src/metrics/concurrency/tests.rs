//! Tests of `concurrency.rs`: the in-flight step function and its summary over a window,
//! on hand-made request intervals.

use super::*;
use crate::metrics::fixtures::{sample, window};

/// Intervals in us: A [0, 20), B [5, 30), C [22, 45), D [30, 60), E [40, 42), plus a
/// zero-length F at 35 and G far after the window.
fn intervals() -> Vec<Sample> {
    [
        (0, 20),
        (5, 30),
        (22, 45),
        (30, 60),
        (40, 42),
        (35, 35),
        (100, 200),
    ]
    .into_iter()
    .map(|(sent, end)| sample(sent, &[], end))
    .collect()
}

#[test]
fn steps_merge_an_end_and_a_send_at_the_same_instant() {
    // At 30, B ends and D is sent: the level stays 2, no step to 1 or 3.
    let f = InFlight::from_samples(&intervals());
    let want = [
        (0, 1),
        (5, 2),
        (20, 1),
        (22, 2),
        (40, 3),
        (42, 2),
        (45, 1),
        (60, 0),
        (100, 1),
        (200, 0),
    ];
    assert_eq!(f.steps, want);
}

#[test]
fn window_summary_by_hand() {
    // Window [10, 50], N = 2. Levels:
    //   [10, 20) 2 (A B)   [20, 22) 1 (B: gap between A's end and C's send)
    //   [22, 30) 2 (B C)   [30, 40) 2 (C D)   [40, 42) 3 (C D E)
    //   [42, 45) 2 (C D)   [45, 50) 1 (D)
    // mean = (10*2 + 2*1 + 8*2 + 10*2 + 2*3 + 3*2 + 5*1) / 40 = 75 / 40 = 1.875
    // at >= 2: 10 + 8 + 10 + 2 + 3 = 33 of 40 us = 0.825
    let f = InFlight::from_samples(&intervals());
    let c = Concurrency::over(&f, &window(10, 50, 2));
    assert_eq!(
        c,
        Concurrency {
            target: Some(2),
            mean: 1.875,
            min: 1,
            max: 3,
            at_target_fraction: Some(0.825),
        }
    );
}

#[test]
fn segments_cover_the_span_exactly() {
    let f = InFlight::from_samples(&intervals());
    let segs: Vec<(u64, u32)> = f.segments(18, 24).map(|s| (s.us, s.level)).collect();
    assert_eq!(segs, [(2, 2), (2, 1), (2, 2)]); // [18,20) 2, [20,22) 1, [22,24) 2
    assert_eq!(
        f.segments(60, 100)
            .map(|s| (s.us, s.level))
            .collect::<Vec<_>>(),
        [(40, 0)]
    );
    assert_eq!(f.segments(5, 5).count(), 0);
    assert_eq!(f.mean(5, 5), None);
    assert_eq!(f.mean(300, 400), Some(0.0)); // after everything
}

#[test]
fn empty_window_reports_nothing_in_flight() {
    let f = InFlight::from_samples(&intervals());
    let c = Concurrency::over(&f, &window(10, 10, 2));
    assert_eq!(
        (c.mean, c.min, c.max, c.at_target_fraction),
        (0.0, 0, 0, Some(0.0))
    );
}
