//! A trace's sessions replayed: the window's records grouped by `session_id` (a record
//! without one is a session of one turn), sessions in order of their first arrival, turns
//! in `turn` order (else arrival order). In the closed loop slots take whole sessions from
//! the shared cursor, wrapping around (a session replayed again gets the id
//! `<id>~<pass>`); in the open loop arrival `k` runs session `k` once, starting at its
//! first record's instant ([`TraceSessions::starts`]). Either way the think time before a
//! turn is its record's `delay_ms`, else the gap between the two turns' arrivals (which
//! then includes the recorded response time), both divided by `speedup` and capped. Prompts do not depend on replies, so a failed turn does
//! not end its session. The ideal prefix of a turn is what it shares with the session's
//! previous turn: the common leading `hash_ids` blocks, at most either turn's length.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use plateau_core::workload::{After, Prompt, Session, Turn};

use super::{Inner, Timing};
use crate::trace::Record;

/// The sessions of a trace's window.
pub(super) struct TraceSessions {
    /// Each session: its trace id and its records' indices in the window, in turn order.
    sessions: Vec<(String, Vec<usize>)>,
    /// Each session's first record in arrival order (its index in the window).
    firsts: Vec<usize>,
    /// The wait before each record's turn (zero for a first turn).
    think: Vec<Duration>,
    /// The tokens each record shares with its session's previous turn.
    prior: Vec<u32>,
}

impl TraceSessions {
    /// The sessions of `window`; `None` when no record names a session.
    pub(super) fn new(window: &[(Duration, Record)], timing: Timing) -> Option<TraceSessions> {
        if window.iter().all(|(_, r)| r.session_id.is_none()) {
            return None;
        }
        let mut order: Vec<(String, Vec<usize>)> = Vec::new();
        let mut by_id: HashMap<&str, usize> = HashMap::new();
        for (i, (_, r)) in window.iter().enumerate() {
            let Some(id) = r.session_id.as_deref() else {
                order.push((format!("line{}", r.line), vec![i]));
                continue;
            };
            let k = *by_id.entry(id).or_insert_with(|| {
                order.push((id.to_owned(), Vec::new()));
                order.len() - 1
            });
            order[k].1.push(i);
        }
        // Before the turns are sorted: the window is in arrival order.
        let firsts = order.iter().map(|(_, turns)| turns[0]).collect();
        let mut think = vec![Duration::ZERO; window.len()];
        let mut prior = vec![0; window.len()];
        for (_, turns) in &mut order {
            // Stable: records without `turn` keep their arrival order.
            turns.sort_by_key(|&i| window[i].1.turn.unwrap_or(0));
            for pair in turns.windows(2) {
                let ((t0, before), (t1, now)) = (&window[pair[0]], &window[pair[1]]);
                let gap = match now.delay_ms {
                    Some(ms) => Duration::from_secs_f64(ms / 1e3 / timing.speedup),
                    None => t1.saturating_sub(*t0),
                };
                think[pair[1]] = gap.min(timing.think_cap);
                prior[pair[1]] = shared_prefix(before, now, timing.block_tokens);
            }
        }
        Some(TraceSessions {
            sessions: order,
            firsts,
            think,
            prior,
        })
    }

    /// Each session's start in `window` (the one it was made from): its first record's
    /// instant, in session order (never decreasing).
    pub(super) fn starts(&self, window: &[(Duration, Record)]) -> Arc<[Duration]> {
        self.firsts.iter().map(|&i| window[i].0).collect()
    }
}

/// Tokens `now` shares with `before`: their common leading `hash_ids`, in blocks of
/// `block_tokens`, at most either prompt's length (recorded messages: none known).
fn shared_prefix(before: &Record, now: &Record, block_tokens: u32) -> u32 {
    let (Some(a), Some(b)) = (before.input_length(), now.input_length()) else {
        return 0;
    };
    let common = before
        .hash_ids
        .iter()
        .zip(&now.hash_ids)
        .take_while(|(x, y)| x == y)
        .count();
    u32::try_from(common)
        .unwrap_or(u32::MAX)
        .saturating_mul(block_tokens)
        .min(a)
        .min(b)
}

/// One slot of the session replay (closed loop), or one session of it (open loop).
pub(super) struct SessionSlot {
    inner: Arc<Inner>,
    /// The session being replayed: its number in the cursor's sequence and the position
    /// of the turn last sent.
    current: Option<(usize, usize)>,
    /// The one session this replays (open loop); `None`: the next from the cursor.
    only: Option<usize>,
}

impl SessionSlot {
    pub(super) fn new(inner: Arc<Inner>) -> SessionSlot {
        SessionSlot {
            inner,
            current: None,
            only: None,
        }
    }

    /// Session `k` of the window alone (the open loop's arrival `k`).
    pub(super) fn only(inner: Arc<Inner>, k: usize) -> SessionSlot {
        SessionSlot {
            inner,
            current: None,
            only: Some(k),
        }
    }

    fn sessions(&self) -> &TraceSessions {
        // Only made when the workload has sessions.
        self.inner.sessions.as_ref().unwrap_or(&EMPTY)
    }

    /// Session `k` of the replay: its id and turns (`k` wraps around the window).
    fn session(&self, k: usize) -> (String, &[usize]) {
        let all = &self.sessions().sessions;
        let Some((id, turns)) = all.get(k % all.len().max(1)) else {
            return (String::new(), &[]);
        };
        let pass = k / all.len();
        let id = if pass == 0 {
            id.clone()
        } else {
            format!("{id}~{pass}")
        };
        (id, turns)
    }
}

static EMPTY: TraceSessions = TraceSessions {
    sessions: Vec::new(),
    firsts: Vec::new(),
    think: Vec::new(),
    prior: Vec::new(),
};

impl Session for SessionSlot {
    fn next(&mut self) -> Prompt {
        let (k, position) = match self.current {
            Some((k, p)) if p + 1 < self.session(k).1.len() => (k, p + 1),
            _ => match self.only {
                Some(k) => (k, 0),
                None => (self.inner.cursor.fetch_add(1, Ordering::Relaxed), 0),
            },
        };
        self.current = Some((k, position));
        let (id, turns) = self.session(k);
        let record = turns.get(position).copied().unwrap_or(0);
        let mut prompt = self.inner.prompt(record);
        prompt.turn = Some(position as u32);
        prompt.session = Some(Turn {
            id,
            prior_tokens: self.sessions().prior[record],
        });
        prompt
    }

    fn after(&mut self) -> After {
        let Some((k, position)) = self.current else {
            return After::Now;
        };
        match self.session(k).1.get(position + 1) {
            Some(&next) => After::Think(self.sessions().think[next]),
            None => After::End,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Input, window};

    fn record(line: usize, at_ms: f64, session: &str, input: u32, ids: &[u64]) -> Record {
        Record {
            line,
            timestamp_ms: Some(at_ms),
            input: Input::Length(input),
            output_length: 1,
            hash_ids: ids.to_vec(),
            session_id: Some(session.to_owned()),
            turn: None,
            delay_ms: None,
            model: None,
        }
    }

    #[test]
    fn mooncake_sessions_wait_the_arrival_gap_over_the_speedup_capped() {
        // Mooncake: no turn, no delay_ms; turns in arrival order, think = the gap.
        let records = [
            record(1, 0.0, "s1", 1024, &[1, 2]),
            record(2, 500.0, "s2", 600, &[9, 10]),
            record(3, 1000.0, "s1", 1300, &[1, 2, 3]),
            record(4, 9000.0, "s1", 1400, &[1, 2, 3]),
        ];
        let w = window(&records, 0.0, None, 2.0);
        let timing = Timing {
            block_tokens: 512,
            speedup: 2.0,
            think_cap: Duration::from_secs(3),
        };
        let s = TraceSessions::new(&w, timing).unwrap();
        let ids: Vec<(&str, &[usize])> = s
            .sessions
            .iter()
            .map(|(id, t)| (id.as_str(), t.as_slice()))
            .collect();
        assert_eq!(ids, [("s1", &[0, 2, 3][..]), ("s2", &[1][..])]);
        // The open loop starts each at its first record's instant over the speedup.
        let starts = [Duration::ZERO, Duration::from_millis(250)];
        assert_eq!(&*s.starts(&w), &starts[..]);
        // 1000 ms of trace time at speedup 2; then 8000 ms / 2 = 4 s, capped at 3 s.
        assert_eq!(s.think[2], Duration::from_millis(500));
        assert_eq!(s.think[3], Duration::from_secs(3));
        // Two shared blocks of 512; then the partial third block: at most the shorter turn.
        assert_eq!((s.prior[0], s.prior[2], s.prior[3]), (0, 1024, 1300));
        let none: Vec<(Duration, Record)> = w
            .into_iter()
            .map(|(at, mut r)| {
                r.session_id = None;
                (at, r)
            })
            .collect();
        assert!(
            TraceSessions::new(&none, timing).is_none(),
            "no sessions named"
        );
    }

    #[test]
    fn a_session_starts_at_its_first_arrival_whatever_its_turn_numbers() {
        // Session `x`'s turn 0 was recorded after its turn 1: it starts at its first
        // record (turn 1, 300 ms), sends turn 0 first, and starts are never decreasing.
        let mut records = [
            record(1, 100.0, "y", 10, &[]),
            record(2, 300.0, "x", 10, &[]),
            record(3, 700.0, "x", 10, &[]),
            record(4, 900.0, "z", 10, &[]),
        ];
        records[1].turn = Some(1);
        records[2].turn = Some(0);
        let w = window(&records, 0.05, Some(10.0), 4.0);
        let timing = Timing {
            block_tokens: 512,
            speedup: 4.0,
            think_cap: Duration::from_secs(3),
        };
        let s = TraceSessions::new(&w, timing).unwrap();
        assert_eq!(s.sessions[1], ("x".to_owned(), vec![2, 1]));
        // (t - 50 ms) / 4.
        let ms = |m: f64| Duration::from_secs_f64(m / 1e3);
        assert_eq!(&*s.starts(&w), &[ms(12.5), ms(62.5), ms(212.5)][..]);
    }
}
