//! One slot of the closed loop: wait for its start in Fill, then send, wait, record, send
//! again — with nothing between one request's end and the next's send but handing the
//! record to the recorder and asking the session for the next prompt. After a failure that
//! asks for time the slot waits first ([`Backoff`]), holding no request meanwhile.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::sync::mpsc::UnboundedSender;
use tokio::time::sleep_until;

use super::Shared;
use crate::backoff::Backoff;
use crate::clock::micros;
use crate::exchange::Meta;
use crate::phase::Phase;
use crate::recorder::Record;
use crate::sample::Outcome;
use crate::transport::Transport;
use crate::workload::Session;

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
        let phase = shared.schedule.phase_at(shared.clock.elapsed());
        let measured = phase == Phase::Measure;
        if !measured {
            measured_ended(&shared);
        }
        let seq = shared.seq.fetch_add(1, Ordering::Relaxed);
        shared.live.request_started();
        let mut exchange = shared
            .transport
            .exchange(&prompt, &shared.clock, &shared.cancel)
            .await;
        if exchange.outcome == Outcome::Cancelled {
            exchange.outcome = if shared.interrupt.is_cancelled() {
                Outcome::Interrupted
            } else if measured && !shared.gave_up.is_cancelled() {
                Outcome::DrainTimeout
            } else {
                Outcome::Cancelled
            };
        }
        shared
            .live
            .request_ended(exchange.outcome.is_ok(), exchange.outcome.is_error());
        shared.request_ended(
            exchange.t_sent_us,
            exchange.t_end_us,
            exchange.outcome.is_ok(),
        );
        if let Some(reason) = shared
            .failures
            .give_up
            .ended(exchange.outcome, exchange.error.as_deref())
        {
            shared.fail(reason);
        }
        let wait = backoff.after(exchange.outcome, exchange.retry_after);
        session.reply(
            exchange
                .outcome
                .is_ok()
                .then_some(exchange.text.answer.as_str()),
        );
        // The recorder only goes away after every slot has ended; a send cannot fail.
        let _ = records.send(Record {
            exchange,
            meta: Meta {
                seq,
                slot,
                phase,
                backoff_us: wait.map(micros),
            },
            prompt,
        });
        if measured {
            measured_ended(&shared);
        }
        if let Some(wait) = wait {
            tokio::select! {
                _ = shared.cancel.cancelled() => return,
                _ = tokio::time::sleep(wait) => {}
            }
            if let Some(reason) = shared.failures.give_up.check() {
                shared.fail(reason);
            }
        }
    }
}

fn measured_ended<T>(shared: &Shared<T>) {
    if shared.measured_in_flight.fetch_sub(1, Ordering::SeqCst) == 1 {
        shared.measured_done.notify_one();
    }
}
