//! One cell through the runner without the driver: a [`CellInput`] with the settings tests share, run with a fresh recorder, and the metrics of its Measure window.

use std::sync::Arc;
use std::time::Duration;

use plateau_core::live::Live;
use plateau_core::plan::Load;
use plateau_core::recorder::Recorder;
use plateau_core::runner::{CellInput, CellOutput, Failures, GiveUp, Timer, run_cell};
use plateau_core::tokens::{TokenCounter, Whitespace};
use plateau_core::transport::Transport;
use plateau_core::workload::{FixedPrompt, Workload};
use plateau_model::config::SteadyConfig;
use plateau_model::metrics::{self, Metrics, Options, Window};
use plateau_model::phase::{Phase, Schedule};
use plateau_model::sample::Sample;
use tokio_util::sync::CancellationToken;

/// Failure handling as a run sets it, giving up after `give_up_after` of failures (backoff
/// jitter seeded 1).
pub fn failures(give_up_after: Duration) -> Failures {
    Failures {
        give_up: Arc::new(GiveUp::new(give_up_after)),
        seed: 1,
    }
}

/// The input of a cell sending `workload`'s prompts through `transport` at `load` on
/// `schedule`: arrivals seeded 0, the runtime's timer (paused-time tests), fresh live
/// counters, no interrupt, giving up after 30 s of failures. A test changes what it needs
/// with `CellInput { seed: 5, ..input(..) }`.
pub fn input<T>(
    transport: T,
    workload: Arc<dyn Workload>,
    load: Load,
    schedule: Schedule,
) -> CellInput<T> {
    CellInput {
        transport: Arc::new(transport),
        workload,
        load,
        schedule,
        seed: 0,
        timer: Timer::Runtime,
        live: Arc::new(Live::default()),
        interrupt: CancellationToken::new(),
        failures: failures(Duration::from_secs(30)),
    }
}

/// [`input`] sending the fixed prompt "hi".
pub fn fixed_input<T>(transport: T, load: Load, schedule: Schedule) -> CellInput<T> {
    input(
        transport,
        Arc::new(FixedPrompt::new("hi", None)),
        load,
        schedule,
    )
}

/// Runs `input` to its end, recording without text and counting tokens by whitespace.
pub async fn run<T: Transport>(input: CellInput<T>) -> CellOutput {
    run_counted(input, Arc::new(Whitespace), false).await
}

/// Runs `input` to its end, counting tokens with `counter` and keeping each request's text
/// if `store_text`.
pub async fn run_counted<T: Transport>(
    input: CellInput<T>,
    counter: Arc<dyn TokenCounter>,
    store_text: bool,
) -> CellOutput {
    let recorder = Recorder::spawn(None, counter, store_text, input.live.clone()).unwrap();
    run_cell(input, recorder).await
}

/// The metrics of `out`'s Measure window as they happened, streamed, with the default
/// steady-state rules and the open loop's `target_rps`.
pub fn summarize(out: &CellOutput, target_rps: Option<f64>) -> Metrics {
    let window = Window {
        m0_us: out.bounds.m0_us,
        m1_us: out.bounds.m1_us,
        concurrency: None,
    };
    let steady = SteadyConfig::default();
    let opts = Options {
        slo: None,
        steady: &steady,
        stream: true,
        target_rps,
        fill_end_us: None,
    };
    metrics::summarize(&out.recorded.samples, &window, &opts)
}

/// The records of `out`'s Measure phase, in the order the recorder wrote them.
pub fn measured(out: &CellOutput) -> Vec<&Sample> {
    out.recorded
        .samples
        .iter()
        .filter(|s| s.phase == Phase::Measure)
        .collect()
}
