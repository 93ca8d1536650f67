//! For each scenario, 1,000 prompts from 8 slots of one cell: the property that defines the
//! scenario, and every prompt's length within 5% of its target in the configured tokenizer.
//! Run with `--nocapture` to see the measured length errors.

use std::collections::HashSet;

use plateau_core::workload::{Message, Prompt, Role, WorkloadFactory};
use plateau_scenarios::Catalog;
use plateau_scenarios::rng::stream_rng;
use plateau_scenarios::text::words::sentence;
use serde_json::json;

use crate::common::{cell, config, datasets, measured, plan, tokenizer};

const SLOTS: u32 = 8;
const PROMPTS: usize = 1_000;

/// 1,000 prompts of `id` as `(slot, prompt, reply)`, slots taking turns; multi-turn sessions
/// hear a generated reply after each prompt.
fn generate(extra: serde_json::Value, id: &str) -> (Vec<(u32, Prompt, String)>, bool) {
    let cfg = config(&[id], extra);
    let catalog = Catalog::load(&cfg, tokenizer()).unwrap();
    let w = catalog.workload(&plan(&cfg), &cell(id, SLOTS)).unwrap();
    let mut sessions: Vec<_> = (0..SLOTS).map(|s| w.session(s)).collect();
    let mut rng = stream_rng(5, "replies");
    let mut out = Vec::new();
    for i in 0..PROMPTS {
        let slot = (i % SLOTS as usize) as u32;
        let p = sessions[slot as usize].next();
        let reply = format!("{} {}", sentence(&mut rng), sentence(&mut rng));
        sessions[slot as usize].reply(Some(&reply));
        out.push((slot, p, reply));
    }
    (out, w.info().synthetic)
}

/// Every prompt within 5% of its target; prints the error.
fn lengths_within_5_percent(id: &str, prompts: &[(u32, Prompt, String)]) {
    let t = tokenizer();
    let (mut max, mut sum) = (0.0f64, 0.0f64);
    for (_, p, _) in prompts {
        let target = f64::from(p.target_tokens.expect("every prompt has a target"));
        let err = (measured(&t, p) as f64 - target).abs() / target;
        assert!(
            err <= 0.05,
            "{id}: {} tokens for a target of {target}",
            measured(&t, p)
        );
        max = max.max(err);
        sum += err;
    }
    let targets: Vec<u32> = prompts
        .iter()
        .filter_map(|(_, p, _)| p.target_tokens)
        .collect();
    let mean_target = targets.iter().map(|&t| f64::from(t)).sum::<f64>() / targets.len() as f64;
    println!(
        "{id:<4} {} prompts, mean target {mean_target:7.1} tokens: length error mean {:.2}% max {:.2}%",
        prompts.len(),
        100.0 * sum / prompts.len() as f64,
        100.0 * max
    );
}

fn first_16(p: &Prompt) -> Vec<u32> {
    let ids = tokenizer().encode(&p.messages.last().unwrap().content);
    ids[..16.min(ids.len())].to_vec()
}

#[test]
fn a1_a2_send_identical_prompts() {
    for id in ["A1", "A2"] {
        let (prompts, synthetic) = generate(json!({}), id);
        assert!(!synthetic);
        assert!(prompts.iter().all(|(_, p, _)| p == &prompts[0].1), "{id}");
        lengths_within_5_percent(id, &prompts);
    }
}

#[test]
fn b1_b2_prompts_never_share_their_first_16_tokens() {
    let tmp = datasets("props-b");
    let dir = tmp.path();
    for (id, extra, synthetic) in [
        ("B1", json!({}), false),
        ("B2", json!({"datasets_dir": dir}), false),
        ("B2", json!({}), true),
    ] {
        let (prompts, was_synthetic) = generate(extra, id);
        assert_eq!(was_synthetic, synthetic, "{id}");
        let heads: HashSet<Vec<u32>> = prompts.iter().map(|(_, p, _)| first_16(p)).collect();
        assert_eq!(
            heads.len(),
            PROMPTS,
            "{id}: some prompts share their first 16 tokens"
        );
        if !synthetic {
            assert!(prompts.iter().all(|(_, p, _)| id == "B1" || p.messages[0].content.contains("\n\nQuestion: ")));
        }
        lengths_within_5_percent(if synthetic { "B2*" } else { id }, &prompts);
    }
}

#[test]
fn c_shares_its_system_prompt_and_differs_after_it() {
    let (prompts, _) = generate(json!({}), "C");
    let system = &prompts[0].1.messages[0];
    assert_eq!(system.role, Role::System);
    assert!(
        prompts
            .iter()
            .all(|(_, p, _)| p.messages.len() == 2 && &p.messages[0] == system)
    );
    let queries: HashSet<&str> = prompts
        .iter()
        .map(|(_, p, _)| p.messages[1].content.as_str())
        .collect();
    assert_eq!(queries.len(), PROMPTS);
    let t = tokenizer();
    let n = plateau_core::tokens::TokenCounter::count(t.as_ref(), &system.content);
    assert!((1_900..=2_100).contains(&n), "system prompt of {n} tokens");
    lengths_within_5_percent("C", &prompts);
}

/// Turn k+1's prompt is turn k's prompt, then the reply, then one user message.
fn check_history(id: &str, prompts: &[(u32, Prompt, String)], server_replies: bool) {
    let mut continued = 0;
    for slot in 0..SLOTS {
        let walk: Vec<&(u32, Prompt, String)> =
            prompts.iter().filter(|(s, _, _)| *s == slot).collect();
        assert_eq!(walk[0].1.turn, Some(0), "{id}: a slot starts at turn 0");
        for pair in walk.windows(2) {
            let ((_, prev, reply), (_, next, _)) = (pair[0], pair[1]);
            let (k, k1) = (prev.turn.unwrap(), next.turn.unwrap());
            if k1 == 0 {
                assert_eq!(next.messages.len(), 1, "{id}: a new conversation");
                continue;
            }
            assert_eq!(k1, k + 1, "{id}: turns go one at a time");
            let n = prev.messages.len();
            assert_eq!(
                &next.messages[..n],
                &prev.messages[..],
                "{id}: turn {k1} begins with turn {k}'s prompt"
            );
            assert_eq!(next.messages[n].role, Role::Assistant);
            if server_replies {
                assert_eq!(
                    next.messages[n],
                    Message::new(Role::Assistant, reply.as_str()),
                    "{id}: then the server's reply"
                );
            }
            assert_eq!(next.messages[n + 1].role, Role::User);
            assert_eq!(next.messages.len(), n + 2);
            continued += 1;
        }
    }
    assert!(
        continued > PROMPTS / 2,
        "{id}: only {continued} continued turns"
    );
}

#[test]
fn d_turns_resend_the_history_and_the_reply() {
    let tmp = datasets("props-d");
    let dir = tmp.path();
    let (prompts, synthetic) = generate(json!({"datasets_dir": dir}), "D");
    assert!(!synthetic);
    check_history("D", &prompts, true);
    lengths_within_5_percent("D", &prompts);

    let opts = json!({"scenario_options": {"D": {"replies": "dataset"}}});
    let (prompts, synthetic) = generate(opts, "D");
    assert!(synthetic);
    check_history("D*", &prompts, false);
    lengths_within_5_percent("D*", &prompts);
}

#[test]
fn the_shipped_custom_example_runs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let (prompts, _) = generate(json!({"scenarios_dir": dir}), "custom-example");
    assert!(
        prompts
            .iter()
            .all(|(_, p, _)| p.messages.last().unwrap().role == Role::User)
    );
    lengths_within_5_percent("custom-example", &prompts);
}
