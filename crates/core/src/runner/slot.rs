//! One slot of the closed loop: wait for its start in Fill, then send, wait, record, send
//! again ([`send`]) — with nothing between one request's end and the next's send but
//! handing the record to the recorder and asking the session for the next prompt. After a
//! failure that asks for time the slot waits first ([`Backoff`]); in a session, it waits
//! the user's think time between turns. Either way it holds no request meanwhile: a slot
//! is a session active, not a request in flight. A turn that spawns sub-agents
//! ([`Session::children`]) has them run at once as requests of the same slot, each to its
//! end, while the parent thinks; the parent's next turn goes after the last child ends.
//! The open loop of sessions runs each session to its end the same way ([`to_end`]).

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

/// Who sends a session's turns: its slot (the open loop's session id), its backoff, and
/// how many sub-agents it has spawned (each seeds its own backoff).
pub(super) struct Sender {
    slot: u32,
    pub backoff: Backoff,
    spawned: u64,
}

impl Sender {
    /// The sender of slot `slot`, its backoff jitter seeded by `seed`.
    pub(super) fn new(slot: u32, seed: u64) -> Sender {
        Sender {
            slot,
            backoff: Backoff::new(seed),
            spawned: 0,
        }
    }

    /// The sender of slot `slot` as the cell's failures seed it.
    pub(super) fn of_slot<T>(shared: &Shared<T>, slot: u32) -> Sender {
        Sender::new(slot, shared.failures.seed ^ (u64::from(slot) << 32))
    }
}

pub(super) async fn run<T: Transport>(
    slot: u32,
    mut session: Box<dyn Session>,
    shared: Arc<Shared<T>>,
    records: UnboundedSender<Record>,
) {
    let mut sender = Sender::of_slot(&shared, slot);
    let start = shared.clock.at(shared.schedule.slot_start(slot));
    tokio::select! {
        _ = shared.cancel.cancelled() => return,
        _ = sleep_until(start) => {}
    }
    while running(&shared) {
        let wait = turn(&shared, &mut sender, session.as_mut(), &records).await;
        if !follow(&shared, &mut sender, session.as_mut(), wait, &records).await {
            return;
        }
    }
}

/// After a turn that left `first`: the session's next turns, one after another, to its
/// end (or the cell's), each followed by its sub-agents, think time and join ([`follow`]).
pub(super) async fn to_end<T: Transport>(
    shared: &Arc<Shared<T>>,
    sender: &mut Sender,
    session: &mut dyn Session,
    first: Wait,
    records: &UnboundedSender<Record>,
) {
    let mut wait = first;
    loop {
        let end = wait.end;
        if end {
            // No backoff after the last turn: nothing follows it.
            wait = Wait {
                end,
                ..Wait::default()
            };
        }
        if !follow(shared, sender, session, wait, records).await || end || !running(shared) {
            return;
        }
        wait = turn(shared, sender, session, records).await;
    }
}

/// What follows a turn that left `wait`: the sub-agents it spawned start at once, the
/// session waits its backoff or think time, then the children's ends (join). False when
/// the cell was cancelled meanwhile.
async fn follow<T: Transport>(
    shared: &Arc<Shared<T>>,
    sender: &mut Sender,
    session: &mut dyn Session,
    wait: Wait,
    records: &UnboundedSender<Record>,
) -> bool {
    let mut children = JoinSet::new();
    for child in session.children() {
        sender.spawned += 1;
        let seed = shared.failures.seed ^ (u64::from(sender.slot) << 32) ^ (sender.spawned << 8);
        children.spawn(run_child(
            sender.slot,
            child,
            seed,
            shared.clone(),
            records.clone(),
        ));
    }
    let cancelled = !pause(shared, &wait).await;
    // Join: a child only ends after its last turn, or at the cell's end (its request
    // then cancelled and recorded like any other).
    while children.join_next().await.is_some() {}
    !cancelled
}

/// A sub-agent: its turns one after another, from the first to its end. (Its own
/// children are not run: a sub-agent spawning sub-agents would make this future contain
/// itself.)
async fn run_child<T: Transport>(
    slot: u32,
    mut session: Box<dyn Session>,
    seed: u64,
    shared: Arc<Shared<T>>,
    records: UnboundedSender<Record>,
) {
    let mut sender = Sender::new(slot, seed);
    while running(&shared) {
        let wait = turn(&shared, &mut sender, session.as_mut(), &records).await;
        if wait.end || !pause(&shared, &wait).await {
            return;
        }
    }
}

pub(super) fn running<T: Transport>(shared: &Shared<T>) -> bool {
    !shared.stop.load(Ordering::SeqCst) && !shared.cancel.is_cancelled()
}

/// Sends the session's next prompt as a request of the sender's slot, measured by its
/// send.
async fn turn<T: Transport>(
    shared: &Shared<T>,
    sender: &mut Sender,
    session: &mut dyn Session,
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
        id: sender.slot,
        phase,
        t_intended_us: None,
        queue_us: None,
        thinks: true,
    };
    let backoff = Some(&mut sender.backoff);
    send(shared, start, prompt, session, backoff, records).await
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
