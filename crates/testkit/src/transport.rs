//! Fake servers behind the runner's [`Transport`]: [`Fake`] streams tokens at an exact TTFT
//! and ITL on tokio's clock (paused in schedule tests, real in the arrivals bench), so the
//! runner's timing can be checked against known truth without sockets.

use std::time::Duration;

use plateau_core::exchange::{Exchange, RawChunk};
use plateau_core::transport::Transport;
use plateau_core::workload::Prompt;
use plateau_http::Clock;
use plateau_model::sample::Outcome;
use tokio_util::sync::CancellationToken;

/// A server that streams `tokens` one-word tokens, the first `ttft` after the send, the
/// rest `itl` apart; it stamps the send on entry, as the HTTP client stamps it just before
/// writing the request, and ends `cancelled` when the runner cancels it.
#[derive(Clone, Copy, Debug)]
pub struct Fake {
    /// Time to the first token.
    pub ttft: Duration,
    /// Time between tokens.
    pub itl: Duration,
    /// Tokens per reply.
    pub tokens: u32,
}

impl Transport for Fake {
    async fn exchange(
        &self,
        _prompt: &Prompt,
        clock: &Clock,
        cancel: &CancellationToken,
    ) -> Exchange {
        let mut ex = Exchange::new(clock.now_us());
        let work = async {
            tokio::time::sleep(self.ttft).await;
            for i in 0..self.tokens {
                if i > 0 {
                    tokio::time::sleep(self.itl).await;
                }
                push_token(&mut ex, clock.now_us(), u64::from(i), i + 1);
            }
        };
        ex.outcome = tokio::select! {
            _ = cancel.cancelled() => Outcome::Cancelled,
            () = work => Outcome::Ok,
        };
        ex.t_end_us = clock.now_us();
        ex
    }
}

/// Appends one one-word token to `ex`, arrived at `t_us` in read `read`, the server's
/// cumulative count then `completion_tokens`.
pub fn push_token(ex: &mut Exchange, t_us: u64, read: u64, completion_tokens: u32) {
    ex.text.all.push_str(" w");
    ex.text.answer.push_str(" w");
    ex.chunks.push(RawChunk {
        t_us,
        read,
        end: ex.text.all.len(),
        completion_tokens: Some(completion_tokens),
        events: 1,
        text_events: 1,
    });
}
