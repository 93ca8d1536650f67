//! The closed loop on paused time with a fake transport: exact send times in Fill, zero
//! gaps between a slot's requests, N in flight through Measure, Drain semantics, the drain
//! limit and Ctrl-C.

use std::sync::Arc;
use std::time::Duration;

use plateau_core::live::Live;
use plateau_core::plan::Load;
use plateau_core::runner::{CellInput, CellOutput, Ending};
use plateau_model::phase::{DrainLimit, DrainSource, Phase, Schedule};
use plateau_model::sample::{Outcome, Sample};
use plateau_testkit::cell;
use plateau_testkit::transport::Fake;
use tokio_util::sync::CancellationToken;

pub async fn run(
    fake: Fake,
    schedule: Schedule,
    interrupt: CancellationToken,
) -> (CellOutput, Arc<Live>) {
    let input = CellInput {
        interrupt,
        ..cell::fixed_input(fake, Load::Concurrency(schedule.slots), schedule)
    };
    let live = input.live.clone();
    (cell::run(input).await, live)
}

pub fn by_slot(samples: &[Sample], slot: u32) -> Vec<&Sample> {
    let mut v: Vec<&Sample> = samples.iter().filter(|s| s.slot == slot).collect();
    v.sort_by_key(|s| s.t_sent_us);
    v
}

pub fn in_flight_at(samples: &[Sample], t_us: u64) -> usize {
    samples
        .iter()
        .filter(|s| s.t_sent_us <= t_us && t_us < s.t_end_us)
        .count()
}

#[tokio::test(start_paused = true)]
async fn closed_loop_through_the_four_phases() {
    // 4 slots, fill 4 s (one start per second), stabilize 2 s, measure 10 s; each request
    // takes 100 ms + 9 x 50 ms = 550 ms.
    let fake = Fake {
        ttft: Duration::from_millis(100),
        itl: Duration::from_millis(50),
        tokens: 10,
    };
    let (out, live) = run(
        fake,
        Schedule::secs(4, [4, 2, 10, 5]),
        CancellationToken::new(),
    )
    .await;
    let samples = &out.recorded.samples;
    assert_eq!(out.ending, Ending::Complete);
    assert_eq!(out.bounds.m0_us, 6_000_000);
    assert_eq!(out.bounds.m1_us, 16_000_000);

    // Fill: slot i's first request at exactly i seconds.
    for slot in 0..4 {
        assert_eq!(
            by_slot(samples, slot)[0].t_sent_us,
            u64::from(slot) * 1_000_000,
            "slot {slot}"
        );
    }
    // Closed loop: each request is sent the instant the slot's previous one ended.
    for slot in 0..4 {
        for pair in by_slot(samples, slot).windows(2) {
            assert_eq!(pair[1].t_sent_us, pair[0].t_end_us, "slot {slot} gap");
        }
    }
    // Measure: exactly N in flight at every probe.
    for t in (6_000_000..16_000_000).step_by(37_000) {
        assert_eq!(in_flight_at(samples, t), 4, "at {t} us");
    }
    // Drain: every measured request finished normally, after m1 if it straddled it.
    let measured = cell::measured(&out);
    assert!(measured.iter().all(|s| s.outcome == Outcome::Ok));
    let last_measured_end = measured.iter().map(|s| s.t_end_us).max().unwrap();
    assert_eq!(out.bounds.drain_end_us, last_measured_end);
    assert!(last_measured_end > out.bounds.m1_us);
    // Load held at N until the last measured request ended.
    for t in (out.bounds.m1_us..last_measured_end).step_by(10_000) {
        assert_eq!(in_flight_at(samples, t), 4, "drain at {t} us");
    }
    // Padding still running at drain end was cancelled, and only padding.
    let cancelled: Vec<&Sample> = samples
        .iter()
        .filter(|s| s.outcome == Outcome::Cancelled)
        .collect();
    assert_eq!(
        cancelled.len(),
        4,
        "load is held at N up to the end of Drain"
    );
    assert!(cancelled.iter().all(|s| s.phase == Phase::Drain));
    // Every request recorded exactly once.
    let mut seqs: Vec<u64> = samples.iter().map(|s| s.seq).collect();
    seqs.sort_unstable();
    assert_eq!(seqs, (0..samples.len() as u64).collect::<Vec<_>>());
    assert_eq!(live.snapshot().sent, samples.len() as u64);
    assert_eq!(live.snapshot().in_flight, 0);
    // Each slot's measured requests: 10 s / 0.55 s, 18 or 19 of them.
    for slot in 0..4 {
        let n = measured.iter().filter(|s| s.slot == slot).count();
        assert!((18..=19).contains(&n), "slot {slot}: {n}");
    }
}

#[tokio::test(start_paused = true)]
async fn drain_limit_cancels_measured_requests_as_drain_timeout() {
    // Requests take 100 s; measure 3 s; the drain limit is 1 s.
    let fake = Fake {
        ttft: Duration::from_secs(100),
        itl: Duration::from_millis(1),
        tokens: 2,
    };
    let (out, _) = run(
        fake,
        Schedule::secs(2, [0, 0, 3, 1]),
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.ending, Ending::DrainTimedOut);
    assert_eq!(out.bounds.drain_end_us, 4_000_000);
    let samples = &out.recorded.samples;
    assert_eq!(samples.len(), 2);
    assert!(
        samples
            .iter()
            .all(|s| s.phase == Phase::Measure && s.outcome == Outcome::DrainTimeout)
    );
    assert!(samples.iter().all(|s| s.t_end_us == 4_000_000));
}

/// The case: requests of about 41 s, which a 30 s limit would cut. One slot, no
/// Fill, Stabilize 50 s, Measure 60 s: requests run 0-41, 41-82 (both end before m1 =
/// 110 s, so the longest seen is 41 s), then 82-123, the measured one, 13 s past m1.
#[tokio::test(start_paused = true)]
async fn a_derived_drain_limit_waits_for_long_requests() {
    let fake = || Fake {
        ttft: Duration::from_secs(1),
        itl: Duration::from_secs(10),
        tokens: 5,
    };
    // Configured at 10 s: the measured request is cut.
    let (out, _) = run(
        fake(),
        Schedule::secs(1, [0, 50, 60, 10]),
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.ending, Ending::DrainTimedOut);
    assert_eq!(out.drain.source, DrainSource::Configured);
    assert_eq!(out.drain.limit, Duration::from_secs(10));
    // Derived: 2 x 41 s = 82 s, and the cell completes.
    let schedule = Schedule {
        drain: DrainLimit::Derived {
            ceiling: Duration::from_secs(600),
        },
        ..Schedule::secs(1, [0, 50, 60, 0])
    };
    let (out, _) = run(fake(), schedule, CancellationToken::new()).await;
    assert_eq!(out.ending, Ending::Complete);
    assert_eq!(out.drain.limit, Duration::from_secs(82));
    assert_eq!(
        out.drain.source,
        DrainSource::Derived {
            longest_request_ms: Some(41_000.0),
            requests: 2
        }
    );
    assert_eq!(out.bounds.drain_end_us, 123_000_000);
    let measured = cell::measured(&out);
    assert_eq!(measured.len(), 1);
    assert_eq!(measured[0].outcome, Outcome::Ok);
}

#[tokio::test(start_paused = true)]
async fn interrupt_ends_the_cell_and_keeps_every_record() {
    let fake = Fake {
        ttft: Duration::from_millis(300),
        itl: Duration::from_millis(10),
        tokens: 5,
    };
    let interrupt = CancellationToken::new();
    let trigger = interrupt.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(7_250)).await;
        trigger.cancel();
    });
    let (out, live) = run(fake, Schedule::secs(3, [3, 2, 60, 30]), interrupt).await;
    assert_eq!(out.ending, Ending::Interrupted);
    assert_eq!(out.bounds.drain_end_us, 7_250_000);
    let samples = &out.recorded.samples;
    assert_eq!(samples.len() as u64, live.snapshot().sent);
    let interrupted = samples
        .iter()
        .filter(|s| s.outcome == Outcome::Cancelled)
        .count();
    assert_eq!(interrupted, 3, "one in flight per slot");
    assert!(samples.iter().all(|s| s.t_end_us <= 7_250_000));
}

#[tokio::test(start_paused = true)]
async fn interrupt_during_fill_stops_slots_that_have_not_started() {
    let fake = Fake {
        ttft: Duration::from_millis(10),
        itl: Duration::from_millis(10),
        tokens: 2,
    };
    let interrupt = CancellationToken::new();
    let trigger = interrupt.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(1_500)).await;
        trigger.cancel();
    });
    let (out, _) = run(fake, Schedule::secs(10, [10, 1, 1, 1]), interrupt).await;
    assert_eq!(out.ending, Ending::Interrupted);
    let slots: std::collections::BTreeSet<u32> =
        out.recorded.samples.iter().map(|s| s.slot).collect();
    assert_eq!(
        slots,
        [0, 1].into_iter().collect(),
        "only slots 0 (t=0) and 1 (t=1s) started"
    );
}
