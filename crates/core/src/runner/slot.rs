//! One slot of the closed loop: wait for its start in Fill, then send, wait, record, send
//! again ([`send`]) — with nothing between one request's end and the next's send but
//! handing the record to the recorder and asking the session for the next prompt. After a
//! failure that asks for time the slot waits first ([`Backoff`]); in a session, it waits
//! the user's think time between turns. Either way it holds no request meanwhile: a slot
//! is a session active, not a request in flight.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::mpsc::UnboundedSender;
use tokio::time::sleep_until;

use super::Shared;
use super::request::{Start, send};
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
    while !shared.stop.load(Ordering::SeqCst) && !shared.cancel.is_cancelled() {
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
        let wait = send(
            &shared,
            start,
            prompt,
            session.as_mut(),
            Some(&mut backoff),
            &records,
        )
        .await;
        if let Some(pause) = wait.backoff.or(wait.think) {
            tokio::select! {
                _ = shared.cancel.cancelled() => return,
                _ = tokio::time::sleep(pause) => {}
            }
        }
        if wait.backoff.is_some()
            && let Some(reason) = shared.failures.give_up.check()
        {
            shared.fail(reason);
        }
    }
}
