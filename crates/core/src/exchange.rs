//! What the client hands back for one request ([`Exchange`]: raw chunk arrivals, the
//! response text, the server's usage, the outcome) and its finalisation into a
//! [`Sample`] with token counts and their sources. Finalising runs off the request path.

use crate::openai::Usage;
use crate::phase::Phase;
use crate::sample::{Chunk, Outcome, Sample, TokenSource};
use crate::tokens::TokenCounter;
use crate::workload::Prompt;

/// A content chunk as it arrived: its frame's arrival and where its text ends in
/// [`Exchange::response`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawChunk {
    /// Arrival of the body frame that completed it, us since cell start.
    pub t_us: u64,
    /// Byte offset in the response text where this chunk's text ends.
    pub end: usize,
    /// Cumulative completion tokens, when the server sends usage on every chunk.
    pub completion_tokens: Option<u32>,
}

/// One request as the client saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exchange {
    /// Just before the request was written, us since cell start.
    pub t_sent_us: u64,
    /// When it ended, us since cell start.
    pub t_end_us: u64,
    /// Content chunks in arrival order.
    pub chunks: Vec<RawChunk>,
    /// All content text received.
    pub response: String,
    /// The last `usage` object received.
    pub usage: Option<Usage>,
    /// How it ended.
    pub outcome: Outcome,
    /// Error detail for failures.
    pub error: Option<String>,
}

impl Exchange {
    /// An exchange that starts now.
    pub fn new(t_sent_us: u64) -> Self {
        Exchange {
            t_sent_us,
            t_end_us: t_sent_us,
            chunks: Vec::new(),
            response: String::new(),
            usage: None,
            outcome: Outcome::Ok,
            error: None,
        }
    }

    /// The text of each content chunk.
    pub fn chunk_texts(&self) -> impl Iterator<Item = &str> {
        let mut start = 0;
        self.chunks.iter().map(move |c| {
            let text = self.response.get(start..c.end).unwrap_or("");
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
}

/// Turns an exchange into a sample: token counts from the server's usage where it sent
/// them, else from `counter`; per-chunk tokens from per-chunk usage, else the tokenizer's
/// counts of each chunk's text, apportioned to the server's total when it reported one.
pub fn finalize(
    ex: Exchange,
    meta: Meta,
    prompt: &Prompt,
    counter: &dyn TokenCounter,
    store_text: bool,
) -> Sample {
    let usage = ex.usage.unwrap_or_default();
    let has_content = !ex.chunks.is_empty();
    let client_counts: Vec<u32> = ex.chunk_texts().map(|t| count(counter, t)).collect();
    let n_out_client = has_content.then(|| client_counts.iter().sum::<u32>());

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
    let (chunk_tokens, chunk_source) = match per_chunk_usage {
        Some(tokens) if has_content => (tokens, Some(TokenSource::Usage)),
        _ if has_content => {
            let tokens = match usage.completion_tokens {
                Some(total) => apportion(&client_counts, total),
                None => client_counts,
            };
            (tokens, Some(TokenSource::Tokenizer))
        }
        _ => (Vec::new(), None),
    };

    let (n_out, n_out_source) = match (usage.completion_tokens, n_out_client) {
        (Some(n), _) => (Some(n), Some(TokenSource::Usage)),
        (None, Some(n)) => (Some(n), Some(TokenSource::Tokenizer)),
        (None, None) => (None, None),
    };
    let prompt_text = || {
        prompt
            .messages
            .iter()
            .map(|m| m.content.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (n_in, n_in_source) = match usage.prompt_tokens {
        Some(n) => (Some(n), Some(TokenSource::Usage)),
        None => (
            Some(count(counter, &prompt_text())),
            Some(TokenSource::Tokenizer),
        ),
    };

    Sample {
        seq: meta.seq,
        slot: meta.slot,
        phase: meta.phase,
        t_sent_us: ex.t_sent_us,
        t_end_us: ex.t_end_us,
        chunks: ex
            .chunks
            .iter()
            .zip(chunk_tokens)
            .map(|(c, tokens)| Chunk {
                t_us: c.t_us,
                tokens,
            })
            .collect(),
        n_out,
        n_out_source,
        n_out_client,
        chunk_tokens_source: chunk_source,
        n_in,
        n_in_source,
        n_in_target: prompt.target_tokens,
        outcome: ex.outcome,
        error: ex.error,
        turn: prompt.turn,
        prompt: store_text.then(prompt_text),
        response: store_text.then_some(ex.response),
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
mod tests;
