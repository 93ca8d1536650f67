//! What the client hands back for one request ([`Exchange`]: raw chunk arrivals, the
//! response text, the server's usage, the outcome) and its finalisation into a
//! [`Sample`] with token counts and their sources. Finalising runs off the request path.

use crate::tokens::TokenCounter;
use crate::wire::{Decoded, Text, Timings, Usage};
use crate::workload::Prompt;
use plateau_model::phase::Phase;
use plateau_model::sample::{Chunk, Outcome, Sample, TokenSource};

/// An observed chunk: the token-bearing events of one socket read, with that read's
/// arrival and where their text ends in [`Text::all`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawChunk {
    /// When the socket read that brought it returned, us since cell start.
    pub t_us: u64,
    /// The connection's read counter after that read: events with the same value came in
    /// one read.
    pub read: u64,
    /// Byte offset in [`Text::all`] where this chunk's text ends.
    pub end: usize,
    /// Cumulative completion tokens, when the server sends usage on every chunk.
    pub completion_tokens: Option<u32>,
    /// Token-bearing events merged into this chunk.
    pub events: u32,
    /// Those of them that carried text (each carries at least one token).
    pub text_events: u32,
}

/// One request as the client saw it.
#[derive(Clone, Debug, PartialEq)]
pub struct Exchange {
    /// Once a usable connection was in hand, just before the request was written, us
    /// since cell start.
    pub t_sent_us: u64,
    /// When it ended, us since cell start.
    pub t_end_us: u64,
    /// Time to open the connection (TCP and TLS), us; `None` when one was reused.
    pub connect_us: Option<u64>,
    /// Times it was resent after a reused connection turned out closed by the server.
    pub resends: u32,
    /// Observed chunks in arrival order.
    pub chunks: Vec<RawChunk>,
    /// First arrival of answer text or a tool call (after any reasoning), us.
    pub t_first_answer_us: Option<u64>,
    /// All text received.
    pub text: Text,
    /// The last `usage` object received.
    pub usage: Option<Usage>,
    /// How it ended.
    pub outcome: Outcome,
    /// Error detail for failures.
    pub error: Option<String>,
    /// How long the server asked the client to wait (`Retry-After` on an error answer).
    pub retry_after: Option<std::time::Duration>,
    /// The trace id the request carried in its `traceparent`.
    pub trace_id: Option<crate::trace::TraceId>,
    /// llama.cpp's `timings` from its final response.
    pub timings: Option<Timings>,
}

impl Exchange {
    /// An exchange that starts now.
    pub fn new(t_sent_us: u64) -> Self {
        Exchange {
            t_sent_us,
            t_end_us: t_sent_us,
            connect_us: None,
            resends: 0,
            chunks: Vec::new(),
            t_first_answer_us: None,
            text: Text::default(),
            usage: None,
            outcome: Outcome::Ok,
            error: None,
            retry_after: None,
            trace_id: None,
            timings: None,
        }
    }

    /// Records a token-bearing event `d` (its text already appended to [`Exchange::text`])
    /// that arrived at `t_us` in read `read`: merged into the last chunk when it came in the
    /// same read, else a new chunk.
    pub fn record(&mut self, t_us: u64, read: u64, d: &Decoded) {
        if d.answer_len > 0 || d.tool_call {
            self.t_first_answer_us.get_or_insert(t_us);
        }
        let completion_tokens = d.usage.and_then(|u| u.completion_tokens);
        let text_events = u32::from(d.content_len > 0);
        let end = self.text.all.len();
        match self.chunks.last_mut() {
            Some(last) if last.read == read => {
                last.end = end;
                last.completion_tokens = completion_tokens.or(last.completion_tokens);
                last.events += 1;
                last.text_events += text_events;
            }
            _ => self.chunks.push(RawChunk {
                t_us,
                read,
                end,
                completion_tokens,
                events: 1,
                text_events,
            }),
        }
    }

    /// The text of each chunk.
    pub fn chunk_texts(&self) -> impl Iterator<Item = &str> {
        let mut start = 0;
        self.chunks.iter().map(move |c| {
            let text = self.text.all.get(start..c.end).unwrap_or("");
            start = c.end;
            text
        })
    }
}

/// Where a request sat in its cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    /// Send order within the cell.
    pub seq: u64,
    /// Slot index.
    pub slot: u32,
    /// Phase at send time.
    pub phase: Phase,
    /// The slot's wait after this request before its next, us (see [`Sample::backoff_us`]).
    pub backoff_us: Option<u64>,
    /// Open loop: the arrival's intended send, us (see [`Sample::t_intended_us`]).
    pub t_intended_us: Option<u64>,
    /// Open loop: time queued for a place under `max_concurrency`, us.
    pub queue_us: Option<u64>,
    /// Sessions: the think time the slot waits after this turn, us.
    pub think_us: Option<u64>,
    /// Sessions: this was its session's last turn.
    pub session_end: bool,
}

/// Turns an exchange into a sample: token counts from the server's usage where it sent
/// them, else from `counter` over the whole response text (never less than the number of
/// events that carried text); per-chunk tokens from per-chunk usage, else the tokenizer's
/// counts of each chunk's text, apportioned to that total.
pub fn finalize(
    ex: Exchange,
    meta: Meta,
    prompt: &Prompt,
    counter: &dyn TokenCounter,
    store_text: bool,
) -> Sample {
    let usage = ex.usage.unwrap_or_default();
    let has_content = !ex.chunks.is_empty();
    let text_events: u32 = ex.chunks.iter().map(|c| c.text_events).sum();
    let n_out_client = has_content.then(|| count(counter, &ex.text.all).max(text_events));

    let (chunk_tokens, chunk_source) =
        chunk_tokens(&ex, counter, usage.completion_tokens, n_out_client);

    let (n_out, n_out_source) = match (usage.completion_tokens, n_out_client) {
        (Some(n), _) => (Some(n), Some(TokenSource::Usage)),
        (None, Some(n)) => (Some(n), Some(TokenSource::Tokenizer)),
        (None, None) => (None, None),
    };
    let reasoned = !ex.text.reasoning.is_empty();
    let n_reasoning = usage
        .reasoning_tokens()
        .or_else(|| reasoned.then(|| count(counter, &ex.text.reasoning)));
    let prompt_text = || {
        prompt
            .messages
            .iter()
            .map(|m| m.content.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (n_in, n_in_source) = match usage.prompt_tokens {
        Some(n) => (n, TokenSource::Usage),
        None => (count(counter, &prompt_text()), TokenSource::Tokenizer),
    };

    Sample {
        seq: meta.seq,
        slot: meta.slot,
        phase: meta.phase,
        t_sent_us: ex.t_sent_us,
        t_intended_us: meta.t_intended_us,
        queue_us: meta.queue_us,
        t_end_us: ex.t_end_us,
        connect_us: ex.connect_us,
        resends: ex.resends,
        chunks: ex
            .chunks
            .iter()
            .zip(chunk_tokens)
            .map(|(c, tokens)| Chunk {
                t_us: c.t_us,
                tokens,
            })
            .collect(),
        events: ex.chunks.iter().map(|c| c.events).sum(),
        multi_event_reads: ex.chunks.iter().filter(|c| c.events > 1).count() as u32,
        text_events,
        t_first_answer_us: ex.t_first_answer_us.filter(|_| reasoned),
        n_out,
        n_out_source,
        n_out_client,
        n_reasoning,
        chunk_tokens_source: chunk_source,
        n_in: Some(n_in),
        n_in_source: Some(n_in_source),
        n_in_cached: usage
            .cached_tokens()
            .or_else(|| ex.timings.and_then(|t| t.server_timing().cached_tokens)),
        n_in_target: prompt.target_tokens,
        max_tokens: prompt.max_tokens,
        outcome: ex.outcome,
        error: ex.error,
        backoff_us: meta.backoff_us,
        turn: prompt.turn,
        session_id: prompt.session.as_ref().map(|s| s.id.clone()),
        n_in_prior: prompt.session.as_ref().map(|s| s.prior_tokens),
        think_us: meta.think_us,
        session_end: meta.session_end,
        prompt: store_text.then(prompt_text),
        response: store_text.then_some(ex.text.answer),
        trace_id: ex.trace_id.map(|t| crate::trace::hex(&t)),
        server: ex.timings.map(|t| t.server_timing()),
    }
}

/// Tokens per observed chunk and where they come from: the server's cumulative per-chunk
/// usage when it sends one, else the client's count of each chunk's text scaled to the
/// reply's total; none when no chunk carried content.
fn chunk_tokens(
    ex: &Exchange,
    counter: &dyn TokenCounter,
    completion_tokens: Option<u32>,
    n_out_client: Option<u32>,
) -> (Vec<u32>, Option<TokenSource>) {
    let per_chunk_usage: Option<Vec<u32>> = ex
        .chunks
        .iter()
        .map(|c| c.completion_tokens)
        .collect::<Option<Vec<u32>>>()
        .map(|cum| {
            let mut prev = 0;
            cum.iter()
                .map(|&c| {
                    let d = c.saturating_sub(prev);
                    prev = prev.max(c);
                    d
                })
                .collect()
        });
    match (per_chunk_usage, n_out_client) {
        (Some(tokens), Some(_)) => (tokens, Some(TokenSource::Usage)),
        (None, Some(client_total)) => {
            let weights: Vec<u32> = ex.chunk_texts().map(|t| count(counter, t)).collect();
            let total = completion_tokens.unwrap_or(client_total);
            (apportion(&weights, total), Some(TokenSource::Tokenizer))
        }
        _ => (Vec::new(), None),
    }
}

fn count(counter: &dyn TokenCounter, text: &str) -> u32 {
    u32::try_from(counter.count(text)).unwrap_or(u32::MAX)
}

/// Splits `total` over items in proportion to `weights` (largest remainder), so the
/// parts sum to `total` exactly; equal weights when all are zero.
pub fn apportion(weights: &[u32], total: u32) -> Vec<u32> {
    if weights.is_empty() {
        return Vec::new();
    }
    let sum: u64 = weights.iter().map(|&w| u64::from(w)).sum();
    let weights: Vec<u64> = if sum == 0 {
        vec![1; weights.len()]
    } else {
        weights.iter().map(|&w| u64::from(w)).collect()
    };
    let sum: u64 = weights.iter().sum();
    let total = u64::from(total);
    let mut parts: Vec<u64> = weights.iter().map(|w| w * total / sum).collect();
    let mut remainders: Vec<(u64, usize)> = weights
        .iter()
        .enumerate()
        .map(|(i, w)| (w * total % sum, i))
        .collect();
    // Largest remainder first; ties to the earlier chunk.
    remainders.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let short = total - parts.iter().sum::<u64>();
    for &(_, i) in remainders
        .iter()
        .take(usize::try_from(short).unwrap_or(usize::MAX))
    {
        parts[i] += 1;
    }
    parts
        .into_iter()
        .map(|p| u32::try_from(p).unwrap_or(u32::MAX))
        .collect()
}

#[cfg(test)]
pub(crate) mod tests;
