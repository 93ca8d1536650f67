//! The open loop of sessions (`rate_unit: sessions`, or a timed replay of a trace that
//! names sessions): each arrival starts a session on its own task (the trace's session it
//! brought, else one from the pool), which sends its first turn at the arrival (latency
//! from the intended send, as any open-loop request) and then its later turns after their
//! think times, sub-agents joined, exactly as a closed-loop slot runs a session
//! ([`slot::to_end`]), until its last turn. Under `max_concurrency` a session waits for a place before its first turn and
//! holds it to its end: the cap bounds sessions active. Each turn is measured by its own
//! start (the first by its intended send, the later ones by their send), so Drain waits for
//! every measured turn while the sessions around them go on.

use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use super::Admitted;
use crate::recorder::Record;
use crate::runner::Shared;
use crate::runner::request::{Start, send};
use crate::runner::slot::{self, Sender};
use crate::transport::Transport;

/// One admitted arrival that starts a session: its first turn at `start` (latency from
/// the arrival's intended send), then the later turns after their think times, to its end.
pub(super) async fn run<T: Transport>(
    shared: &Arc<Shared<T>>,
    admitted: &mut Admitted,
    start: Start,
    records: &UnboundedSender<Record>,
) {
    let mut sender = Sender::of_slot(shared, admitted.id);
    let session = admitted.session.as_mut();
    let prompt = session.next();
    let backoff = Some(&mut sender.backoff);
    let first = send(shared, start, prompt, session, backoff, records).await;
    slot::to_end(shared, &mut sender, session, first, records).await;
}
