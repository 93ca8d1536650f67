//! One cell through Fill, Stabilize, Measure `[m0, m1)` and Drain, in a closed loop (N
//! slots, each sending its next request the instant the previous one ends; slots start
//! evenly spaced over Fill) or an open loop (`open.rs`: arrivals at a request rate that
//! ramps up over Fill, never held back by slow requests). Drain holds the load until every
//! measured request has ended or the Drain limit passes; then in-flight padding is
//! cancelled. The limit is decided at `m1`: configured, or
//! derived from the longest request the slots saw at full load ([`DrainLimit::decide`]).
//! Ctrl-C (the `interrupt` token) ends the cell early, keeping every record. A slot waits
//! after a failure that asks for time ([`crate::backoff`]), and a cell whose endpoint keeps
//! failing gives up ([`GiveUp`]) and ends as failed, with the server's last message.

mod adaptive;
mod arrivals;
mod bounds;
mod give_up;
mod open;
mod request;
mod slot;

pub use arrivals::Timer;
pub use give_up::GiveUp;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::task::JoinSet;
use tokio::time::sleep_until;
use tokio_util::sync::CancellationToken;

use crate::live::Live;
use crate::plan::Load;
use crate::recorder::{Recorded, Recorder, SoFar};
use crate::selfcheck::{ClientHealth, SelfCheck};
use crate::transport::Transport;
use crate::workload::Workload;
use plateau_http::clock::{Clock, micros};
use plateau_model::phase::{DrainLimit, DrainSource, Phase, PhaseEnds, Schedule};

use bounds::LiveBounds;
use plateau_model::sample::Outcome;

/// What one cell needs to run.
pub struct CellInput<T> {
    /// Sends requests.
    pub transport: Arc<T>,
    /// Produces prompts.
    pub workload: Arc<dyn Workload>,
    /// Closed loop at N, or open loop at a rate.
    pub load: Load,
    /// Slots and phase lengths.
    pub schedule: Schedule,
    /// Seeds the open loop's arrival schedule.
    pub seed: u64,
    /// How the open loop waits for each arrival ([`Timer::Precise`] outside paused-time
    /// tests).
    pub timer: Timer,
    /// Counters for the progress display.
    pub live: Arc<Live>,
    /// Ctrl-C: ends the cell early.
    pub interrupt: CancellationToken,
    /// What the slots do about failures.
    pub failures: Failures,
}

/// What the slots do about failures.
#[derive(Clone, Debug)]
pub struct Failures {
    /// The endpoint's failure streak, shared by its cells: the cell gives up when it says.
    pub give_up: Arc<GiveUp>,
    /// Seeds each slot's backoff jitter.
    pub seed: u64,
}

/// The phase bounds as they happened, us since the cell's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Start of Measure.
    pub m0_us: u64,
    /// End of Measure.
    pub m1_us: u64,
    /// When Drain ended (last measured request done, drain limit, or interrupt).
    pub drain_end_us: u64,
    /// When the last request of the cell ended.
    pub end_us: u64,
}

/// How the cell ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Every measured request finished within Drain.
    Complete,
    /// `drain_seconds` passed with measured requests still running; they were cancelled.
    DrainTimedOut,
    /// Ctrl-C.
    Interrupted,
    /// The endpoint kept failing; the cell gave up (see [`CellOutput::failure`]).
    Failed,
}

/// The Drain limit a cell used and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct DrainDecision {
    /// The limit.
    pub limit: Duration,
    /// Configured, or derived from what.
    pub source: DrainSource,
}

/// A finished cell: its records and bounds.
#[derive(Debug)]
pub struct CellOutput {
    /// Samples and any error writing them.
    pub recorded: Recorded,
    /// Phase bounds.
    pub bounds: Bounds,
    /// How it ended.
    pub ending: Ending,
    /// The Drain limit, decided at `m1` (or at the interrupt).
    pub drain: DrainDecision,
    /// The client's own lag and CPU over Measure; `None` if Measure never began.
    pub client: Option<ClientHealth>,
    /// Why the cell gave up ([`Ending::Failed`]).
    pub failure: Option<String>,
    /// Adaptive phases: why Stabilize and Measure ended (`None` with fixed phases).
    pub phase_end: Option<PhaseEnds>,
    /// When Stabilize, Measure and Drain began on the cell's clock, us (`None`: not reached).
    pub phase_starts_us: [Option<u64>; 3],
}

/// State the coordinator and the slots share.
struct Shared<T> {
    transport: Arc<T>,
    schedule: Schedule,
    /// Where Measure starts and ends.
    bounds: LiveBounds,
    clock: Clock,
    live: Arc<Live>,
    /// Cancels every in-flight request of this cell (a child of `interrupt`).
    cancel: CancellationToken,
    interrupt: CancellationToken,
    /// Fires when the cell gives up.
    gave_up: CancellationToken,
    /// Why it gave up.
    failure: OnceLock<String>,
    failures: Failures,
    /// No new requests once set.
    stop: AtomicBool,
    /// Open loop: no new arrivals once cancelled.
    arrivals_stopped: CancellationToken,
    /// Measured requests still running (incremented before the phase is read).
    measured_in_flight: AtomicU64,
    measured_done: Notify,
    seq: AtomicU64,
    /// Longest request (send to end, us) that succeeded and ended after Fill, before m1.
    longest_full_load_us: AtomicU64,
    /// How many requests that maximum is over.
    full_load_ended: AtomicU64,
}

impl<T> Shared<T> {
    /// What a request cut short by this cell's cancellation ended as: cancelled (a stop:
    /// Ctrl-C, SIGTERM; not an error), a measured request cut at the Drain limit, or
    /// cancelled padding.
    fn cancelled_outcome(&self, measured: bool) -> Outcome {
        if self.interrupt.is_cancelled() {
            Outcome::Cancelled
        } else if measured && !self.gave_up.is_cancelled() {
            Outcome::DrainTimeout
        } else {
            Outcome::Cancelled
        }
    }

    /// A measured request has been recorded.
    fn measured_ended(&self) {
        if self.measured_in_flight.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.measured_done.notify_one();
        }
    }

    /// Gives up on the cell: no new requests, in-flight ones cancelled.
    fn fail(&self, reason: String) {
        let _ = self.failure.set(reason);
        self.gave_up.cancel();
        self.cancel.cancel();
    }

    /// Notes a request that ended, for the derived Drain limit: counted when it succeeded
    /// and ended with all slots busy, before `m1`.
    fn request_ended(&self, t_sent_us: u64, t_end_us: u64, ok: bool) {
        let m1 = self.bounds.m1().map_or(u64::MAX, micros);
        let full_load = micros(self.schedule.fill)..m1;
        if ok && full_load.contains(&t_end_us) {
            self.longest_full_load_us
                .fetch_max(t_end_us.saturating_sub(t_sent_us), Ordering::Relaxed);
            self.full_load_ended.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The Drain limit from what the slots have seen so far.
    fn decide_drain(&self) -> DrainDecision {
        let requests = self.full_load_ended.load(Ordering::Relaxed);
        let longest = (requests > 0)
            .then(|| Duration::from_micros(self.longest_full_load_us.load(Ordering::Relaxed)));
        DrainDecision {
            limit: self.schedule.drain.decide(longest),
            source: match self.schedule.drain {
                DrainLimit::Configured(_) => DrainSource::Configured,
                DrainLimit::Derived { .. } => DrainSource::Derived {
                    longest_request_ms: longest.map(|d| d.as_secs_f64() * 1e3),
                    requests,
                },
            },
        }
    }
}

/// Runs one cell to its end; `recorder` receives every request.
pub async fn run_cell<T: Transport>(input: CellInput<T>, recorder: Recorder) -> CellOutput {
    run_cell_on(input, recorder, Clock::start()).await
}

/// [`run_cell`] on a clock started by the caller, so what runs beside the cell (the server
/// metrics scraper) stamps its instants on the same clock as the requests.
pub async fn run_cell_on<T: Transport>(
    input: CellInput<T>,
    recorder: Recorder,
    clock: Clock,
) -> CellOutput {
    let CellInput {
        transport,
        workload,
        load,
        schedule,
        seed,
        timer,
        live,
        interrupt,
        failures,
    } = input;
    let shared = Arc::new(Shared {
        transport,
        schedule,
        bounds: LiveBounds::new(&schedule),
        clock,
        live: live.clone(),
        cancel: interrupt.child_token(),
        interrupt: interrupt.clone(),
        gave_up: CancellationToken::new(),
        failure: OnceLock::new(),
        failures,
        stop: AtomicBool::new(false),
        arrivals_stopped: CancellationToken::new(),
        measured_in_flight: AtomicU64::new(0),
        measured_done: Notify::new(),
        seq: AtomicU64::new(0),
        longest_full_load_us: AtomicU64::new(0),
        full_load_ended: AtomicU64::new(0),
    });
    let mut slots = JoinSet::new();
    match load {
        Load::Concurrency(_) => {
            for slot in 0..schedule.slots {
                let session = workload.session(slot);
                slots.spawn(slot::run(slot, session, shared.clone(), recorder.sender()));
            }
        }
        Load::Rate(rate) => {
            let records = recorder.sender();
            slots.spawn(open::run(
                rate,
                seed,
                timer,
                workload,
                shared.clone(),
                records,
            ));
        }
    }

    let so_far = recorder.so_far();
    let mut watch = Watch::default();
    let mut ending = match phases(&shared, &so_far, &mut watch).await {
        Ok(()) => Ending::Complete,
        Err(early) => early,
    };
    let client = match watch.client {
        Some(c) => Some(c),
        None => finish(watch.self_check.take()).await,
    };
    let drain_decision = shared.decide_drain();
    if ending == Ending::Complete {
        ending = drain(&shared, drain_decision.limit).await;
    }
    let drain_end_us = clock.now_us();
    shared.stop.store(true, Ordering::SeqCst);
    shared.arrivals_stopped.cancel();
    shared.cancel.cancel();
    while slots.join_next().await.is_some() {}
    let end_us = clock.now_us();
    live.set_phase(None);
    let recorded = recorder.finish().await;
    let bounds = Bounds {
        m0_us: micros(shared.bounds.m0().unwrap_or(schedule.m0())),
        m1_us: micros(shared.bounds.m1().unwrap_or(schedule.m1())),
        drain_end_us,
        end_us,
    };
    CellOutput {
        recorded,
        bounds,
        ending,
        drain: drain_decision,
        client,
        failure: shared
            .failure
            .get()
            .filter(|_| ending == Ending::Failed)
            .cloned(),
        phase_end: watch.phase_end,
        phase_starts_us: watch.starts_us,
    }
}

/// What the phases leave behind: the client's self-check over Measure, and why adaptive
/// phases ended.
#[derive(Default)]
struct Watch {
    self_check: Option<SelfCheck>,
    client: Option<ClientHealth>,
    phase_end: Option<PhaseEnds>,
    starts_us: [Option<u64>; 3],
}

/// Fill, Stabilize and Measure, each marked on `live` as it starts; Drain is marked when
/// Measure ends. `Err` when the cell ended before.
async fn phases<T>(shared: &Shared<T>, so_far: &SoFar, watch: &mut Watch) -> Result<(), Ending> {
    wait_until(shared, Duration::ZERO).await?;
    shared.live.set_phase(Some(Phase::Fill));
    wait_until(shared, shared.schedule.fill).await?;
    begin(shared, watch, Phase::Stabilize, 0);
    adaptive::stabilize(shared, so_far, &mut watch.phase_end).await?;
    begin(shared, watch, Phase::Measure, 1);
    watch.self_check = Some(SelfCheck::start());
    adaptive::measure(shared, so_far, &mut watch.phase_end).await?;
    begin(shared, watch, Phase::Drain, 2);
    watch.client = finish(watch.self_check.take()).await;
    Ok(())
}

/// Marks `phase` on `live` and notes when it began (the `at`-th of Stabilize, Measure, Drain).
fn begin<T>(shared: &Shared<T>, watch: &mut Watch, phase: Phase, at: usize) {
    shared.live.set_phase(Some(phase));
    watch.starts_us[at] = Some(shared.clock.now_us());
}

/// The self-check's findings, if it was started.
async fn finish(check: Option<SelfCheck>) -> Option<ClientHealth> {
    match check {
        Some(c) => Some(c.finish().await),
        None => None,
    }
}

/// Sleeps until `offset` after the cell's start; how the cell ended if it ended first.
async fn wait_until<T>(shared: &Shared<T>, offset: Duration) -> Result<(), Ending> {
    tokio::select! {
        biased;
        _ = shared.interrupt.cancelled() => Err(Ending::Interrupted),
        _ = shared.gave_up.cancelled() => Err(Ending::Failed),
        _ = sleep_until(shared.clock.at(offset)) => Ok(()),
    }
}

/// Holds load until every measured request has ended or `limit` after `m1` passes.
async fn drain<T>(shared: &Shared<T>, limit: Duration) -> Ending {
    let m1 = shared.bounds.m1().unwrap_or(shared.schedule.m1());
    let deadline = shared.clock.at(m1 + limit);
    loop {
        // An interrupt cuts the measured requests at once (their token is its child), so
        // by the time this task runs they may all have ended: the interrupt is asked first,
        // or the cell would read complete (or failed, with no request left successful).
        if shared.interrupt.is_cancelled() {
            return Ending::Interrupted;
        }
        if shared.measured_in_flight.load(Ordering::SeqCst) == 0 {
            return Ending::Complete;
        }
        tokio::select! {
            biased;
            _ = shared.interrupt.cancelled() => return Ending::Interrupted,
            _ = shared.gave_up.cancelled() => return Ending::Failed,
            _ = sleep_until(deadline) => return Ending::DrainTimedOut,
            _ = shared.measured_done.notified() => {}
        }
    }
}
