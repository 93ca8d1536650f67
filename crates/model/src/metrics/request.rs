//! Per-request metrics, each defined once as a method on [`Sample`] next to the instants it
//! reads: TTFT, E2E, TPOT, ITL (per chunk and per token), user and generation throughput,
//! and whether a request meets the SLOs. The summary and the report crate both call these.
//!
//! The methods read raw instants whatever the outcome; choosing which requests count
//! (started in the window, succeeded) is [`super::summarize`]'s job. They return `None`
//! where a value does not exist (no content, fewer than 2 tokens, zero duration), never a
//! zero, and never produce NaN or infinity.

use crate::config::SloConfig;
use crate::sample::Sample;

/// One inter-chunk gap: the time since the previous content chunk and the tokens carried
/// by the chunk that closed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gap {
    /// `t_i - t_{i-1}`, us.
    pub us: u64,
    /// Tokens in chunk `i` (always at least 1).
    pub tokens: u32,
}

impl Sample {
    /// TTFT: `t_first - t_start`, us, from the send (closed loop) or the intended send
    /// (open loop, [`Sample::t_start_us`]). `None` without content.
    pub fn ttft_us(&self) -> Option<u64> {
        self.t_first_us()?.checked_sub(self.t_start_us())
    }

    /// E2E: `t_last - t_start`, us (see [`Sample::ttft_us`]). `None` without content.
    pub fn e2e_us(&self) -> Option<u64> {
        self.t_last_us()?.checked_sub(self.t_start_us())
    }

    /// TTFT from the actual send, `t_first - t_sent`, us: the server's share of an
    /// open-loop TTFT. `None` without content.
    pub fn ttft_from_send_us(&self) -> Option<u64> {
        self.t_first_us()?.checked_sub(self.t_sent_us)
    }

    /// E2E from the actual send, `t_last - t_sent`, us. `None` without content.
    pub fn e2e_from_send_us(&self) -> Option<u64> {
        self.t_last_us()?.checked_sub(self.t_sent_us)
    }

    /// Schedule lag of an open-loop request: how late it went out for reasons of the
    /// client, `t_sent - t_intended - queue`, us. `None` in a closed loop.
    pub fn schedule_lag_us(&self) -> Option<u64> {
        let late = self.t_sent_us.checked_sub(self.t_intended_us?)?;
        Some(late.saturating_sub(self.queue_us.unwrap_or(0)))
    }

    /// Decode time: `E2E - TTFT = t_last - t_first`, us. `None` without content.
    pub fn decode_us(&self) -> Option<u64> {
        self.t_last_us()?.checked_sub(self.t_first_us()?)
    }

    /// TPOT: `(t_last - t_first) / (n_out - 1)`, us. `None` unless `n_out >= 2`, and
    /// `None` when all output arrived in one read (`t_last = t_first`: not measurable, not 0).
    pub fn tpot_us(&self) -> Option<f64> {
        let n_out = self.n_out.filter(|&n| n >= 2)?;
        let decode_us = self.decode_us().filter(|&us| us > 0)?;
        Some(decode_us as f64 / f64::from(n_out - 1))
    }

    /// Gaps between consecutive content chunks, in arrival order.
    ///
    /// A chunk with 0 tokens is merged into the next chunk: it closes no gap, and the time
    /// since the chunk before it carries over to the next chunk with tokens (a trailing
    /// 0-token chunk closes nothing). The first chunk opens the first gap whatever its
    /// tokens: it is `t_first`, where TTFT ends.
    pub fn itl_gaps(&self) -> impl Iterator<Item = Gap> + '_ {
        let mut prev = self.t_first_us();
        self.chunks
            .iter()
            .skip(1)
            .filter(|c| c.tokens > 0)
            .filter_map(move |c| {
                let since = prev?;
                prev = Some(c.t_us);
                // Arrival stamps come from a monotonic clock in arrival order, so a
                // negative gap cannot occur; if one did, it is dropped, not wrapped.
                Some(Gap {
                    us: c.t_us.checked_sub(since)?,
                    tokens: c.tokens,
                })
            })
    }

    /// ITL per chunk: every gap of [`Sample::itl_gaps`], us.
    pub fn itl_chunk_us(&self) -> impl Iterator<Item = f64> + '_ {
        self.itl_gaps().map(|g| g.us as f64)
    }

    /// ITL per token: each gap of [`Sample::itl_gaps`] divided by the tokens of the chunk
    /// that closed it, entered once per token, so a distribution over these values is
    /// token-weighted. Tokens of the first chunk have no ITL (they arrive with TTFT).
    pub fn itl_token_us(&self) -> impl Iterator<Item = f64> + '_ {
        self.itl_gaps().flat_map(|g| {
            let per_token = g.us as f64 / f64::from(g.tokens);
            std::iter::repeat_n(per_token, g.tokens as usize)
        })
    }

    /// User throughput: `n_out / E2E`, tokens/s (TTFT included). `None` when `n_out` is
    /// unknown or E2E is 0.
    pub fn user_throughput_tps(&self) -> Option<f64> {
        tokens_per_second(self.n_out?, self.e2e_us()?)
    }

    /// Generation throughput: `n_out / (E2E - TTFT)`, tokens/s. `None` when `n_out` is
    /// unknown or all content came in one instant.
    pub fn generation_throughput_tps(&self) -> Option<f64> {
        tokens_per_second(self.n_out?, self.decode_us()?)
    }

    /// Whether the request succeeded and meets every SLO that is set (unset ones are
    /// ignored). A failed request never does. TPOT does not exist for a response of one
    /// token (`n_out < 2`), which therefore meets any TPOT SLO; an unknown `n_out` does not.
    pub fn meets_slo(&self, slo: &SloConfig) -> bool {
        let within = |limit_ms: Option<f64>, us: Option<f64>| match limit_ms {
            None => true,
            Some(limit) => us.is_some_and(|us| us_to_ms(us) <= limit),
        };
        let single_token = self.n_out.is_some_and(|n| n < 2);
        self.outcome.is_ok()
            && within(slo.ttft_ms, self.ttft_us().map(|us| us as f64))
            && within(slo.e2e_ms, self.e2e_us().map(|us| us as f64))
            && (single_token || within(slo.tpot_ms, self.tpot_us()))
    }
}

/// `tokens / us` in tokens per second; `None` when `us` is 0.
fn tokens_per_second(tokens: u32, us: u64) -> Option<f64> {
    (us > 0).then(|| f64::from(tokens) * 1e6 / us as f64)
}

/// Microseconds to milliseconds, the unit of every latency in the summary.
pub fn us_to_ms(us: f64) -> f64 {
    us / 1000.0
}

#[cfg(test)]
mod tests;
