//! The client checks itself ([`SelfCheck`] -> [`ClientHealth`]): over the measure window, a
//! 1 ms ticker on the client's own runtime records how late it wakes, a bare OS thread
//! beside it how late the machine wakes a thread that waits for nothing else, and the
//! process's CPU time and the whole machine's (`machine`, `/proc/stat`) are read at both
//! ends. A client out of CPU wakes every task late, so it stretches every gap it stamps
//! (TTFT, ITL, E2E) and says nothing; these numbers let `validate` say it, and say whose
//! doing it was: its own (`client_bottleneck`) or the machine's (`busy_machine`: other
//! processes' CPU, or a kernel or hypervisor slow to wake any thread).

mod machine;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio::time::{Instant, sleep_until};
use tokio_util::sync::{CancellationToken, DropGuard};

pub use machine::Ticks;
pub use plateau_model::results::health::ClientHealth;

use plateau_model::metrics::Distribution;

/// The ticker's period.
pub const TICK: Duration = Duration::from_millis(1);

/// A running self-check: started at `m0`, finished at `m1`.
pub struct SelfCheck {
    ticker: JoinHandle<Vec<f64>>,
    /// The bare thread's lags so far, read without waiting for it (an await here would let
    /// a paused test clock jump ahead).
    bare: Arc<Mutex<Vec<f64>>>,
    stop: CancellationToken,
    /// Stops both tickers should the check be dropped unfinished (the bare one would
    /// otherwise tick until the process ends).
    _stop_on_drop: DropGuard,
    started: Instant,
    cpu_at_start: Option<Duration>,
    machine_at_start: Option<Ticks>,
}

impl SelfCheck {
    /// Starts the ticker on the current tokio runtime and reads the CPU clock.
    pub fn start() -> SelfCheck {
        let stop = CancellationToken::new();
        let bare = Arc::new(Mutex::new(Vec::new()));
        let (lags, bare_stop) = (bare.clone(), stop.clone());
        // A thread of its own, not `spawn_blocking`: a blocking task in flight keeps a
        // paused clock (the tests') from advancing. Should it not start, there is no bare
        // lag, and the lateness is judged without it.
        let _ = std::thread::Builder::new()
            .name("plateau-selfcheck".into())
            .spawn(move || bare_tick(&lags, &bare_stop));
        SelfCheck {
            ticker: tokio::spawn(tick(stop.clone())),
            bare,
            _stop_on_drop: stop.clone().drop_guard(),
            stop,
            started: Instant::now(),
            cpu_at_start: process_cpu(),
            machine_at_start: Ticks::read(),
        }
    }

    /// Stops the ticker and summarizes the window since [`SelfCheck::start`].
    pub async fn finish(self) -> ClientHealth {
        let cpu_at_end = process_cpu();
        let machine_at_end = Ticks::read();
        let window = self.started.elapsed();
        self.stop.cancel();
        // The ticker only ends by `stop`; a panic in it loses the lags, not the cell.
        let lags = self.ticker.await.unwrap_or_default();
        let bare_lags = self
            .bare
            .lock()
            .map(|mut lags| std::mem::take(&mut *lags))
            .unwrap_or_default();
        let cpu = self
            .cpu_at_start
            .zip(cpu_at_end)
            .map(|(a, b)| b.saturating_sub(a));
        let window_s = window.as_secs_f64();
        ClientHealth {
            sched_lag_ms: Distribution::from_values(&lags),
            bare_lag_ms: Distribution::from_values(&bare_lags),
            cpu_s: cpu.map(|c| c.as_secs_f64()),
            cpu_cores_used: cpu
                .filter(|_| window_s > 0.0)
                .map(|c| c.as_secs_f64() / window_s),
            cores: std::thread::available_parallelism()
                .map_or(1, |n| u32::try_from(n.get()).unwrap_or(u32::MAX)),
            window_s,
            machine_cores_busy: self
                .machine_at_start
                .zip(machine_at_end)
                .and_then(|(a, b)| a.busy_cores_until(&b)),
            machine_cores: machine_at_end.map(|t| t.cpus),
        }
    }
}

/// Sleeps [`TICK`] after [`TICK`] until `stop`, returning each wake-up's lag in ms.
async fn tick(stop: CancellationToken) -> Vec<f64> {
    let mut lags = Vec::new();
    loop {
        let intended = Instant::now() + TICK;
        tokio::select! {
            biased;
            _ = stop.cancelled() => return lags,
            _ = sleep_until(intended) => {}
        }
        let lag = Instant::now().saturating_duration_since(intended);
        lags.push(lag.as_secs_f64() * 1e3);
    }
}

/// Sleeps [`TICK`] after [`TICK`] on a thread of its own until `stop`, adding each
/// wake-up's lag in ms to `lags`: how late the kernel (and any hypervisor under it) ran a
/// ready thread that no runtime of plateau's stood in front of.
fn bare_tick(lags: &Mutex<Vec<f64>>, stop: &CancellationToken) {
    while !stop.is_cancelled() {
        let intended = std::time::Instant::now() + TICK;
        std::thread::sleep(TICK);
        let lag = std::time::Instant::now().saturating_duration_since(intended);
        match lags.lock() {
            Ok(mut lags) => lags.push(lag.as_secs_f64() * 1e3),
            Err(_) => return,
        }
    }
}

/// CPU time (user + system) of this process so far.
#[cfg(unix)]
#[allow(unsafe_code)]
fn process_cpu() -> Option<Duration> {
    // SAFETY: `rusage` is plain integers, for which all zeroes is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `getrusage` writes one `rusage` through a pointer to one we own, and
    // RUSAGE_SELF is a valid `who`.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let time = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).ok()?)
            .checked_add(Duration::from_micros(u64::try_from(t.tv_usec).ok()?))
    };
    (rc == 0).then_some(())?;
    time(usage.ru_utime)?.checked_add(time(usage.ru_stime)?)
}

/// CPU time is not read on this platform.
#[cfg(not(unix))]
fn process_cpu() -> Option<Duration> {
    None
}

#[cfg(test)]
mod tests;
