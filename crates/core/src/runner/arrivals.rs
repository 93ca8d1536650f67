//! The open loop's arrivals as they come due. tokio's timer wheel has millisecond ticks and
//! rounds every deadline up, so an arrival woken by it goes out about 1.1 ms late (measured:
//! schedule lag p50 1.15 ms at 20 req/s) and every latency from the intended send carries
//! that. [`Timer::Precise`] instead sleeps on a dedicated thread with the OS's
//! high-resolution timer and hands each due arrival to the runtime; [`Timer::Runtime`] keeps
//! tokio's timer for paused-time tests, whose virtual clock a thread cannot see.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tokio::time::sleep_until;

use crate::pacer::Pacer;
use plateau_http::clock::Clock;

/// How the open loop waits for each arrival's instant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Timer {
    /// A dedicated thread sleeping on the OS's high-resolution timer.
    #[default]
    Precise,
    /// The runtime's timer: millisecond ticks, but paused-time tests can advance it.
    Runtime,
}

/// Intended instants (since the cell's start) of the arrivals, each yielded once it is due.
pub(super) enum Arrivals {
    Runtime(Pacer, Clock),
    /// Fed by the pacing thread, which ends when `_stop` is dropped with this value.
    Thread {
        due: UnboundedReceiver<Duration>,
        _stop: mpsc::Sender<()>,
    },
}

impl Arrivals {
    /// Starts yielding `pacer`'s arrivals on `clock`. If the thread cannot be made, falls
    /// back to the runtime's timer and says so.
    pub(super) fn start(timer: Timer, pacer: Pacer, clock: Clock) -> Arrivals {
        if timer == Timer::Runtime {
            return Arrivals::Runtime(pacer, clock);
        }
        let (due_tx, due) = unbounded_channel();
        let (stop, stopped) = mpsc::channel::<()>();
        let mut thread_pacer = pacer.clone();
        let spawned = std::thread::Builder::new()
            .name("plateau-arrivals".into())
            .spawn(move || {
                // A replay that has sent its last arrival ends the thread, which ends `due`.
                while let Some(at) = thread_pacer.next_arrival() {
                    let deadline = clock.at(at).into_std();
                    let wait = deadline.saturating_duration_since(std::time::Instant::now());
                    match stopped.recv_timeout(wait) {
                        Err(RecvTimeoutError::Timeout) => {}
                        Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
                    }
                    if due_tx.send(at).is_err() {
                        return;
                    }
                }
            });
        match spawned {
            Ok(_) => Arrivals::Thread { due, _stop: stop },
            Err(e) => {
                tracing::warn!(
                    "cannot start the arrivals thread ({e}); arrivals use the runtime's \
                     millisecond timer and go out about 1 ms late"
                );
                Arrivals::Runtime(pacer, clock)
            }
        }
    }

    /// The next arrival's intended instant, once it is due.
    pub(super) async fn next(&mut self) -> Option<Duration> {
        match self {
            Arrivals::Runtime(pacer, clock) => {
                let at = pacer.next_arrival()?;
                sleep_until(clock.at(at)).await;
                Some(at)
            }
            Arrivals::Thread { due, .. } => due.recv().await,
        }
    }
}
