//! Failures on the closed loop, on tokio's paused clock: a slot waits when the server asks
//! for time and holds no request meanwhile; a cell whose endpoint keeps failing gives up.

use std::time::Duration;

use plateau_core::exchange::Exchange;
use plateau_core::plan::Load;
use plateau_core::runner::{CellInput, CellOutput, Ending};
use plateau_core::transport::Transport;
use plateau_core::workload::Prompt;
use plateau_http::Clock;
use plateau_model::phase::{Phase, Schedule};
use plateau_model::sample::Outcome;
use plateau_testkit::cell;
use plateau_testkit::transport::push_token;
use tokio_util::sync::CancellationToken;

use crate::closed::in_flight_at;

/// A server that fails every request after `after`, as `outcome`, asking `retry_after`;
/// from `recovers_at` on (cell time) it answers like a healthy one.
struct Failing {
    after: Duration,
    outcome: Outcome,
    retry_after: Option<Duration>,
    recovers_at: Option<Duration>,
}

impl Transport for Failing {
    async fn exchange(
        &self,
        _prompt: &Prompt,
        clock: &Clock,
        cancel: &CancellationToken,
    ) -> Exchange {
        let mut ex = Exchange::new(clock.now_us());
        tokio::select! {
            _ = cancel.cancelled() => {
                ex.outcome = Outcome::Cancelled;
                ex.t_end_us = clock.now_us();
                return ex;
            }
            _ = tokio::time::sleep(self.after) => {}
        }
        ex.t_end_us = clock.now_us();
        if self.recovers_at.is_some_and(|t| clock.elapsed() >= t) {
            let t_end_us = ex.t_end_us;
            push_token(&mut ex, t_end_us, 0, 1);
            return ex;
        }
        ex.outcome = self.outcome;
        ex.error = Some("boom".into());
        ex.retry_after = self.retry_after;
        ex
    }
}

async fn run_failing(server: Failing, schedule: Schedule, give_up_after: Duration) -> CellOutput {
    let load = Load::Concurrency(schedule.slots);
    cell::run(CellInput {
        failures: cell::failures(give_up_after),
        ..cell::fixed_input(server, load, schedule)
    })
    .await
}

#[tokio::test(start_paused = true)]
async fn retry_after_paces_each_slot_and_a_waiting_slot_is_not_in_flight() {
    // 8 slots told `Retry-After: 1` in 2 ms: each sends about once a second, not 500 times.
    let server = Failing {
        after: Duration::from_millis(2),
        outcome: Outcome::HttpStatus { status: 429 },
        retry_after: Some(Duration::from_secs(1)),
        recovers_at: None,
    };
    let out = run_failing(
        server,
        Schedule::secs(8, [1, 1, 10, 2]),
        Duration::from_secs(60),
    )
    .await;
    assert_eq!(out.ending, Ending::Complete);
    let samples = &out.recorded.samples;
    let measured = samples.iter().filter(|s| s.phase == Phase::Measure).count();
    // Per slot one request per 1.002-1.102 s over 10 s: 9 or 10 each.
    assert!((72..=80).contains(&measured), "{measured} requests in 10 s");
    for s in samples.iter().filter(|s| s.outcome != Outcome::Cancelled) {
        let wait = s.backoff_us.expect("every 429 is followed by a wait");
        assert!((1_000_000..1_100_000).contains(&wait), "{wait} us");
    }
    // The slots wait between requests, not inside them: at most 8 in flight, and mostly none.
    let probes: Vec<usize> = (2_000_000..12_000_000)
        .step_by(10_007)
        .map(|t| in_flight_at(samples, t))
        .collect();
    assert!(probes.iter().all(|&n| n <= 8));
    let busy = probes.iter().filter(|&&n| n > 0).count();
    assert!(
        busy * 10 < probes.len(),
        "{busy} of {} probes busy",
        probes.len()
    );
}

#[tokio::test(start_paused = true)]
async fn a_cell_whose_endpoint_keeps_failing_gives_up_with_the_last_message() {
    // 500s carry no request for time: the loop goes on at once, and gives up after 3 s.
    let server = Failing {
        after: Duration::from_millis(5),
        outcome: Outcome::HttpStatus { status: 500 },
        retry_after: None,
        recovers_at: None,
    };
    let out = run_failing(
        server,
        Schedule::secs(2, [1, 1, 10, 2]),
        Duration::from_secs(3),
    )
    .await;
    assert_eq!(out.ending, Ending::Failed);
    let reason = out.failure.unwrap();
    assert!(
        reason.starts_with("every request failed for 3.0 s"),
        "{reason}"
    );
    assert!(reason.ends_with("last: http_500: boom)"), "{reason}");
    // The first failure ended at 5 ms; the cell ends within one request of 3 s after it.
    assert!(
        (3_005_000..3_020_000).contains(&out.bounds.end_us),
        "{}",
        out.bounds.end_us
    );
    assert!(out.recorded.samples.iter().all(|s| s.backoff_us.is_none()));
}

#[tokio::test(start_paused = true)]
async fn refused_connections_back_off_and_give_up_after_five_seconds() {
    let server = Failing {
        after: Duration::from_micros(200),
        outcome: Outcome::Connect,
        retry_after: None,
        recovers_at: None,
    };
    let out = run_failing(
        server,
        Schedule::secs(4, [1, 1, 30, 2]),
        Duration::from_secs(30),
    )
    .await;
    assert_eq!(out.ending, Ending::Failed);
    assert!(
        out.failure
            .as_deref()
            .unwrap()
            .starts_with("no connection could be opened for 5."),
        "{:?}",
        out.failure
    );
    // Waits of 50-100 ms, 100-200, 200-400 ... per slot: a handful of tries each in 5 s.
    let tries = out.recorded.samples.len();
    assert!((4 * 5..=4 * 8).contains(&tries), "{tries} tries");
    assert!(out.bounds.end_us < 6_500_000, "{}", out.bounds.end_us);
}

#[tokio::test(start_paused = true)]
async fn a_server_that_recovers_is_measured_at_full_load() {
    // 503s until 1.5 s (in Fill and Stabilize), then healthy: the backoff starts over and
    // Measure sees all 4 slots busy.
    let server = Failing {
        after: Duration::from_millis(20),
        outcome: Outcome::HttpStatus { status: 503 },
        retry_after: None,
        recovers_at: Some(Duration::from_millis(1_500)),
    };
    let out = run_failing(
        server,
        Schedule::secs(4, [1, 2, 5, 2]),
        Duration::from_secs(30),
    )
    .await;
    assert_eq!(out.ending, Ending::Complete);
    let samples = &out.recorded.samples;
    for t in (3_000_000..8_000_000).step_by(9_973) {
        let n = in_flight_at(samples, t);
        assert!(n >= 3, "{n} in flight at {t} us");
    }
    assert!(
        samples
            .iter()
            .filter(|s| s.phase == Phase::Measure)
            .all(|s| s.outcome == Outcome::Ok && s.backoff_us.is_none())
    );
}
