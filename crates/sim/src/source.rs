//! Where a request's tokens come from: the fixed clock, the engine, or nowhere (a stall).

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::time::{Instant, Sleep, sleep_until};

use crate::engine::TokenRx;

/// tokio's timer wheel fires a sleep at the first millisecond tick at or after its deadline,
/// on average half a tick late; fixed-profile deadlines are set this much early so tokens
/// leave, on average, at their nominal instant (intervals are unaffected).
pub(crate) const TIMER_ROUNDING: Duration = Duration::from_micros(500);

/// The cumulative token count at which the next chunk is sent: the first token alone (so TTFT
/// is not delayed by chunking, like vLLM's stream interval), then `per_chunk` at a time, the
/// last chunk possibly shorter.
pub(crate) fn next_chunk_end(sent: u32, per_chunk: u32, total: u32) -> u32 {
    if sent == 0 {
        total.min(1)
    } else {
        sent.saturating_add(per_chunk).min(total)
    }
}

/// A request's token clock.
#[derive(Debug)]
pub(crate) enum Source {
    /// Fixed profile: token `k` (1-based) is due at `first + (k - 1) * itl`.
    Fixed {
        /// Due time of the first token.
        first: Instant,
        /// Time between tokens.
        itl: Duration,
        /// Sleep armed for `armed_for`.
        sleep: Pin<Box<Sleep>>,
        /// The token count `sleep` is armed for.
        armed_for: u32,
    },
    /// Realistic profile: one message per token from the engine.
    Engine {
        /// Token notifications.
        rx: TokenRx,
        /// Tokens received so far.
        got: u32,
    },
    /// No token ever (stall fault).
    Never,
}

impl Source {
    /// A fixed clock whose first token is due at `first` (armed `TIMER_ROUNDING` early).
    pub(crate) fn fixed(first: Instant, itl: Duration) -> Self {
        let first = first.checked_sub(TIMER_ROUNDING).unwrap_or(first);
        Source::Fixed {
            first,
            itl,
            sleep: Box::pin(sleep_until(first)),
            armed_for: 1,
        }
    }

    /// Tokens from the engine.
    pub(crate) fn engine(rx: TokenRx) -> Self {
        Source::Engine { rx, got: 0 }
    }

    /// Ready(true) once `target` tokens (cumulative) are generated; Ready(false) if the engine
    /// stopped first.
    pub(crate) fn poll_reach(&mut self, cx: &mut Context<'_>, target: u32) -> Poll<bool> {
        match self {
            Source::Fixed {
                first,
                itl,
                sleep,
                armed_for,
            } => {
                if *armed_for != target {
                    *armed_for = target;
                    sleep
                        .as_mut()
                        .reset(*first + *itl * target.saturating_sub(1));
                }
                sleep.as_mut().poll(cx).map(|()| true)
            }
            Source::Engine { rx, got } => {
                while *got < target {
                    match rx.poll_recv(cx) {
                        Poll::Ready(Some(())) => *got += 1,
                        Poll::Ready(None) => return Poll::Ready(false),
                        Poll::Pending => return Poll::Pending,
                    }
                }
                Poll::Ready(true)
            }
            Source::Never => Poll::Pending,
        }
    }

    /// Waits until `target` tokens are generated; false if the engine stopped first.
    pub(crate) async fn reach(&mut self, target: u32) -> bool {
        poll_fn(|cx| self.poll_reach(cx, target)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_ends() {
        // (sent, per_chunk, total) -> next end
        let table = [
            ((0, 1, 5), 1),
            ((1, 1, 5), 2),
            ((0, 4, 10), 1),
            ((1, 4, 10), 5),
            ((5, 4, 10), 9),
            ((9, 4, 10), 10),
            ((0, 4, 0), 0),
            ((3, u32::MAX, 7), 7),
        ];
        for ((sent, per, total), end) in table {
            assert_eq!(
                next_chunk_end(sent, per, total),
                end,
                "{sent} {per} {total}"
            );
        }
    }

    #[tokio::test(start_paused = true)]
    async fn fixed_clock_hits_absolute_deadlines() {
        let t0 = Instant::now();
        let mut source = Source::fixed(t0 + Duration::from_millis(100), Duration::from_millis(20));
        assert!(source.reach(1).await);
        assert_eq!(t0.elapsed(), Duration::from_millis(100));
        assert!(source.reach(2).await);
        assert_eq!(t0.elapsed(), Duration::from_millis(120));
        // Late polling does not shift later deadlines.
        tokio::time::sleep(Duration::from_millis(35)).await;
        assert!(source.reach(3).await);
        assert_eq!(t0.elapsed(), Duration::from_millis(155));
        assert!(source.reach(6).await);
        assert_eq!(t0.elapsed(), Duration::from_millis(200));
    }

    #[tokio::test]
    async fn engine_source_counts_and_reports_a_stopped_engine() {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let mut source = Source::engine(rx);
        for _ in 0..3 {
            tx.send(()).unwrap();
        }
        assert!(source.reach(2).await);
        assert!(source.reach(3).await);
        drop(tx);
        assert!(!source.reach(4).await);
    }
}
