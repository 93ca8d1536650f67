//! `WireConfig`: switches that make the simulator misbehave on the wire like real servers,
//! and `Grouping`, the rule that decides which token chunks share one network write.

use serde::{Deserialize, Serialize};

use crate::SimError;

/// How a response reports `usage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UsageMode {
    /// The true counts, where the request asks for them (vLLM's behaviour).
    #[default]
    Normal,
    /// Never a `usage` key, whatever the request asks.
    None,
    /// `completion_tokens` multiplied by `usage_scale` (rounded), `total_tokens` to match.
    Scaled,
}

/// How the server writes responses: the `wire` section of [`SimConfig`](crate::SimConfig).
///
/// Every switch is off by default (the polite vLLM-like server). Tokens are still produced by
/// the timing model (`fixed` or `realistic`); the switches change only how they are written:
///
/// | key | JSON | what the wire shows |
/// |---|---|---|
/// | `close_after_response` | `true` | after each response (streamed or not) the server closes the TCP connection; the headers never say `Connection: close` (llama.cpp) |
/// | `events_per_write` | `3` | the token chunks are written `k` to a write, when the `k`-th is due; the rest when the stream ends (a buffering proxy) |
/// | `whole_stream_at_end` | `true` | the whole streamed body (every event, usage, `[DONE]`) in one write when the last token is due |
/// | `burst_after_first` | `true` | the first token chunk alone at its time, then everything else in one write when the last token is due |
/// | `usage` | `"none"` | no `usage` key anywhere: not in the final chunk, not per chunk, not in whole bodies |
/// | `usage`, `usage_scale` | `"scaled"`, `2.0` | `completion_tokens` (and `total_tokens`) report `round(usage_scale * n)` for the true `n` |
/// | `empty_text_every` | `4` | tokens 4, 8, 12, ... decode to no text: their event still comes, with `""` |
/// | `tool_calls` | `true` | chat: tokens are `delta.tool_calls[0].function.arguments` (the first one with `id`, `type`, `name`); finish reason `tool_calls` |
/// | `reasoning_tokens` | `5` | chat: the first 5 tokens are `delta.reasoning_content`, then `delta.content`; usage adds `completion_tokens_details.reasoning_tokens` |
///
/// `events_per_write`, `whole_stream_at_end` and `burst_after_first` each group chunks into
/// writes, so at most one of them may be set; they apply to streams only. `tool_calls` and
/// `reasoning_tokens` apply to chat only (completions have no such fields).
///
/// # The true numbers behind each switch
///
/// For the `fixed` profile with TTFT `T`, ITL `I`, `n` tokens (`ignore_eos`),
/// `tokens_per_chunk` 1 and the request sent at 0, token `i` (1-based) is generated at
/// `t_i = T + (i - 1) I`. The truth is always TTFT `T`, TPOT `I`, E2E `T + (n - 1) I` and `n`
/// output tokens; what a client that stamps chunks at read time can observe is:
///
/// | switch | reads carrying tokens (time: tokens) | observable from the client |
/// |---|---|---|
/// | none | `t_i`: 1, for each `i` | TTFT `T`, TPOT `I`, every ITL `I` |
/// | `close_after_response` | as none | same numbers; every request needs a new TCP connection, and a client that reuses the closed one fails the send |
/// | `events_per_write: k` | `t_{jk}`: `k` for `j = 1..n/k`, then `t_n`: `n mod k` | first token read at `T + (k - 1) I`; per-read gap `k I` (last gap `(n mod k) I`); per-token ITL `I`; TPOT over reads `(n - k) I / (n - 1)`; E2E exact. `T` 50, `I` 20, `n` 10, `k` 3: reads at 90, 150, 210, 230 ms with 3, 3, 3, 1 tokens |
/// | `whole_stream_at_end` | `t_n`: `n` | TTFT = E2E = `T + (n - 1) I`; TPOT and ITL not measurable (all content at one instant) |
/// | `burst_after_first` | `t_1`: 1, then `t_n`: `n - 1` | TTFT `T`, E2E exact, TPOT `I` (exact by arithmetic), one per-chunk ITL of `(n - 1) I` (per token `I`) |
/// | `usage: none` | as none | `n` only from the text, which re-tokenizes (cl100k) to exactly `n` |
/// | `usage: scaled`, `s` | as none | usage says `round(s n)`; the text still re-tokenizes to `n` |
/// | `empty_text_every: e` | as none (empty events included) | `n - floor(n / e)` events with text and that many text tokens, usage `n`; chunks with text are `2 I` apart around an empty one; if `e` divides `n` the last text arrives at `t_{n-1}`, so E2E from text is `I` short; `e` = 1: no text at all |
/// | `tool_calls` | as none | no `delta.content`: a client reading only content sees no token; the arguments re-tokenize to `n` |
/// | `reasoning_tokens: r` (`r < n`) | as none | first token of any kind at `T`; first answer token at `T + r I`; `r` reasoning and `n - r` content text tokens; usage `n` with `reasoning_tokens: r` (`r >= n`: all `n` are reasoning) |
///
/// Chat streams also send a role chunk (no token) in the same write as the first token, and
/// the finish chunk, the usage chunk and `[DONE]` in the same write as the last token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WireConfig {
    /// Close the TCP connection after each response, without a `Connection: close` header.
    pub close_after_response: bool,
    /// Token chunks per network write (a buffering proxy); 1 = each chunk when it is due.
    pub events_per_write: u32,
    /// Write the whole streamed body at once, when the last token is due.
    pub whole_stream_at_end: bool,
    /// Write the first token chunk when due, then hold the rest until the last token is due.
    pub burst_after_first: bool,
    /// What `usage` reports.
    pub usage: UsageMode,
    /// Factor on `completion_tokens` with `usage: "scaled"`.
    pub usage_scale: f64,
    /// Every k-th token decodes to no text (its delta is `""`); 0 = off.
    pub empty_text_every: u32,
    /// Chat: tokens are streamed as a function call's arguments instead of content.
    pub tool_calls: bool,
    /// Chat: the first k tokens of each reply are `reasoning_content`.
    pub reasoning_tokens: u32,
}

impl Default for WireConfig {
    fn default() -> Self {
        WireConfig {
            close_after_response: false,
            events_per_write: 1,
            whole_stream_at_end: false,
            burst_after_first: false,
            usage: UsageMode::Normal,
            usage_scale: 1.0,
            empty_text_every: 0,
            tool_calls: false,
            reasoning_tokens: 0,
        }
    }
}

impl WireConfig {
    /// Checks ranges and combinations; `keepalive_ms` is the server's keep-alive interval.
    pub(crate) fn validate(&self, keepalive_ms: u64) -> Result<(), SimError> {
        let bad = |field, reason: &str| {
            Err(SimError::InvalidConfig {
                field,
                reason: reason.to_owned(),
            })
        };
        if self.events_per_write == 0 {
            return bad("wire.events_per_write", "must be at least 1");
        }
        let groupings = [
            self.events_per_write > 1,
            self.whole_stream_at_end,
            self.burst_after_first,
        ];
        if groupings.into_iter().filter(|&on| on).count() > 1 {
            return bad(
                "wire",
                "sets more than one of events_per_write > 1, whole_stream_at_end and \
                 burst_after_first; each decides alone how chunks are grouped into writes",
            );
        }
        if self.whole_stream_at_end && keepalive_ms > 0 {
            return bad(
                "wire.whole_stream_at_end",
                "cannot be combined with keepalive_ms: keep-alive comments are writes of their own",
            );
        }
        if !(0.0..=1e6).contains(&self.usage_scale) {
            return bad(
                "wire.usage_scale",
                "must be a finite number between 0 and 1e6",
            );
        }
        if self.usage != UsageMode::Scaled && self.usage_scale != 1.0 {
            return bad("wire.usage_scale", "only applies with usage \"scaled\"");
        }
        Ok(())
    }

    /// The write grouping these switches select.
    pub(crate) fn grouping(&self) -> Grouping {
        if self.whole_stream_at_end {
            Grouping::WholeAtEnd
        } else if self.burst_after_first {
            Grouping::BurstAfterFirst
        } else {
            Grouping::Every(self.events_per_write)
        }
    }
}

/// Which token chunks of a stream share one write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Grouping {
    /// Every `k` chunks (the last write may have fewer).
    Every(u32),
    /// The first chunk alone, then all the others together.
    BurstAfterFirst,
    /// All chunks together.
    WholeAtEnd,
}

impl Grouping {
    /// Whether the buffered chunks are written now, `chunks` having been generated so far
    /// (`last`: the stream's final one).
    pub(crate) fn flush(self, chunks: u32, last: bool) -> bool {
        last || match self {
            Grouping::Every(k) => chunks.is_multiple_of(k),
            Grouping::BurstAfterFirst => chunks == 1,
            Grouping::WholeAtEnd => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flush_points() {
        // (grouping, chunks generated, last) -> flush
        let table = [
            (Grouping::Every(1), 1, false, true),
            (Grouping::Every(1), 7, false, true),
            (Grouping::Every(3), 1, false, false),
            (Grouping::Every(3), 2, false, false),
            (Grouping::Every(3), 3, false, true),
            (Grouping::Every(3), 9, false, true),
            (Grouping::Every(3), 10, true, true),
            (Grouping::BurstAfterFirst, 1, false, true),
            (Grouping::BurstAfterFirst, 2, false, false),
            (Grouping::BurstAfterFirst, 9, false, false),
            (Grouping::BurstAfterFirst, 10, true, true),
            (Grouping::WholeAtEnd, 1, false, false),
            (Grouping::WholeAtEnd, 10, true, true),
        ];
        for (grouping, chunks, last, flush) in table {
            assert_eq!(
                grouping.flush(chunks, last),
                flush,
                "{grouping:?} {chunks} {last}"
            );
        }
    }

    #[test]
    fn grouping_follows_the_switch() {
        let mut wire = WireConfig::default();
        assert_eq!(wire.grouping(), Grouping::Every(1));
        wire.events_per_write = 4;
        assert_eq!(wire.grouping(), Grouping::Every(4));
        let wire = WireConfig {
            burst_after_first: true,
            ..WireConfig::default()
        };
        assert_eq!(wire.grouping(), Grouping::BurstAfterFirst);
        let wire = WireConfig {
            whole_stream_at_end: true,
            ..WireConfig::default()
        };
        assert_eq!(wire.grouping(), Grouping::WholeAtEnd);
    }
}
