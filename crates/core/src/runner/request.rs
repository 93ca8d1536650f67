//! One request from prompt to record, the body both loops share: send, classify the end,
//! update the counters, the Drain limit and the give-up watch, tell the session the reply
//! and ask it what comes next (think time, a new session), and hand the record to the
//! recorder.

use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;

use super::Shared;
use crate::backoff::Backoff;
use crate::exchange::Meta;
use crate::recorder::Record;
use crate::transport::Transport;
use crate::workload::{After, Prompt, Session};
use plateau_http::clock::micros;
use plateau_model::phase::Phase;
use plateau_model::sample::Outcome;

/// Where a request sits in its cell.
pub(super) struct Start {
    /// The slot (closed loop) or session (open loop) that sends it.
    pub id: u32,
    /// Its phase: at the send (closed loop) or at the intended send (open loop).
    pub phase: Phase,
    /// Open loop: the intended send, us.
    pub t_intended_us: Option<u64>,
    /// Open loop with a cap: time queued for a place, us.
    pub queue_us: Option<u64>,
    /// Whether the sender waits the session's think time after the reply (closed loop,
    /// open loop of sessions); the open loop of requests sends the next turn at its
    /// arrival instead.
    pub thinks: bool,
}

/// What the sender waits after a request: the backoff a failure asked for, else the
/// session's think time (closed loop). Neither is time in flight.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Wait {
    /// After a failure that asks for time.
    pub backoff: Option<Duration>,
    /// The session's user thinking before the next turn.
    pub think: Option<Duration>,
    /// The session ended with this request (a workload without sessions: every request
    /// is a session of one).
    pub end: bool,
}

/// Sends `prompt`, records it and returns the wait after it: what `backoff` asks for (none
/// without a backoff: the open loop's arrivals never wait), else the session's think time
/// when `start.thinks`. A measured request (phase
/// Measure) must already be counted in `measured_in_flight`; it is uncounted here once
/// its record is handed over.
pub(super) async fn send<T: Transport>(
    shared: &Shared<T>,
    start: Start,
    prompt: Prompt,
    session: &mut dyn Session,
    backoff: Option<&mut Backoff>,
    records: &UnboundedSender<Record>,
) -> Wait {
    let measured = start.phase == Phase::Measure;
    let seq = shared.seq.fetch_add(1, Ordering::Relaxed);
    shared.live.request_started();
    let mut exchange = shared
        .transport
        .exchange(&prompt, &shared.clock, &shared.cancel)
        .await;
    if exchange.outcome == Outcome::Cancelled {
        exchange.outcome = shared.cancelled_outcome(measured);
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
    let wait = backoff.and_then(|b| b.after(exchange.outcome, exchange.retry_after));
    if exchange.outcome.is_ok() && !exchange.text.tool_calls.is_empty() {
        session.tool_calls(&exchange.text.tool_calls);
    }
    session.reply(
        exchange
            .outcome
            .is_ok()
            .then_some(exchange.text.answer.as_str()),
    );
    let after = session.after();
    let think = match after {
        After::Think(d) if start.thinks && wait.is_none() && !d.is_zero() => Some(d),
        _ => None,
    };
    // The recorder only goes away after every request has ended; a send cannot fail.
    let _ = records.send(Record {
        exchange,
        meta: Meta {
            seq,
            slot: start.id,
            phase: start.phase,
            backoff_us: wait.map(micros),
            t_intended_us: start.t_intended_us,
            queue_us: start.queue_us,
            think_us: think.map(micros),
            session_end: after == After::End,
        },
        prompt,
    });
    if measured {
        shared.measured_ended();
    }
    Wait {
        backoff: wait,
        think,
        end: matches!(after, After::End | After::Now),
    }
}
