//! Token attribution and sources on hand-made exchanges.

use super::*;
use crate::tokens::Whitespace;
use crate::workload::{Message, Role};

fn prompt() -> Prompt {
    Prompt {
        messages: vec![Message::new(Role::User, "one two three")],
        target_tokens: Some(3),
        turn: Some(2),
    }
}

fn meta() -> Meta {
    Meta {
        seq: 7,
        slot: 1,
        phase: Phase::Measure,
    }
}

fn exchange(chunks: &[(u64, &str, Option<u32>)], usage: Option<Usage>) -> Exchange {
    let mut ex = Exchange::new(100);
    for &(t, text, cum) in chunks {
        ex.response.push_str(text);
        ex.chunks.push(RawChunk {
            t_us: t,
            end: ex.response.len(),
            completion_tokens: cum,
        });
    }
    ex.t_end_us = 999;
    ex.usage = usage;
    ex
}

#[test]
fn per_chunk_usage_wins() {
    let ex = exchange(
        &[
            (200, " a", Some(1)),
            (300, " b c", Some(3)),
            (400, " d", Some(4)),
        ],
        Some(Usage {
            prompt_tokens: Some(5),
            completion_tokens: Some(4),
        }),
    );
    let s = finalize(ex, meta(), &prompt(), &Whitespace, false);
    let tokens: Vec<u32> = s.chunks.iter().map(|c| c.tokens).collect();
    assert_eq!(tokens, vec![1, 2, 1]);
    assert_eq!(s.chunk_tokens_source, Some(TokenSource::Usage));
    assert_eq!(
        (s.n_out, s.n_out_source),
        (Some(4), Some(TokenSource::Usage))
    );
    assert_eq!(s.n_out_client, Some(4));
    assert_eq!((s.n_in, s.n_in_source), (Some(5), Some(TokenSource::Usage)));
    assert_eq!(
        (s.n_in_target, s.turn, s.seq, s.slot),
        (Some(3), Some(2), 7, 1)
    );
    assert!(s.prompt.is_none() && s.response.is_none());
}

#[test]
fn tokenizer_counts_are_apportioned_to_the_servers_total() {
    // Client counts 1, 2, 1 (= 4) but the server says 8 tokens.
    let ex = exchange(
        &[(200, " a", None), (300, " b c", None), (400, " d", None)],
        Some(Usage {
            prompt_tokens: None,
            completion_tokens: Some(8),
        }),
    );
    let s = finalize(ex, meta(), &prompt(), &Whitespace, true);
    let tokens: Vec<u32> = s.chunks.iter().map(|c| c.tokens).collect();
    assert_eq!(tokens, vec![2, 4, 2]);
    assert_eq!(s.chunk_tokens_source, Some(TokenSource::Tokenizer));
    assert_eq!(s.n_out_client, Some(4));
    assert_eq!(
        (s.n_in, s.n_in_source),
        (Some(3), Some(TokenSource::Tokenizer))
    );
    assert_eq!(s.response.as_deref(), Some(" a b c d"));
    assert_eq!(s.prompt.as_deref(), Some("one two three"));
}

#[test]
fn without_usage_the_tokenizer_counts() {
    let ex = exchange(&[(200, " a b", None)], None);
    let s = finalize(ex, meta(), &prompt(), &Whitespace, false);
    assert_eq!(
        (s.n_out, s.n_out_source),
        (Some(2), Some(TokenSource::Tokenizer))
    );
    assert_eq!(
        s.chunks,
        vec![Chunk {
            t_us: 200,
            tokens: 2
        }]
    );
}

#[test]
fn failed_request_without_content_has_no_output_counts() {
    let mut ex = exchange(&[], None);
    ex.outcome = Outcome::HttpStatus { status: 500 };
    let s = finalize(ex, meta(), &prompt(), &Whitespace, false);
    assert_eq!(
        (s.n_out, s.n_out_client, s.chunk_tokens_source),
        (None, None, None)
    );
    assert_eq!(s.outcome, Outcome::HttpStatus { status: 500 });
}

#[test]
fn apportion_rows() {
    // (weights, total, expected)
    let rows: &[(&[u32], u32, &[u32])] = &[
        (&[1, 1, 1], 3, &[1, 1, 1]),
        (&[1, 2, 1], 8, &[2, 4, 2]),
        (&[1, 1, 1], 4, &[2, 1, 1]),
        (&[0, 0], 3, &[2, 1]),
        (&[3, 0, 1], 2, &[2, 0, 0]),
        (&[5], 0, &[0]),
        (&[], 5, &[]),
    ];
    for (w, total, want) in rows {
        let got = apportion(w, *total);
        assert_eq!(&got, want, "weights {w:?} total {total}");
        if !w.is_empty() {
            assert_eq!(got.iter().sum::<u32>(), *total);
        }
    }
}
