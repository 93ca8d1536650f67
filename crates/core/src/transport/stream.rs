//! Reading an event stream: SSE events decoded as OpenAI chunks, token-bearing events
//! recorded with their frame's arrival and socket read (events of one read make one
//! observed chunk), and the first failure (error event, undecodable chunk) kept.

use crate::exchange::Exchange;
use crate::sse;
use crate::wire::{Usage, Wire};
use plateau_model::sample::Outcome;

/// Stream progress: the SSE parser and what the events said so far.
#[derive(Default)]
pub(super) struct SseState {
    parser: sse::Parser,
    /// The read of the last frame fed.
    last_read: u64,
    pub(super) done: bool,
    pub(super) finished: bool,
    pub(super) failure: Option<(Outcome, String)>,
}

impl SseState {
    pub(super) fn feed(
        &mut self,
        wire: &dyn Wire,
        data: &[u8],
        t_us: u64,
        read: u64,
        ex: &mut Exchange,
    ) -> Result<(), String> {
        self.last_read = read;
        self.with_events(wire, t_us, read, ex, |parser, emit| {
            parser
                .feed(data, &mut |e| emit(e))
                .map_err(|e| e.to_string())
        })
    }

    /// Ends the stream at `t_us`: an event still in the parser (no blank line after it)
    /// arrived with the last read.
    pub(super) fn finish(&mut self, wire: &dyn Wire, t_us: u64, ex: &mut Exchange) {
        let read = self.last_read;
        self.with_events(wire, t_us, read, ex, |parser, emit| {
            parser.finish(&mut |e| emit(e))
        });
    }

    /// Runs a parser operation with every event it completes handled by [`on_event`].
    fn with_events<R>(
        &mut self,
        wire: &dyn Wire,
        t_us: u64,
        read: u64,
        ex: &mut Exchange,
        op: impl FnOnce(&mut sse::Parser, &mut dyn FnMut(&sse::Event)) -> R,
    ) -> R {
        let Self {
            parser,
            last_read: _,
            done,
            finished,
            failure,
        } = self;
        op(parser, &mut |ev| {
            on_event(wire, ev, t_us, read, ex, done, finished, failure)
        })
    }
}

#[allow(clippy::too_many_arguments)]
fn on_event(
    wire: &dyn Wire,
    ev: &sse::Event,
    t_us: u64,
    read: u64,
    ex: &mut Exchange,
    done: &mut bool,
    finished: &mut bool,
    failure: &mut Option<(Outcome, String)>,
) {
    if failure.is_some() || *done {
        return;
    }
    if wire.is_end(ev) {
        *done = true;
        return;
    }
    match wire.decode(ev.data.as_bytes(), &mut ex.text) {
        Err(e) => {
            *failure = Some((
                Outcome::Decode,
                format!("stream event `{}`: {e}", truncate(&ev.data)),
            ))
        }
        Ok(d) => {
            if let Some(msg) = d.error.clone() {
                *failure = Some((Outcome::ServerError, msg));
            } else if ev.event.as_deref() == Some("error") {
                *failure = Some((Outcome::ServerError, truncate(&ev.data)));
            }
            // Per-chunk usage that grew counts as tokens even when they decoded to no text.
            let counted = |u: Option<Usage>| u.and_then(|u| u.completion_tokens);
            let grew = matches!(
                (counted(ex.usage), counted(d.usage)),
                (Some(before), Some(now)) if now > before
            ) && !ex.chunks.is_empty();
            if d.carries_output() || grew {
                ex.record(t_us, read, &d);
            }
            if d.usage.is_some() {
                ex.usage = d.usage;
            }
            if d.timings.is_some() {
                ex.timings = d.timings;
            }
            *finished |= d.finished;
        }
    }
}

fn truncate(s: &str) -> String {
    s.chars().take(200).collect()
}
