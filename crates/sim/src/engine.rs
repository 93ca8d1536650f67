//! The engine task: runs `Scheduler` steps on absolute deadlines and sends tokens to requests.
//!
//! One task owns the scheduler. Requests arrive on an unbounded channel with a token sender;
//! each step's end is the previous step's end plus `step_time` (absolute instants, so timer
//! lateness does not accumulate); with nothing to do it parks on the channel. A request whose
//! token receiver was dropped (client gone) leaves the batch at the next step boundary.

use std::f64::consts::TAU;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::{Instant, sleep_until};
use tokio_util::sync::CancellationToken;

use crate::config::EngineConfig;
use crate::metrics::Metrics;
use crate::scheduler::{Request, Scheduler, step_time};

/// Receives one `()` per generated token; closed when the request ends or the engine stops.
pub(crate) type TokenRx = mpsc::UnboundedReceiver<()>;
type TokenTx = mpsc::UnboundedSender<()>;

/// The stream of the engine's RNG (request RNGs use their request index as stream).
const ENGINE_STREAM: u64 = u64::MAX;

/// Submits requests to a running engine task.
#[derive(Debug, Clone)]
pub(crate) struct EngineHandle {
    tx: mpsc::UnboundedSender<Request<TokenTx>>,
}

impl EngineHandle {
    /// Queues a request; its tokens arrive on the returned receiver, which closes early if the
    /// engine has stopped.
    pub(crate) fn submit(
        &self,
        prompt_len: u32,
        block_hashes: Vec<u64>,
        output_len: u32,
    ) -> TokenRx {
        let (sink, rx) = mpsc::unbounded_channel();
        let req = Request {
            prompt_len,
            block_hashes,
            output_len,
            sink,
        };
        // A stopped engine drops the request, and with it the sender: `rx` reports closed.
        let _ = self.tx.send(req);
        rx
    }
}

/// Spawns the engine on the current runtime; it runs until `cancel` fires.
pub(crate) fn spawn(
    config: &EngineConfig,
    seed: u64,
    metrics: Arc<Metrics>,
    cancel: CancellationToken,
) -> (EngineHandle, JoinHandle<()>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(ENGINE_STREAM);
    let engine = Engine {
        config: config.clone(),
        scheduler: Scheduler::new(config),
        intake: rx,
        rng,
        metrics,
    };
    let task = tokio::spawn(async move {
        tokio::select! {
            () = cancel.cancelled() => {}
            () = engine.run() => {}
        }
    });
    (EngineHandle { tx }, task)
}

struct Engine {
    config: EngineConfig,
    scheduler: Scheduler<TokenTx>,
    intake: mpsc::UnboundedReceiver<Request<TokenTx>>,
    rng: ChaCha8Rng,
    metrics: Arc<Metrics>,
}

impl Engine {
    async fn run(mut self) {
        // End of the previous step while busy; None after idling.
        let mut step_end: Option<Instant> = None;
        loop {
            while let Ok(req) = self.intake.try_recv() {
                self.scheduler.enqueue(req);
            }
            self.scheduler.retain(|sink| !sink.is_closed());
            if self.scheduler.is_idle() {
                self.publish();
                step_end = None;
                match self.intake.recv().await {
                    Some(req) => self.scheduler.enqueue(req),
                    None => return,
                }
                continue;
            }
            let plan = self.scheduler.plan();
            self.publish();
            let z = standard_normal(&mut self.rng);
            let end = step_end.unwrap_or_else(Instant::now) + step_time(&self.config, plan, z);
            sleep_until(end).await;
            step_end = Some(end);
            self.scheduler.finish_step(|sink| sink.send(()).is_ok());
        }
    }

    fn publish(&self) {
        let m = &self.metrics;
        let s = &self.scheduler;
        m.running.store(s.running() as u64, Relaxed);
        m.waiting.store(s.waiting() as u64, Relaxed);
        m.kv_blocks_used.store(s.kv_blocks_used(), Relaxed);
        m.cache_queries.store(s.cache_queries, Relaxed);
        m.cache_hits.store(s.cache_hits, Relaxed);
    }
}

/// A standard normal draw (Box-Muller).
fn standard_normal(rng: &mut impl Rng) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>(); // in (0, 1]
    let u2: f64 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (TAU * u2).cos()
}

#[cfg(test)]
mod tests;
