//! The ShareGPT normaliser on a fixture in the upstream shape, and files it must refuse.

use super::*;
use crate::data::sharegpt;
use plateau_testkit::plan::temp_dir;

/// Five conversations in the upstream file's exact shape (the V3 split's keys, pretty
/// printed as upstream is): two that open with a human message answered by gpt, one that
/// opens with gpt, one with a single turn and one whose question is blank.
const UPSTREAM: &str = r#"[
  {
    "id": "QWJhYvA_0",
    "conversations": [
      {"from": "human", "value": "Summarize the main ideas of Jeff Walker's Product Launch Formula."},
      {"from": "gpt", "value": "Here are the main ideas of Jeff Walker's Product Launch Formula:\n\n1. Pre-launch."},
      {"from": "human", "value": "Thanks."},
      {"from": "gpt", "value": "You're welcome."}
    ]
  },
  {"id": "i6IyJda_0", "conversations": [{"from": "gpt", "value": "Hello! How can I help?"}, {"from": "human", "value": "hi"}]},
  {"id": "A5AbcES_0", "conversations": [{"from": "human", "value": "Only a question, never answered"}]},
  {"id": "blank_0", "conversations": [{"from": "human", "value": "  "}, {"from": "gpt", "value": "Empty?"}]},
  {
    "id": "hRQUNs2_0",
    "conversations": [
      {"from": "human", "value": "Write a haiku about \"rust\" \u2014 the language."},
      {"from": "gpt", "value": "Borrow checker hums\nlifetimes fold like paper cranes\nno data races"}
    ]
  }
]"#;

#[test]
fn keeps_each_first_question_and_its_answer() {
    let tmp = temp_dir("sharegpt-normalise");
    let dir = tmp.path();
    let raw = dir.join("ShareGPT_V3_unfiltered_cleaned_split.json");
    std::fs::write(&raw, UPSTREAM).unwrap();
    let out = dir.join(sharegpt::FILE);
    assert_eq!(normalise(&raw, &out).unwrap(), 2);
    let pairs = sharegpt::read(&out).unwrap();
    assert_eq!(
        pairs,
        vec![
            PairRecord {
                id: "QWJhYvA_0".into(),
                prompt: "Summarize the main ideas of Jeff Walker's Product Launch Formula.".into(),
                reply: "Here are the main ideas of Jeff Walker's Product Launch Formula:\n\n1. Pre-launch."
                    .into(),
            },
            PairRecord {
                id: "hRQUNs2_0".into(),
                prompt: "Write a haiku about \"rust\" \u{2014} the language.".into(),
                reply: "Borrow checker hums\nlifetimes fold like paper cranes\nno data races".into(),
            },
        ]
    );
}

#[test]
fn a_file_that_is_not_sharegpt_is_an_error_naming_it() {
    let tmp = temp_dir("sharegpt-bad");
    let dir = tmp.path();
    let out = dir.join(sharegpt::FILE);
    for (name, text, want) in [
        (
            "object.json",
            r#"{"id": "x"}"#,
            "expected a JSON array of ShareGPT conversations",
        ),
        (
            "truncated.json",
            r#"[{"id": "x", "conversations": [{"from": "hu"#,
            "record 0",
        ),
        (
            "none.json",
            r#"[{"id": "x", "conversations": []}]"#,
            "no conversation opens with a human message answered by gpt",
        ),
    ] {
        let raw = dir.join(name);
        std::fs::write(&raw, text).unwrap();
        let err = normalise(&raw, &out).unwrap_err().to_string();
        assert!(err.contains(name) && err.contains(want), "{name}: {err}");
        assert!(!out.exists(), "{name}: no half-written output");
    }
}
