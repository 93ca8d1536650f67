//! The open loop on paused time: arrivals at their intended instants whatever the server
//! does, latencies from the intended send, the client-side queue under `max_concurrency`,
//! and Drain.

use std::time::Duration;

use plateau_core::plan::{Load, Rate};
use plateau_core::runner::{CellInput, CellOutput, Ending};
use plateau_model::config::Arrival;
use plateau_model::phase::Schedule;
use plateau_testkit::cell;
use plateau_testkit::transport::Fake;

/// Each request: 300 ms to the first token, then 9 more 10 ms apart: 390 ms.
pub const FAKE: Fake = Fake {
    ttft: Duration::from_millis(300),
    itl: Duration::from_millis(10),
    tokens: 10,
};

async fn run_open(fake: Fake, rate: Rate, schedule: Schedule) -> CellOutput {
    cell::run(CellInput {
        seed: 5,
        ..cell::fixed_input(fake, Load::Rate(rate), schedule)
    })
    .await
}

fn constant(rps: f64, max_concurrency: Option<u32>) -> Rate {
    Rate {
        rps,
        arrival: Arrival::Constant,
        max_concurrency,
        unit: Default::default(),
    }
}

#[tokio::test(start_paused = true)]
async fn arrivals_go_out_on_schedule_however_slow_the_server() {
    // 10 req/s for 10 s of Measure; each request takes 0.3 s + 9 x 10 ms: about 4 in
    // flight, and no request waits for another.
    let out = run_open(
        FAKE,
        constant(10.0, None),
        Schedule::secs(0, [0, 1, 10, 30]),
    )
    .await;
    assert_eq!(out.ending, Ending::Complete);
    let samples = &out.recorded.samples;
    for s in samples.iter().filter(|s| s.outcome.is_ok()) {
        let intended = s.t_intended_us.expect("every open-loop request has one");
        assert_eq!(s.t_sent_us, intended, "sent on time: {s:?}");
        assert_eq!(intended % 100_000, 0, "constant arrivals 100 ms apart");
        assert_eq!(s.ttft_us(), Some(300_000));
        assert_eq!(s.queue_us, None, "no cap, no queue");
    }
    let m = cell::summarize(&out, Some(10.0));
    assert_eq!(m.requests.measured, 100, "every arrival of [1 s, 11 s)");
    assert_eq!(m.requests.measured_ok, 100);
    let load = m.load.expect("load block");
    assert_eq!(load.offered_rps, 10.0);
    assert!(
        (load.achieved_rps - 10.0).abs() <= 0.1,
        "{}",
        load.achieved_rps
    );
    // Little's law: 10 req/s x 0.39 s in the system.
    assert!(
        (m.concurrency.mean - 3.9).abs() < 0.05,
        "{}",
        m.concurrency.mean
    );
    assert_eq!(load.schedule_lag_ms.as_ref().map(|d| d.max), Some(0.0));
    assert!(load.overloaded.is_none(), "{:?}", load.overloaded);
    assert!(!m.steady.overloaded);
}

#[tokio::test(start_paused = true)]
async fn a_cap_queues_arrivals_and_the_queue_counts_in_the_latency() {
    // 10 req/s, each request 0.39 s, at most 2 in flight: the server completes at most
    // 2 / 0.39 = 5.1 req/s, so arrivals queue client-side and the queue grows.
    let out = run_open(
        FAKE,
        constant(10.0, Some(2)),
        Schedule::secs(0, [0, 1, 10, 120]),
    )
    .await;
    let samples = &out.recorded.samples;
    let in_flight = plateau_model::metrics::InFlight::from_samples(samples);
    assert_eq!(in_flight.peak(), 2, "the cap holds");
    let m = cell::summarize(&out, Some(10.0));
    let load = m.load.as_ref().expect("load block");
    let queue = load.queue_ms.as_ref().expect("queue times");
    assert!(queue.max > 1_000.0, "the queue grows: {queue:?}");
    for s in samples.iter().filter(|s| s.outcome.is_ok()) {
        let queued = s.queue_us.expect("every capped arrival has a queue time");
        assert_eq!(s.t_sent_us, s.t_intended_us.unwrap() + queued);
        assert_eq!(s.ttft_us(), Some(300_000 + queued), "{s:?}");
        assert_eq!(s.ttft_from_send_us(), Some(300_000));
        assert_eq!(s.schedule_lag_us(), Some(0));
    }
    let ttft = m.ttft_ms.as_ref().unwrap();
    let from_send = load.from_send.as_ref().unwrap().ttft_ms.as_ref().unwrap();
    assert!(
        ttft.p50 > from_send.p50 + 1_000.0,
        "{ttft:?} vs {from_send:?}"
    );
    assert!(load.achieved_rps < 5.2, "{}", load.achieved_rps);
    assert!(m.steady.overloaded, "{:?}", m.steady.reasons);
    assert!(
        m.steady.reasons[0].starts_with("overloaded:"),
        "{:?}",
        m.steady.reasons
    );
}
