//! Token attribution and sources on hand-made exchanges.

use super::*;
use crate::tokens::Whitespace;
use crate::workload::{Message, Role};

fn prompt() -> Prompt {
    Prompt {
        messages: vec![Message::new(Role::User, "one two three")],
        target_tokens: Some(3),
        turn: Some(2),
        max_tokens: Some(64),
        ..Prompt::default()
    }
}

/// Request `seq` of slot 1 in Measure, sent as soon as it could be.
fn meta() -> Meta {
    measured(7, 1)
}

/// Request `seq` of `slot` in Measure: no backoff, no intended send, no queue, no think time.
pub(crate) fn measured(seq: u64, slot: u32) -> Meta {
    Meta {
        seq,
        slot,
        phase: Phase::Measure,
        backoff_us: None,
        t_intended_us: None,
        queue_us: None,
        think_us: None,
        session_end: false,
    }
}

fn exchange(chunks: &[(u64, &str, Option<u32>)], usage: Option<Usage>) -> Exchange {
    let mut ex = Exchange::new(100);
    for (read, &(t, text, cum)) in chunks.iter().enumerate() {
        ex.text.all.push_str(text);
        ex.text.answer.push_str(text);
        ex.chunks.push(RawChunk {
            t_us: t,
            read: read as u64,
            end: ex.text.all.len(),
            completion_tokens: cum,
            events: 1,
            text_events: u32::from(!text.is_empty()),
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
            completion_tokens_details: None,
            prompt_tokens_details: None,
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
        (s.n_in_target, s.turn, s.seq, s.slot, s.max_tokens),
        (Some(3), Some(2), 7, 1, Some(64))
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
            completion_tokens_details: None,
            prompt_tokens_details: None,
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
fn the_tokenizer_counts_the_whole_text_not_chunk_by_chunk() {
    // Chunk by chunk, "x y" and "z w" are 2 + 2 words; the text "x yz w" is 3.
    let ex = exchange(&[(200, "x y", None), (300, "z w", None)], None);
    let s = finalize(ex, meta(), &prompt(), &Whitespace, false);
    assert_eq!(
        (s.n_out, s.n_out_source),
        (Some(3), Some(TokenSource::Tokenizer))
    );
    let tokens: Vec<u32> = s.chunks.iter().map(|c| c.tokens).collect();
    assert_eq!(tokens.iter().sum::<u32>(), 3);
    // Never fewer tokens than events that carried text: "a", "b", "c" glued are one word.
    let ex = exchange(
        &[(200, "a", None), (300, "b", None), (400, "c", None)],
        None,
    );
    let s = finalize(ex, meta(), &prompt(), &Whitespace, false);
    assert_eq!((s.n_out, s.text_events), (Some(3), 3));
}

#[test]
fn events_of_one_read_are_one_chunk() {
    let mut ex = Exchange::new(100);
    let event = |ex: &mut Exchange, t, read, text: &str| {
        let d = crate::wire::openai::decode(
            format!(r#"{{"choices":[{{"delta":{{"content":"{text}"}}}}]}}"#).as_bytes(),
            &mut ex.text,
        )
        .unwrap();
        ex.record(t, read, &d);
    };
    // Three events in read 1 (at 60 ms), three in read 2 (at 120 ms).
    for text in [" a", " b", " c"] {
        event(&mut ex, 60_000, 1, text);
    }
    for (t, text) in [(120_000, " d"), (120_010, " e"), (120_020, " f")] {
        event(&mut ex, t, 2, text);
    }
    assert_eq!(ex.chunks.len(), 2);
    assert_eq!((ex.chunks[1].t_us, ex.chunks[1].events), (120_000, 3));
    let s = finalize(ex, meta(), &prompt(), &Whitespace, false);
    assert_eq!(
        s.chunks,
        vec![Chunk::from((60_000, 3)), Chunk::from((120_000, 3))]
    );
    assert_eq!((s.events, s.multi_event_reads), (6, 2));
}

#[test]
fn reasoning_is_output_but_not_history() {
    let mut ex = Exchange::new(0);
    for (t, data) in [
        (
            10,
            r#"{"choices":[{"delta":{"reasoning_content":" think"}}]}"#,
        ),
        (
            20,
            r#"{"choices":[{"delta":{"reasoning_content":" more"}}]}"#,
        ),
        (30, r#"{"choices":[{"delta":{"content":" answer"}}]}"#),
        (40, r#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#),
    ] {
        let d = crate::wire::openai::decode(data.as_bytes(), &mut ex.text).unwrap();
        ex.record(t, t, &d);
    }
    assert_eq!(ex.text.answer, " answer");
    let s = finalize(ex, meta(), &prompt(), &Whitespace, true);
    // The empty finishing event still ends the output: t_last is its arrival.
    assert_eq!((s.t_first_us(), s.t_last_us()), (Some(10), Some(40)));
    assert_eq!(s.t_first_answer_us, Some(30));
    assert_eq!((s.n_out, s.n_reasoning), (Some(3), Some(2)));
    assert_eq!(s.response.as_deref(), Some(" answer"));
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
