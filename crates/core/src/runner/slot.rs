//! One slot of the closed loop: wait for its start in Fill, then send, wait, record, send
//! again ([`send`]) — with nothing between one request's end and the next's send but
//! handing the record to the recorder and asking the session for the next prompt. After a
//! failure that asks for time the slot waits first ([`Backoff`]); in a session, it waits
//! the user's think time between turns. Either way it holds no request meanwhile: a slot
//! is a session active, not a request in flight. A turn that spawns sub-agents
//! ([`Session::children`]) has them run at once as requests of the same slot, each to its
//! end, while the parent thinks; the parent's next turn goes after the last child ends.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::mpsc::UnboundedSender;
use tokio::task::JoinSet;
use tokio::time::sleep_until;

use super::Shared;
use super::request::{Start, Wait, send};
use crate::backoff::Backoff;
use crate::recorder::Record;
use crate::transport::Transport;
use crate::workload::Session;
use plateau_model::phase::Phase;

pub(super) async fn run<T: Transport>(
    slot: u32,
    mut session: Box<dyn Session>,
    shared: Arc<Shared<T>>,
    records: UnboundedSender<Record>,
) {
    let mut backoff = Backoff::new(shared.failures.seed ^ (u64::from(slot) << 32));
    let start = shared.clock.at(shared.schedule.slot_start(slot));
    tokio::select! {
        _ = shared.cancel.cancelled() => return,
        _ = sleep_until(start) => {}
    }
    let mut spawned: u64 = 0;
    while running(&shared) {
        let wait = turn(&shared, slot, session.as_mut(), &mut backoff, &records).await;
        let mut children = JoinSet::new();
        for child in session.children() {
            spawned += 1;
            let seed = shared.failures.seed ^ (u64::from(slot) << 32) ^ (spawned << 8);
            children.spawn(run_child(
                slot,
                child,
                seed,
                shared.clone(),
                records.clone(),
            ));
        }
        let cancelled = !pause(&shared, &wait).await;
        // Join: a child only ends after its last turn, or at the cell's end (its request
        // then cancelled and recorded like any other).
        while children.join_next().await.is_some() {}
        if cancelled {
            return;
        }
    }
}

/// A sub-agent: its turns one after another, from the first to its end.
async fn run_child<T: Transport>(
    slot: u32,
    mut session: Box<dyn Session>,
    seed: u64,
    shared: Arc<Shared<T>>,
    records: UnboundedSender<Record>,
) {
    let mut backoff = Backoff::new(seed);
    while running(&shared) {
        let wait = turn(&shared, slot, session.as_mut(), &mut backoff, &records).await;
        if wait.end || !pause(&shared, &wait).await {
            return;
        }
    }
}

fn running<T: Transport>(shared: &Shared<T>) -> bool {
    !shared.stop.load(Ordering::SeqCst) && !shared.cancel.is_cancelled()
}

/// Sends the session's next prompt as a request of slot `slot`.
async fn turn<T: Transport>(
    shared: &Shared<T>,
    slot: u32,
    session: &mut dyn Session,
    backoff: &mut Backoff,
    records: &UnboundedSender<Record>,
) -> Wait {
    let prompt = session.next();
    // Count the request as measured before reading the clock, so the coordinator can
    // never see zero while a request that will be measured is about to be sent.
    shared.measured_in_flight.fetch_add(1, Ordering::SeqCst);
    let phase = shared.bounds.phase_now(&shared.clock);
    if phase != Phase::Measure {
        shared.measured_ended();
    }
    let start = Start {
        id: slot,
        phase,
        t_intended_us: None,
        queue_us: None,
        thinks: true,
    };
    send(shared, start, prompt, session, Some(backoff), records).await
}

/// Waits the backoff or think time after a request; false when the cell was cancelled
/// meanwhile.
async fn pause<T: Transport>(shared: &Shared<T>, wait: &Wait) -> bool {
    if let Some(pause) = wait.backoff.or(wait.think) {
        tokio::select! {
            _ = shared.cancel.cancelled() => return false,
            _ = tokio::time::sleep(pause) => {}
        }
    }
    if wait.backoff.is_some()
        && let Some(reason) = shared.failures.give_up.check()
    {
        shared.fail(reason);
    }
    true
}
