//! A trace replayed: in the open loop arrival `k` is the window's record `k` at its own
//! instant ([`Replay`]), or, when records name sessions, the window's session `k` at its
//! first record's instant, its later turns after each reply and think time (module
//! `sessions`). In the closed loop the slots take the records in arrival order from one
//! shared cursor (ordered replay), wrapping around when the window is used up; making slot
//! 0's session starts the replay over from the window's first record (the runner makes the
//! cell's sessions slot 0 first, after the token check has used some). When records of the
//! window name their `session_id`, the closed loop replays sessions instead: one slot runs
//! one trace session's turns in order.
//! Each prompt is synthesised ([`Synth`]) to the record's `input_length` and `hash_ids`,
//! or is the record's own messages; `max_tokens` is the record's `output_length` (at
//! least 1).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use plateau_core::workload::{Message, Prompt, Replay, Role, Session, Workload, WorkloadInfo};

use plateau_core::plan::Cell;

use crate::text::Corpus;
use crate::trace::synth::Synth;
use crate::trace::{Input, Record};

mod sessions;

use sessions::{SessionSlot, TraceSessions};

/// How a trace's prompts are cut and its sessions timed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// Prompt tokens per `hash_ids` entry.
    pub block_tokens: u32,
    /// The replay's speedup (divides `delay_ms` think times; the window's instants
    /// already are).
    pub speedup: f64,
    /// The longest think time between a session's turns.
    pub think_cap: Duration,
}

/// A trace's window as a workload.
pub struct TraceReplay {
    inner: Arc<Inner>,
}

struct Inner {
    info: WorkloadInfo,
    window: Arc<Vec<(Duration, Record)>>,
    /// The open loop's arrivals: each record's instant, or each session's start.
    instants: Arc<[Duration]>,
    synth: Synth,
    /// The next record of the ordered replay (or the next session, with sessions).
    cursor: AtomicUsize,
    /// The window's sessions, when its records name them.
    sessions: Option<TraceSessions>,
}

impl TraceReplay {
    /// The workload of `cell`: `window`'s prompts cut from `corpus` in blocks of
    /// `timing.block_tokens`, chosen by `seed` (every request carries its own `max_tokens`,
    /// so it is not wrapped in `WithLengths`).
    pub fn build(
        info: WorkloadInfo,
        corpus: &Arc<Corpus>,
        window: &Arc<Vec<(Duration, Record)>>,
        timing: Timing,
        seed: u64,
        cell: &Cell,
    ) -> Result<Arc<dyn Workload>, String> {
        let block_tokens = timing.block_tokens;
        let synth = Synth::new(corpus.clone(), block_tokens, seed).ok_or_else(|| {
            format!(
                "scenario {}: trace.block_tokens {block_tokens} is longer than any document of the built-in text",
                cell.scenario
            )
        })?;
        Ok(Arc::new(TraceReplay::new(
            info,
            window.clone(),
            synth,
            timing,
        )))
    }

    /// Replays `window` (records with their instants, in order) with prompts cut by `synth`
    /// (`timing.block_tokens` is `synth`'s) and sessions timed by `timing`.
    pub fn new(
        info: WorkloadInfo,
        window: Arc<Vec<(Duration, Record)>>,
        synth: Synth,
        timing: Timing,
    ) -> Self {
        let sessions = TraceSessions::new(&window, timing);
        let instants = match &sessions {
            Some(s) => s.starts(&window),
            None => window.iter().map(|(at, _)| *at).collect(),
        };
        TraceReplay {
            inner: Arc::new(Inner {
                info,
                window,
                instants,
                synth,
                cursor: AtomicUsize::new(0),
                sessions,
            }),
        }
    }
}

impl Workload for TraceReplay {
    fn info(&self) -> WorkloadInfo {
        self.inner.info.clone()
    }

    fn session(&self, _slot: u32) -> Box<dyn Session> {
        if self.inner.sessions.is_some() {
            return Box::new(SessionSlot::new(self.inner.clone()));
        }
        Box::new(Ordered(self.inner.clone()))
    }

    fn replay(&self) -> Option<Arc<dyn Replay>> {
        Some(Arc::new(Timed(self.inner.clone())))
    }
}

/// The open loop's replay: record `k` at its instant, or session `k` at its start.
struct Timed(Arc<Inner>);

impl Replay for Timed {
    fn instants(&self) -> Arc<[Duration]> {
        self.0.instants.clone()
    }

    fn prompt(&self, k: usize) -> Prompt {
        self.0.prompt(k)
    }

    fn session(&self, k: usize) -> Option<Box<dyn Session>> {
        self.0.sessions.as_ref()?;
        Some(Box::new(SessionSlot::only(self.0.clone(), k)))
    }
}

impl Inner {
    /// The prompt of the window's record `k` (wrapping around).
    fn prompt(&self, k: usize) -> Prompt {
        let Some((_, r)) = self.window.get(k % self.window.len().max(1)) else {
            return Prompt::default();
        };
        let (messages, target_tokens) = match &r.input {
            Input::Length(n) => {
                let text = self.synth.prompt(r.line as u64, (*n).max(1), &r.hash_ids);
                (vec![Message::new(Role::User, text)], Some((*n).max(1)))
            }
            Input::Messages(m) => (m.clone(), None),
        };
        Prompt {
            messages,
            target_tokens,
            turn: r.turn,
            max_tokens: Some(r.output_length.max(1)),
            ..Prompt::default()
        }
    }
}

/// A closed-loop slot: the next record in arrival order, whichever slot asks.
struct Ordered(Arc<Inner>);

impl Session for Ordered {
    fn next(&mut self) -> Prompt {
        let k = self.0.cursor.fetch_add(1, Ordering::Relaxed);
        self.0.prompt(k)
    }
}
