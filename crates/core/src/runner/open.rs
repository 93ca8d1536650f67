//! The open loop of one cell: arrivals at the [`Pacer`]'s instants, each sent at once on its
//! own task however many earlier requests are still running (no coordinated omission: a
//! slow server never delays or skips an arrival). The dispatcher takes each arrival when it
//! is due ([`Arrivals`]); when that is late it sends at once and the lag is recorded. Under
//! `max_concurrency` an arrival waits client-side for a place, and that queue time is part
//! of its latency from the intended send. Each arrival takes an idle session (a user; a
//! conversation in multi-turn scenarios) and gives it back when its request ends. A trace
//! replay ([`Replay`]) supplies the instants and each arrival's prompt in place of the
//! drawn process and the session's next prompt. Under `rate_unit: sessions` each arrival
//! instead starts a whole session on its own task ([`sessions`]), and so does each arrival
//! of a replay whose trace names sessions: the trace's own session, at its first record's
//! instant ([`Replay::session`]).

mod sessions;

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;

use super::Shared;
use super::arrivals::{Arrivals, Timer};
use super::request::{Start, send};
use crate::exchange::{Exchange, Meta};
use crate::pacer::Pacer;
use crate::plan::Rate;
use crate::recorder::Record;
use crate::transport::Transport;
use crate::workload::{Prompt, Replay, Session, Workload};
use plateau_http::clock::micros;
use plateau_model::config::RateUnit;
use plateau_model::phase::Phase;

/// Idle sessions (id and session), oldest first, and how many were made.
type Idle = (VecDeque<(u32, Box<dyn Session>)>, u32);

/// Idle sessions, oldest first, and how many were made.
struct Sessions {
    workload: Arc<dyn Workload>,
    idle: Mutex<Idle>,
}

impl Sessions {
    /// The longest-idle session, or a new one.
    fn take(&self) -> (u32, Box<dyn Session>) {
        let mut guard = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        let (idle, made) = &mut *guard;
        idle.pop_front().unwrap_or_else(|| {
            let id = *made;
            *made += 1;
            (id, self.workload.session(id))
        })
    }

    /// Keeps `session` for later arrivals if it came from the pool (`pooled`); one an
    /// arrival brought (a trace's session) has run its turns and is dropped.
    fn give_back(&self, id: u32, session: Box<dyn Session>, pooled: bool) {
        if !pooled {
            return;
        }
        let mut guard = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        guard.0.push_back((id, session));
    }
}

/// Dispatches arrivals until the coordinator stops them, then waits for every request.
pub(super) async fn run<T: Transport>(
    rate: Rate,
    seed: u64,
    timer: Timer,
    workload: Arc<dyn Workload>,
    shared: Arc<Shared<T>>,
    records: UnboundedSender<Record>,
) {
    // Under `rate_unit: sessions` the rate starts sessions, whatever the trace's instants
    // (a timed replay of a trace's sessions starts them at the trace's instants instead).
    let replay = workload
        .replay()
        .filter(|_| rate.unit == RateUnit::Requests);
    let pacer = match &replay {
        Some(r) => Pacer::replay(r.instants()),
        None => Pacer::new(rate.rps, rate.arrival, shared.schedule.fill, seed),
    };
    let mut arrivals = Arrivals::start(timer, pacer, shared.clock);
    let sessions = Arc::new(Sessions {
        workload,
        idle: Mutex::new((VecDeque::new(), 0)),
    });
    let places = rate
        .max_concurrency
        .map(|n| Arc::new(Semaphore::new(n as usize)));
    let mut requests = JoinSet::new();
    for k in 0.. {
        let intended = tokio::select! {
            biased;
            _ = shared.cancel.cancelled() => break,
            _ = shared.arrivals_stopped.cancelled() => break,
            due = arrivals.next() => match due {
                Some(at) => at,
                None => break,
            },
        };
        while requests.try_join_next().is_some() {}
        let phase = shared.bounds.phase_at(intended);
        if phase == Phase::Measure {
            // Counted before the task exists, so Drain never sees zero while it is queued.
            shared.measured_in_flight.fetch_add(1, Ordering::SeqCst);
        }
        let own = replay.as_ref().and_then(|r| r.session(k));
        let starts_session = own.is_some() || rate.unit == RateUnit::Sessions;
        let arrival = Arrival {
            phase,
            t_intended_us: micros(intended),
            replayed: replay.clone().map(|r| (r, k)),
            own: own.map(|s| (u32::try_from(k).unwrap_or(u32::MAX), s)),
            starts_session,
        };
        let (shared, pool, places) = (shared.clone(), sessions.clone(), places.clone());
        requests.spawn(arrive(shared, pool, places, arrival, records.clone()));
    }
    while requests.join_next().await.is_some() {}
}

/// One arrival: its phase, intended send (us since the cell's start), and, in a trace
/// replay, the trace and its index there, and the trace's session it starts with that
/// session's id (a replay whose trace names sessions; others take an idle session);
/// whether it starts a whole session (else it sends one request).
struct Arrival {
    phase: Phase,
    t_intended_us: u64,
    replayed: Option<(Arc<dyn Replay>, usize)>,
    own: Option<(u32, Box<dyn Session>)>,
    starts_session: bool,
}

/// One arrival: take a session (a user), wait for a place (if capped), send one request
/// (or run the whole session, [`sessions::run`]), give the session back.
async fn arrive<T: Transport>(
    shared: Arc<Shared<T>>,
    sessions: Arc<Sessions>,
    places: Option<Arc<Semaphore>>,
    mut arrival: Arrival,
    records: UnboundedSender<Record>,
) {
    let Some(mut admitted) = admit(&shared, &sessions, places, &mut arrival, &records).await else {
        return;
    };
    let start = admitted.start(&arrival);
    if arrival.starts_session {
        sessions::run(&shared, &mut admitted, start, &records).await;
    } else {
        let prompt = match arrival.replayed {
            Some((replay, k)) => replay.prompt(k),
            None => admitted.session.next(),
        };
        send(
            &shared,
            start,
            prompt,
            admitted.session.as_mut(),
            None,
            &records,
        )
        .await;
    }
    admitted.end(&sessions);
}

/// An arrival let in: its session (a user) and id, its place under `max_concurrency`
/// (none without a cap, held until dropped), the time it queued for it, us, and whether
/// the session came from the pool of idle ones (else the arrival brought its own).
struct Admitted {
    id: u32,
    session: Box<dyn Session>,
    place: Option<OwnedSemaphorePermit>,
    queue_us: Option<u64>,
    pooled: bool,
}

impl Admitted {
    /// The send of the arrival's first request: measured from its intended send, after the
    /// time it queued; it thinks when it starts a session (the later turns follow it on
    /// this task).
    fn start(&self, arrival: &Arrival) -> Start {
        Start {
            id: self.id,
            phase: arrival.phase,
            t_intended_us: Some(arrival.t_intended_us),
            queue_us: self.queue_us,
            thinks: arrival.starts_session,
        }
    }

    /// Gives the session back (to the pool if it came from there), then the place up.
    fn end(self, sessions: &Sessions) {
        let Admitted {
            id,
            session,
            place,
            pooled,
            ..
        } = self;
        sessions.give_back(id, session, pooled);
        drop(place);
    }
}

/// Takes the session `arrival` brought, else an idle one, and waits for a place; `None`
/// when the cell ended first (the session is given back and the arrival recorded as never
/// sent).
async fn admit<T>(
    shared: &Shared<T>,
    sessions: &Sessions,
    places: Option<Arc<Semaphore>>,
    arrival: &mut Arrival,
    records: &UnboundedSender<Record>,
) -> Option<Admitted> {
    let ((id, session), pooled) = match arrival.own.take() {
        Some(own) => (own, false),
        None => (sessions.take(), true),
    };
    let Some(places) = places else {
        return Some(Admitted {
            id,
            session,
            place: None,
            queue_us: None,
            pooled,
        });
    };
    let queued_at = shared.clock.now_us();
    tokio::select! {
        place = places.acquire_owned() => Some(Admitted {
            id,
            session,
            place: place.ok(),
            queue_us: Some(shared.clock.now_us().saturating_sub(queued_at)),
            pooled,
        }),
        _ = shared.cancel.cancelled() => {
            let queued = Queued {
                id,
                phase: arrival.phase,
                t_intended_us: arrival.t_intended_us,
                queued_at,
            };
            never_sent(shared, queued, records);
            sessions.give_back(id, session, pooled);
            None
        }
    }
}

/// An arrival waiting client-side for a place: its session, phase, intended send and
/// when it began to wait (us since the cell's start).
struct Queued {
    id: u32,
    phase: Phase,
    t_intended_us: u64,
    queued_at: u64,
}

/// Records an arrival still queued for a place when the cell ended: it never went out.
fn never_sent<T>(shared: &Shared<T>, queued: Queued, records: &UnboundedSender<Record>) {
    let Queued {
        id,
        phase,
        t_intended_us,
        queued_at,
    } = queued;
    let measured = phase == Phase::Measure;
    let now = shared.clock.now_us();
    let mut exchange = Exchange::new(now);
    exchange.outcome = shared.cancelled_outcome(measured);
    exchange.error = Some(
        "still queued client-side for a place under max_concurrency when the cell ended; never sent"
            .into(),
    );
    let _ = records.send(Record {
        exchange,
        meta: Meta {
            t_intended_us: Some(t_intended_us),
            queue_us: Some(now.saturating_sub(queued_at)),
            ..Meta::new(shared.seq.fetch_add(1, Ordering::Relaxed), id, phase)
        },
        prompt: Prompt::default(),
    });
    if measured {
        shared.measured_ended();
    }
}
