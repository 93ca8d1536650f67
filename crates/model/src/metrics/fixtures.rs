//! Hand-made samples and windows for the metrics tests.

use super::Window;
use crate::phase::Phase;
use crate::sample::{Chunk, Outcome, Sample, TokenSource};

/// A request sent at `t_sent_us`, with content `chunks` as `(t_us, tokens)`, ending at
/// `t_end_us`; `n_out` is the sum of chunk tokens (from `usage`), `n_in` 10. Its outcome is
/// `Stream` until passed through [`ok`], so a test never succeeds by accident.
pub fn sample(t_sent_us: u64, chunks: &[(u64, u32)], t_end_us: u64) -> Sample {
    Sample {
        seq: 0,
        slot: 0,
        phase: Phase::Measure,
        t_sent_us,
        t_end_us,
        connect_us: None,
        resends: 0,
        events: 0,
        multi_event_reads: 0,
        text_events: 0,
        t_first_answer_us: None,
        n_reasoning: None,
        chunks: chunks.iter().copied().map(Chunk::from).collect(),
        n_out: Some(chunks.iter().map(|c| c.1).sum()),
        n_out_source: Some(TokenSource::Usage),
        n_out_client: None,
        chunk_tokens_source: Some(TokenSource::Tokenizer),
        n_in: Some(10),
        n_in_source: Some(TokenSource::Usage),
        n_in_cached: None,
        n_in_target: None,
        max_tokens: None,
        outcome: Outcome::Stream,
        error: None,
        backoff_us: None,
        t_intended_us: None,
        queue_us: None,
        turn: None,
        session_id: None,
        n_in_prior: None,
        think_us: None,
        session_end: false,
        prompt: None,
        response: None,
        trace_id: None,
        server: None,
    }
}

/// `s`, succeeded.
pub fn ok(s: Sample) -> Sample {
    Sample {
        outcome: Outcome::Ok,
        ..s
    }
}

/// A measure window `[m0_us, m1_us]` with target concurrency `n`.
pub fn window(m0_us: u64, m1_us: u64, n: u32) -> Window {
    Window {
        m0_us,
        m1_us,
        concurrency: Some(n),
    }
}

/// N = 1, window [1 s, 3 s]. One slot, back to back:
/// R0 sent 0.2 s (before m0): chunks (0.6 s, 10) (1.2 s, 10), ends 1.2 s.
/// R1 sent 1.2 s: chunks (1.4 s, 10) (1.7 s, 10), ends 1.7 s. User tps 20 / 0.5 s = 40.
/// R2 sent 1.7 s: chunks (2.2 s, 5) (3.2 s, 5), ends 3.2 s (in Drain). User tps
///    10 / 1.5 s = 6.667.
pub fn straddling() -> Vec<Sample> {
    let ms = |ms: u64| ms * 1_000;
    vec![
        ok(sample(ms(200), &[(ms(600), 10), (ms(1200), 10)], ms(1200))),
        ok(sample(
            ms(1200),
            &[(ms(1400), 10), (ms(1700), 10)],
            ms(1700),
        )),
        ok(sample(ms(1700), &[(ms(2200), 5), (ms(3200), 5)], ms(3200))),
    ]
}
