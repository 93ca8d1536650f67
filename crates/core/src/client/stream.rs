//! Reading an event stream: SSE events decoded as OpenAI chunks, content chunks recorded
//! with their frame's arrival, and the first failure (error event, undecodable chunk) kept.

use crate::exchange::{Exchange, RawChunk};
use crate::openai;
use crate::sample::Outcome;
use crate::sse;

/// Stream progress: the SSE parser and what the events said so far.
#[derive(Default)]
pub(super) struct SseState {
    parser: sse::Parser,
    pub(super) done: bool,
    pub(super) finished: bool,
    pub(super) failure: Option<(Outcome, String)>,
}

impl SseState {
    pub(super) fn feed(&mut self, data: &[u8], t_us: u64, ex: &mut Exchange) -> Result<(), String> {
        self.with_events(t_us, ex, |parser, emit| {
            parser
                .feed(data, &mut |e| emit(e))
                .map_err(|e| e.to_string())
        })
    }

    pub(super) fn finish(&mut self, t_us: u64, ex: &mut Exchange) {
        self.with_events(t_us, ex, |parser, emit| parser.finish(&mut |e| emit(e)));
    }

    /// Runs a parser operation with every event it completes handled by [`on_event`].
    fn with_events<R>(
        &mut self,
        t_us: u64,
        ex: &mut Exchange,
        op: impl FnOnce(&mut sse::Parser, &mut dyn FnMut(sse::Event)) -> R,
    ) -> R {
        let Self {
            parser,
            done,
            finished,
            failure,
        } = self;
        op(parser, &mut |ev| {
            on_event(ev, t_us, ex, done, finished, failure)
        })
    }
}

fn on_event(
    ev: sse::Event,
    t_us: u64,
    ex: &mut Exchange,
    done: &mut bool,
    finished: &mut bool,
    failure: &mut Option<(Outcome, String)>,
) {
    if failure.is_some() || *done {
        return;
    }
    if ev.is_done() {
        *done = true;
        return;
    }
    match openai::decode(ev.data.as_bytes(), &mut ex.response) {
        Err(e) => {
            *failure = Some((
                Outcome::Decode,
                format!("stream event `{}`: {e}", truncate(&ev.data)),
            ))
        }
        Ok(d) => {
            if let Some(msg) = d.error {
                *failure = Some((Outcome::ServerError, msg));
            } else if ev.event.as_deref() == Some("error") {
                *failure = Some((Outcome::ServerError, truncate(&ev.data)));
            }
            if d.content_len > 0 {
                let completion_tokens = d.usage.and_then(|u| u.completion_tokens);
                ex.chunks.push(RawChunk {
                    t_us,
                    end: ex.response.len(),
                    completion_tokens,
                });
            }
            if d.usage.is_some() {
                ex.usage = d.usage;
            }
            *finished |= d.finished;
        }
    }
}

fn truncate(s: &str) -> String {
    s.chars().take(200).collect()
}
