//! The catalog: unknown ids, dataset fallback with warnings, normalised datasets read,
//! reproducible per-cell seeds, custom scenarios from files.

use std::io::Write;

use plateau_core::workload::Role;
use serde_json::json;

use super::*;
use crate::data::longbench::ContextRecord;
use crate::data::oasst2::{Author, NodeRecord, TreeRecord};
use crate::rng::stream_rng;
use crate::text::words::prose;
use plateau_testkit::plan::{cell, config, plan, temp_dir};

fn tokenizer() -> Arc<Tokenizer> {
    Arc::new(Tokenizer::embedded_cl100k())
}

fn prompts(
    c: &Catalog,
    plan: &Plan,
    scenario: &str,
    n: u32,
    slot: u32,
    count: usize,
) -> Vec<plateau_core::workload::Prompt> {
    let w = c.workload(plan, &cell(scenario, n)).unwrap();
    let mut s = w.session(slot);
    (0..count).map(|_| s.next()).collect()
}

#[test]
fn unknown_scenario_ids_are_named_with_the_known_ones() {
    let err = Catalog::load(&config(&["A1", "A3"], json!({})), tokenizer())
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "scenarios[1]: no scenario `A3`; known: A1, A2, B1, B2, C, D, E, S"
    );
}

#[test]
fn missing_datasets_fall_back_to_built_in_text_with_warnings() {
    let cfg = config(&["B2", "D"], json!({}));
    let c = Catalog::load(&cfg, tokenizer()).unwrap();
    let w = c.warnings().join("\n");
    assert!(
        w.contains("B2: LongBench-v2 not found at /nonexistent/datasets/longbench/contexts.jsonl"),
        "{w}"
    );
    assert!(w.contains("run `plateau fetch-datasets longbench`"), "{w}");
    assert!(w.contains("D: oasst2 not found"), "{w}");
    let p = plan(&cfg);
    for id in ["B2", "D"] {
        let info = c.workload(&p, &cell(id, 4)).unwrap().info();
        assert!(info.synthetic, "{id}");
        assert!(info.source.starts_with("built-in text"), "{}", info.source);
    }
}

#[test]
fn prompts_depend_on_seed_scenario_and_concurrency_only() {
    let cfg = config(&["B1"], json!({}));
    let (a, b) = (
        Catalog::load(&cfg, tokenizer()).unwrap(),
        Catalog::load(&cfg, tokenizer()).unwrap(),
    );
    let p = plan(&cfg);
    assert_eq!(
        prompts(&a, &p, "B1", 4, 1, 5),
        prompts(&b, &p, "B1", 4, 1, 5)
    );
    assert_ne!(
        prompts(&a, &p, "B1", 4, 1, 5),
        prompts(&a, &p, "B1", 8, 1, 5)
    );
    let other = plan(&config(&["B1"], json!({"seed": 9})));
    assert_ne!(
        prompts(&a, &p, "B1", 4, 1, 5),
        prompts(&a, &other, "B1", 4, 1, 5)
    );
}

#[test]
fn fetched_datasets_are_read() {
    let tmp = temp_dir("catalog-datasets");
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("longbench")).unwrap();
    std::fs::create_dir_all(dir.join("oasst2")).unwrap();
    let mut f = std::fs::File::create(dir.join("longbench/contexts.jsonl")).unwrap();
    for i in 0..3 {
        let r = ContextRecord {
            id: format!("id{i}"),
            domain: "d".into(),
            length: "short".into(),
            question: format!("Which tower is number {i}?"),
            context: prose(&mut stream_rng(i, "lb"), 30_000),
        };
        writeln!(f, "{}", serde_json::to_string(&r).unwrap()).unwrap();
    }
    let node = |parent, role, text: &str| NodeRecord {
        parent,
        role,
        rank: Some(0),
        text: text.into(),
    };
    let tree = |id: &str, lang: &str| TreeRecord {
        id: id.into(),
        lang: lang.into(),
        nodes: vec![
            node(None, Author::User, "How do I bake bread?"),
            node(
                Some(0),
                Author::Assistant,
                "Mix flour, water, salt and yeast.",
            ),
            node(Some(1), Author::User, "How long should it rise?"),
            node(Some(2), Author::Assistant, "About an hour."),
        ],
    };
    let trees = [tree("t-en", "en"), tree("t-de", "de")]
        .map(|t| serde_json::to_string(&t).unwrap())
        .join("\n");
    std::fs::write(dir.join("oasst2/trees.jsonl"), trees).unwrap();

    let cfg = config(
        &["B2", "D"],
        json!({"datasets_dir": dir, "scenario_options": {"D": {"replies": "dataset"}}}),
    );
    let c = Catalog::load(&cfg, tokenizer()).unwrap();
    assert!(
        !c.warnings().iter().any(|w| w.contains("not found at")),
        "{:?}",
        c.warnings()
    );
    let p = plan(&cfg);
    let b2 = prompts(&c, &p, "B2", 2, 0, 3);
    assert!(b2.iter().all(|p| {
        p.messages[0]
            .content
            .contains("\n\nQuestion: Which tower is number")
    }));
    let d = c.workload(&p, &cell("D", 1)).unwrap();
    assert!(!d.info().synthetic);
    assert!(
        d.info().source.starts_with("oasst2 conversation trees"),
        "{}",
        d.info().source
    );
    let mut s = d.session(0);
    let first = s.next();
    s.reply(Some("whatever"));
    let second = s.next();
    assert_eq!(first.messages[0].content, "How do I bake bread?");
    assert_eq!(
        second.messages[1].content,
        "Mix flour, water, salt and yeast."
    );
    assert_eq!(second.messages[2].role, Role::User);

    let bad = config(
        &["D"],
        json!({"datasets_dir": dir, "scenario_options": {"D": {"lang": ["fr"]}}}),
    );
    let err = Catalog::load(&bad, tokenizer()).unwrap_err().to_string();
    assert!(
        err.contains("no conversation in languages [\"fr\"] with at least 2 user turns"),
        "{err}"
    );
}

#[test]
fn custom_scenarios_come_from_files() {
    let tmp = temp_dir("catalog-custom");
    let dir = tmp.path();
    std::fs::write(dir.join("faq.json"), r#"{"id": "faq", "name": "FAQ", "description": "d", "kind": "custom", "source": "jsonl", "file": "faq.jsonl"}"#).unwrap();
    std::fs::write(
        dir.join("faq.jsonl"),
        "{\"prompt\": \"one two three\"}\n{\"prompt\": \"four\"}\n",
    )
    .unwrap();
    let cfg = config(&["faq"], json!({"scenarios_dir": dir}));
    let c = Catalog::load(&cfg, tokenizer()).unwrap();
    let got = prompts(&c, &plan(&cfg), "faq", 1, 0, 4);
    let mut texts: Vec<(String, Option<u32>)> = got
        .iter()
        .map(|p| (p.messages[0].content.clone(), p.target_tokens))
        .collect();
    texts.sort();
    assert_eq!(
        texts,
        [
            ("four".into(), Some(1)),
            ("four".into(), Some(1)),
            ("one two three".into(), Some(3)),
            ("one two three".into(), Some(3))
        ]
    );

    std::fs::write(
        dir.join("faq.jsonl"),
        "{\"prompt\": \"ok\"}\n{\"prompt\": 7}\n",
    )
    .unwrap();
    let err = Catalog::load(&cfg, tokenizer()).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!(
            "{}:2: invalid type",
            dir.join("faq.jsonl").display()
        )),
        "{err}"
    );
}

#[test]
fn every_prompt_carries_its_own_max_tokens() {
    let cfg = config(
        &["A1", "B1"],
        json!({"scenario_options": {"B1": {"max_tokens": {"dist": "uniform", "min": 10, "max": 20}}}}),
    );
    let c = Catalog::load(&cfg, tokenizer()).unwrap();
    let p = plan(&cfg);
    // A1 keeps the run's number (16 in the test config); B1 draws from its own setting.
    assert!(
        prompts(&c, &p, "A1", 4, 0, 20)
            .iter()
            .all(|q| q.max_tokens == Some(16))
    );
    let b1: Vec<u32> = prompts(&c, &p, "B1", 4, 0, 50)
        .iter()
        .map(|q| q.max_tokens.unwrap())
        .collect();
    assert!(b1.iter().all(|n| (10..=20).contains(n)), "{b1:?}");
    assert!(b1.iter().any(|&n| n != b1[0]), "{b1:?}");
    let info = c.workload(&p, &cell("B1", 4)).unwrap().info();
    assert_eq!(
        serde_json::to_value(info.output_tokens.unwrap().spec).unwrap(),
        json!({"dist": "uniform", "min": 10, "max": 20})
    );
    assert_eq!(c.output_tokens("A1").and_then(|o| o.fixed()), Some(16));
}

#[test]
fn bad_output_lengths_name_the_field() {
    for (extra, want) in [
        (
            json!({"max_tokens": {"dist": "dataset"}}),
            "max_tokens: {\"dist\": \"dataset\"} takes each request's length from its dataset reply, but scenario B1 (kind diverse) has no replies; expected fixed, uniform, normal or lognormal",
        ),
        (
            json!({"scenario_options": {"B1": {"max_tokens": {"dist": "dataset"}}}}),
            "scenario_options.B1.max_tokens: {\"dist\": \"dataset\"} takes each request's length",
        ),
        (
            json!({"scenario_options": {"B1": {"max_tokens": {"dist": "lognormal", "median": 50, "sigma": 7}}}}),
            "scenario_options.B1.max_tokens.sigma: got 7, expected from 0 to 5 (the spread of ln(length))",
        ),
        (
            json!({"scenario_options": {"B1": {"max_tokens": {"dist": "uniform", "min": 9}}}}),
            "scenario_options.B1.max_tokens: missing field `max`",
        ),
    ] {
        let err = Catalog::load(&config(&["B1"], extra.clone()), tokenizer())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(want), "{extra}: {err}");
    }
}
