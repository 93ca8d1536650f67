//! Arrival-scheduler benchmark: how far the open loop's actual sends trail its intended
//! ones, on this machine, in real time.
//!
//! It drives the real [`run_cell`](plateau_core::runner::run_cell) open loop on a 2-worker multi-thread runtime (as
//! a real run) against an in-process fake server that answers in about 65 ms (TTFT 20 ms,
//! then 3 more tokens 15 ms apart; about 65 requests in flight at 1,000 req/s), with
//! Poisson arrivals at 100, 1,000 and 5,000 req/s. Each rate ramps over 1 s of Fill, holds
//! 1 s of Stabilize, then measures for `PLATEAU_BENCH_SECONDS` (default 10) s. For the
//! arrivals of Measure it prints the achieved send rate, the schedule lag
//! ([`Sample::schedule_lag_us`](plateau_model::sample::Sample::schedule_lag_us): actual send minus intended send) and the client's CPU time
//! per arrival, read by the runner's own self-check over Measure (`getrusage`; it includes
//! the fake server and the recorder, which run in the same process).
//!
//! First, criterion times the pure [`Pacer`]: ns per `next_arrival` for each arrival process.
//!
//! `cargo bench -p plateau-core --bench arrivals`; run without `--bench` (as `cargo test
//! --benches` does) it only smoke-runs 100 req/s for 1 s.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    reason = "a benchmark binary"
)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput};
use plateau_core::pacer::Pacer;
use plateau_core::plan::{Load, Rate};
use plateau_core::runner::{CellInput, CellOutput, Timer};
use plateau_model::config::{Arrival, GammaArrival};
use plateau_model::metrics::Distribution;
use plateau_model::phase::{DrainLimit, Schedule};
use plateau_testkit::cell;
use plateau_testkit::transport::Fake;

/// Arrival rates of the open-loop table, req/s.
const RATES: [f64; 3] = [100.0, 1_000.0, 5_000.0];

/// One open-loop cell of Poisson arrivals at `rps`, measuring for `measure`.
async fn run_rate(rps: f64, fill: Duration, measure: Duration) -> CellOutput {
    let load = Load::Rate(Rate {
        rps,
        arrival: Arrival::Poisson,
        max_concurrency: None,
        unit: Default::default(),
    });
    let fake = Fake {
        ttft: Duration::from_millis(20),
        itl: Duration::from_millis(15),
        tokens: 4,
    };
    let schedule = Schedule {
        slots: load.sessions(),
        fill,
        stabilize: fill,
        measure,
        drain: DrainLimit::Configured(Duration::from_secs(5)),
        adaptive: None,
    };
    cell::run(CellInput {
        seed: 1,
        timer: Timer::Precise,
        ..cell::fixed_input(fake, load, schedule)
    })
    .await
}

/// Prints one row of the table from a finished cell at `rps`.
fn print_row(rps: f64, out: &CellOutput) {
    let measured = cell::measured(out);
    let arrivals = measured.len();
    let window_s = out.bounds.m1_us.saturating_sub(out.bounds.m0_us) as f64 / 1e6;
    let window = out.bounds.m0_us..out.bounds.m1_us;
    let sent = out
        .recorded
        .samples
        .iter()
        .filter(|s| window.contains(&s.t_sent_us))
        .count();
    let lags: Vec<f64> = measured
        .iter()
        .filter_map(|s| s.schedule_lag_us())
        .map(|us| us as f64 / 1e3)
        .collect();
    let lag = Distribution::from_values(&lags);
    let ms = |f: fn(&Distribution) -> f64| lag.as_ref().map_or(f64::NAN, f);
    let durations: Vec<f64> = measured
        .iter()
        .map(|s| s.t_end_us.saturating_sub(s.t_sent_us) as f64 / 1e6)
        .collect();
    let mean_s = Distribution::from_values(&durations).map_or(f64::NAN, |d| d.mean);
    let achieved = sent as f64 / window_s;
    let health = out.client.as_ref();
    let cpu_us = health
        .and_then(|h| h.cpu_s)
        .map_or(f64::NAN, |c| c * 1e6 / arrivals.max(1) as f64);
    let cores = health.and_then(|h| h.cpu_cores_used).unwrap_or(f64::NAN);
    println!(
        "{rps:>7.0} {arrivals:>9} {achieved:>10.1} {:>9.1} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>11.1} {:>9.2}",
        achieved * mean_s,
        ms(|d| d.p50),
        ms(|d| d.p99),
        ms(|d| d.p999),
        ms(|d| d.max),
        cpu_us,
        cores,
    );
    let failed = measured.iter().filter(|s| !s.outcome.is_ok()).count();
    if failed > 0 {
        println!(
            "        {failed} measured requests did not end Ok; ending {:?}",
            out.ending
        );
    }
}

/// The open-loop table: one cell per rate on a 2-worker runtime.
fn open_loop(rates: &[f64], fill: Duration, measure: Duration) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    println!(
        "open loop, Poisson arrivals, fake server ~65 ms/request, 2 workers, {} s measured per rate",
        measure.as_secs_f64()
    );
    println!(
        "{:>7} {:>9} {:>10} {:>9} {:>8} {:>8} {:>8} {:>8} {:>11} {:>9}",
        "req/s",
        "arrivals",
        "sent/s",
        "in-flight",
        "lag p50",
        "lag p99",
        "p99.9",
        "max",
        "CPU us/arr",
        "cores"
    );
    for &rps in rates {
        let out = rt.block_on(run_rate(rps, fill, measure));
        print_row(rps, &out);
    }
    println!("lag columns in ms: actual send minus intended send, over Measure's arrivals");
}

/// ns per [`Pacer::next_arrival`] for each arrival process, past the ramp.
fn pacer(c: &mut Criterion) {
    let mut group = c.benchmark_group("pacer");
    group.throughput(Throughput::Elements(1));
    let processes = [
        ("poisson", Arrival::Poisson),
        ("constant", Arrival::Constant),
        (
            "gamma(k=0.5)",
            Arrival::Gamma(GammaArrival { burstiness: 0.5 }),
        ),
    ];
    for (name, arrival) in processes {
        let mut pacer = Pacer::new(1_000.0, arrival, Duration::ZERO, 1);
        group.bench_function(name, |b| b.iter(|| black_box(pacer.next_arrival())));
    }
    group.finish();
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--list") {
        println!("arrivals: benchmark");
        return;
    }
    let bench = args.iter().any(|a| a == "--bench");
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1))
        .configure_from_args();
    pacer(&mut c);
    c.final_summary();
    if bench {
        let seconds = std::env::var("PLATEAU_BENCH_SECONDS")
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .filter(|s| *s > 0.0)
            .unwrap_or(10.0);
        open_loop(
            &RATES,
            Duration::from_secs(1),
            Duration::from_secs_f64(seconds),
        );
    } else {
        open_loop(&RATES[..1], Duration::ZERO, Duration::from_secs(1));
    }
}
