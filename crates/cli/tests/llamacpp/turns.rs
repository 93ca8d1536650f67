//! A later turn against a first turn at equal context on llama.cpp: a plateau-format trace
//! of sessions whose turn k (from 0) is k + 1 blocks of 512 tokens sharing the previous
//! turn's blocks, beside one-turn sessions of 5 fresh blocks. Turn 5 (index 4) and a fresh
//! first turn both send 2,560 tokens; the slot's prompt cache holds the first 2,048 of turn
//! 5, so its TTFT is well below the fresh turn's: under 60% of it (measured at N = 1: medians
//! 65 against 154 ms, 0.42). At N = 1, so no other prompt's prefill
//! shares the batch (at N = 4 a later turn waits behind fresh 2,560-token prefills: medians
//! 118 against 242 ms on a loaded machine). First passes only (a session replayed after the
//! window wraps, `<id>~<pass>`, finds everything cached).

use std::fs;
use std::path::Path;

use plateau_model::results::{self, REQUESTS_FILE};
use serde_json::json;

/// Sessions of each kind.
const SESSIONS: u32 = 4;
/// Turns of a growing session; the last one is compared.
const TURNS: u32 = 5;
const BLOCK: u32 = 512;
/// Turn 5's median TTFT must be under this share of the fresh turns'. It computes a fifth
/// of their prompt, but over the same 2,560-token context, and pays the same per-request
/// costs, so the ratio is well above 0.2.
const WELL_BELOW: f64 = 0.6;

/// The trace: growing sessions `s<i>` and fresh one-turn sessions `f<i>`, interleaved.
fn trace() -> String {
    let mut lines = Vec::new();
    for i in 0..SESSIONS {
        let base = 1000 * (i + 1);
        for k in 0..TURNS {
            let ids: Vec<u32> = (0..=k).map(|b| base + b).collect();
            lines.push(json!({"timestamp_ms": 2 * i, "session_id": format!("s{i}"), "turn": k,
                "input_length": BLOCK * (k + 1), "output_length": 4, "hash_ids": ids, "delay_ms": 0}));
        }
        let ids: Vec<u32> = (0..TURNS).map(|b| 900_000 + 100 * i + b).collect();
        lines.push(
            json!({"timestamp_ms": 2 * i + 1, "session_id": format!("f{i}"), "turn": 0,
            "input_length": BLOCK * TURNS, "output_length": 4, "hash_ids": ids}),
        );
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Runs the trace at N = 1 and checks turn 5 against the fresh first turns.
pub fn check(dir: &Path, server: &super::Server, tokenizer: &Path, failed: &mut Vec<String>) {
    let scenarios = dir.join("scenarios");
    fs::create_dir_all(&scenarios).unwrap();
    fs::write(scenarios.join("turns.jsonl"), trace()).unwrap();
    let definition = json!({"id": "T", "name": "turns", "description": "turn 5 against turn 1",
        "kind": "trace", "trace": {"format": "plateau", "path": "turns.jsonl", "block_tokens": BLOCK}});
    fs::write(scenarios.join("T.json"), definition.to_string()).unwrap();
    let load = json!({"scenarios": ["T"], "batch_sizes": [1], "scenarios_dir": scenarios});
    let config = super::config(dir, &server.url, tokenizer, "turns.json", load);
    super::run(&config, server);
    let path = dir.join(format!("results/llamacpp/tiny/T/c1/{REQUESTS_FILE}"));
    let samples = match results::read_samples(&path) {
        Ok(s) => s,
        Err(e) => return failed.push(format!("T: {e}")),
    };
    // (TTFT ms, server prompt tokens) of the first passes' turns of one kind.
    let of = |prefix: char, turn: u32| -> Vec<(f64, u32)> {
        samples
            .iter()
            .filter(|x| x.outcome.is_ok() && x.turn == Some(turn))
            .filter(|x| {
                x.session_id
                    .as_deref()
                    .is_some_and(|id| id.starts_with(prefix) && !id.contains('~'))
            })
            .filter_map(|x| {
                let ttft = x.t_first_us()?.checked_sub(x.t_sent_us)?;
                Some((ttft as f64 / 1000.0, x.n_in?))
            })
            .collect()
    };
    let (later, fresh) = (of('s', TURNS - 1), of('f', 0));
    eprintln!("T: turn {TURNS} (TTFT ms, prompt tokens) {later:?}; fresh first turns {fresh:?}");
    if later.len() != SESSIONS as usize || fresh.len() != SESSIONS as usize {
        return failed.push(format!(
            "T: expected {SESSIONS} of each, got {} turn-{TURNS} and {} fresh turns",
            later.len(),
            fresh.len()
        ));
    }
    let tokens = |v: &[(f64, u32)]| v.iter().map(|x| f64::from(x.1)).sum::<f64>() / v.len() as f64;
    let (a, b) = (tokens(&later), tokens(&fresh));
    if (a - b).abs() > 0.05 * b {
        failed.push(format!(
            "T: contexts differ: turn {TURNS} {a} tokens, fresh {b}"
        ));
    }
    let median = |v: &[(f64, u32)]| {
        let mut t: Vec<f64> = v.iter().map(|x| x.0).collect();
        t.sort_by(f64::total_cmp);
        (t[t.len() / 2 - 1] + t[t.len() / 2]) / 2.0
    };
    let (later, fresh) = (median(&later), median(&fresh));
    eprintln!("T: median TTFT turn {TURNS} {later:.2} ms, fresh first turn {fresh:.2} ms");
    if later >= WELL_BELOW * fresh {
        failed.push(format!(
            "T: turn {TURNS}'s TTFT {later:.2} ms is not well below ({WELL_BELOW} x) a fresh turn's \
             {fresh:.2} ms at equal context"
        ));
    }
}
