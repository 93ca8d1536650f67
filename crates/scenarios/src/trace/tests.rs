//! Each format read from a fixture in its upstream shape (exact columns and units), the
//! errors of bad rows naming file, line and field, and the ideal prefix share by hand.

use std::io::Write;
use std::path::PathBuf;

use super::stats::{ideal_prefix_share, stats};
use super::*;

fn fixture(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::File::create(&path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    (dir, path)
}

#[test]
fn mooncake_lines_keep_ms_lengths_ids_and_sessions() {
    let (_d, p) = fixture(
        "m.jsonl",
        "{\"timestamp\": 27482, \"input_length\": 6955, \"output_length\": 52, \"hash_ids\": [46, 47, 48]}\n\
         \n\
         {\"timestamp\": 30535, \"input_length\": 6472, \"output_length\": 26, \"hash_ids\": [46, 52], \"session_id\": 7}\n",
    );
    let r = read(&p, Format::Mooncake).unwrap();
    assert_eq!(r.len(), 2);
    assert_eq!(r[0].timestamp_ms, Some(0.0));
    assert_eq!(r[1].timestamp_ms, Some(3053.0));
    assert_eq!(r[1].line, 3);
    assert_eq!(r[0].input, Input::Length(6955));
    assert_eq!(r[1].output_length, 26);
    assert_eq!(r[1].hash_ids, vec![46, 52]);
    assert_eq!(r[1].session_id.as_deref(), Some("7"));
}

#[test]
fn a_bad_mooncake_field_names_file_line_and_field() {
    let (_d, p) = fixture(
        "m.jsonl",
        "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 5}\n\
         {\"timestamp\": 5, \"input_length\": \"ten\", \"output_length\": 5}\n",
    );
    let e = read(&p, Format::Mooncake).unwrap_err().to_string();
    assert!(e.contains("m.jsonl:2:"), "{e}");
    assert!(e.contains("field `input_length`"), "{e}");
}

#[test]
fn burstgpt_rows_are_seconds_and_token_columns() {
    let (_d, p) = fixture(
        "b.csv",
        "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n\
         5,ChatGPT,472,18,490,Conversation log\n\
         45.5,GPT-4,1087,0,1087,API log\n",
    );
    let r = read(&p, Format::Burstgpt).unwrap();
    assert_eq!(r.len(), 2);
    assert_eq!(r[1].timestamp_ms, Some(40_500.0));
    assert_eq!(r[0].input, Input::Length(472));
    assert_eq!(r[1].output_length, 0);
    assert_eq!(r[1].model.as_deref(), Some("GPT-4"));
    assert_eq!(r[1].line, 3);
}

#[test]
fn burstgpt_errors_name_the_column_and_line() {
    let (_d, p) = fixture(
        "b.csv",
        "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n\
         5,ChatGPT,472,18,490,Conversation log\n\
         6,ChatGPT,-3,18,490,Conversation log\n",
    );
    let e = read(&p, Format::Burstgpt).unwrap_err().to_string();
    assert!(e.contains("b.csv:3:"), "{e}");
    assert!(e.contains("column `Request tokens`: `-3`"), "{e}");
    let (_d, p) = fixture("c.csv", "Timestamp,Model,Request tokens\n1,a,2\n");
    let e = read(&p, Format::Burstgpt).unwrap_err().to_string();
    assert!(e.contains("no column `Response tokens`"), "{e}");
}

#[test]
fn azure_rows_are_dates_with_seven_digit_fractions() {
    let (_d, p) = fixture(
        "a.csv",
        "TIMESTAMP,ContextTokens,GeneratedTokens\n\
         2023-11-16 18:15:46.6805900,374,44\n\
         2023-11-16 18:15:50.9951690,396,109\n\
         2024-05-10 00:00:00.009930+00:00,10,1\n",
    );
    let r = read(&p, Format::Azure).unwrap();
    assert_eq!(r.len(), 3);
    let t = r[1].timestamp_ms.unwrap();
    assert!((t - 4314.579).abs() < 1e-6, "{t}");
    assert_eq!(r[1].input, Input::Length(396));
    assert_eq!(r[1].output_length, 109);
    let (_d, p) = fixture(
        "a.csv",
        "TIMESTAMP,ContextTokens,GeneratedTokens\nyesterday,1,2\n",
    );
    let e = read(&p, Format::Azure).unwrap_err().to_string();
    assert!(
        e.contains("a.csv:2:") && e.contains("column `TIMESTAMP`"),
        "{e}"
    );
}

#[test]
fn plateau_lines_take_lengths_or_messages_and_reject_typos() {
    let (_d, p) = fixture(
        "p.jsonl",
        "{\"timestamp_ms\": 10, \"session_id\": \"s1\", \"turn\": 0, \"input_length\": 100, \"output_length\": 20, \"hash_ids\": [1]}\n\
         {\"session_id\": \"s1\", \"turn\": 1, \"delay_ms\": 2500, \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"output_length\": 8}\n",
    );
    let r = read(&p, Format::Plateau).unwrap();
    assert_eq!(r[0].timestamp_ms, Some(0.0));
    // A turn timed by delay_ms alone comes delay_ms after its session's previous record.
    assert_eq!(r[1].timestamp_ms, Some(2500.0));
    assert_eq!(r[1].delay_ms, Some(2500.0));
    assert_eq!(r[1].turn, Some(1));
    assert!(matches!(&r[1].input, Input::Messages(m) if m[0].content == "hi"));
    let (_d, p) = fixture(
        "p.jsonl",
        "{\"timestamp_ms\": 1, \"input_lenght\": 100, \"output_length\": 20}\n",
    );
    let e = read(&p, Format::Plateau).unwrap_err().to_string();
    assert!(
        e.contains("p.jsonl:1:") && e.contains("input_lenght"),
        "{e}"
    );
    let (_d, p) = fixture("p.jsonl", "{\"timestamp_ms\": 1, \"output_length\": 20}\n");
    let e = read(&p, Format::Plateau).unwrap_err().to_string();
    assert!(e.contains("exactly one of `input_length`"), "{e}");
}

#[test]
fn convert_round_trips_through_the_native_format() {
    let (_d, p) = fixture(
        "m.jsonl",
        "{\"timestamp\": 100, \"input_length\": 1000, \"output_length\": 5, \"hash_ids\": [1, 2]}\n\
         {\"timestamp\": 600, \"input_length\": 700, \"output_length\": 9, \"hash_ids\": [1, 3], \"session_id\": \"x\"}\n",
    );
    let records = read(&p, Format::Mooncake).unwrap();
    let mut out = Vec::new();
    write(&records, &mut out, &p).unwrap();
    let (_d2, q) = fixture("n.jsonl", std::str::from_utf8(&out).unwrap());
    let back = read(&q, Format::Plateau).unwrap();
    assert_eq!(back.len(), 2);
    for (a, b) in records.iter().zip(&back) {
        assert_eq!(
            (
                &a.timestamp_ms,
                &a.input,
                a.output_length,
                &a.hash_ids,
                &a.session_id
            ),
            (
                &b.timestamp_ms,
                &b.input,
                b.output_length,
                &b.hash_ids,
                &b.session_id
            )
        );
    }
}

fn rec(t: f64, len: u32, ids: &[u64]) -> Record {
    Record {
        line: 1,
        timestamp_ms: Some(t),
        input: Input::Length(len),
        output_length: 4,
        hash_ids: ids.to_vec(),
        session_id: None,
        turn: None,
        delay_ms: None,
        model: None,
    }
}

#[test]
fn ideal_prefix_share_counts_blocks_whose_prefix_was_sent_before() {
    // Blocks of 10: request 2 reuses [1] (10 tokens) but not [1,3] as a chain [1,2] was
    // seen only; request 3 reuses [1,2] fully (20) and its partial third block [1,2,9] is
    // new. Reused 30 of 25 + 25 + 25.
    let records = [
        rec(0.0, 25, &[1, 2, 4]),
        rec(1.0, 25, &[1, 3, 5]),
        rec(2.0, 25, &[1, 2, 9]),
    ];
    let share = ideal_prefix_share(&records, 10).unwrap();
    assert!((share - 30.0 / 75.0).abs() < 1e-12, "{share}");
    // A chain that differs in its first id shares nothing, even with equal later ids.
    let records = [rec(0.0, 20, &[1, 2]), rec(1.0, 20, &[3, 2])];
    assert_eq!(ideal_prefix_share(&records, 10).unwrap(), 0.0);
    assert!(ideal_prefix_share(&[rec(0.0, 20, &[])], 10).is_err());
}

#[test]
fn stats_count_arrivals_per_bucket_and_lengths() {
    let records: Vec<Record> = (0..10)
        .map(|i| rec(f64::from(i) * 500.0, 100 + i, &[]))
        .collect();
    let s = stats(&records, 1.0, 512);
    assert_eq!(s.requests, 10);
    assert_eq!(s.duration_s, Some(4.5));
    let counts: Vec<u64> = s.rate.iter().map(|b| b.requests).collect();
    assert_eq!(counts, vec![2, 2, 2, 2, 2]);
    assert_eq!(s.input_tokens.as_ref().unwrap().max, 109.0);
    assert_eq!(s.ideal_prefix_share, None);
    assert_eq!(
        s.prefix_share_absent.as_deref(),
        Some("the trace has no hash_ids")
    );
}
