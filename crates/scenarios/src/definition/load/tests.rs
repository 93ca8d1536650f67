//! Definition loading: defaults, overrides, options, and the error of each kind of bad input.

use serde_json::json;

use super::*;
use crate::definition::{CustomFile, Kind, Paths, Replies, Source, Spec};
use plateau_testkit::plan::temp_dir;

fn options(v: Value) -> BTreeMap<String, Value> {
    serde_json::from_value(v).unwrap()
}

#[test]
fn defaults_load_without_a_folder() {
    let d = load(None, &BTreeMap::new()).unwrap();
    assert_eq!(
        d.scenarios.keys().collect::<Vec<_>>(),
        ["A1", "A2", "B1", "B2", "C", "D", "E", "S"]
    );
    assert_eq!(
        d.scenarios["A2"].spec,
        Spec::Identical { input_tokens: 2500 }
    );
    assert_eq!(
        d.scenarios["B2"].spec,
        Spec::Diverse {
            input_tokens: 2500,
            source: Source::Longbench
        }
    );
    assert_eq!(
        d.scenarios["C"].spec,
        Spec::SharedPrefix {
            system_tokens: 2000,
            input_tokens: 50
        }
    );
    let Spec::MultiTurn(dialog) = &d.scenarios["D"].spec else {
        panic!()
    };
    assert_eq!(
        (dialog.paths, dialog.replies, dialog.max_context_tokens),
        (Paths::Rank0, Replies::Server, 8192)
    );
}

#[test]
fn a_named_folder_that_is_missing_is_an_error() {
    let err = load(Some(Path::new("/nonexistent/scenarios")), &BTreeMap::new())
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "scenarios_dir: /nonexistent/scenarios is not a folder (it should hold scenario \
         definition files, `<id>.json`)"
    );
}

#[test]
fn options_override_and_are_checked_per_kind() {
    let dir = None;
    let d = load(
        dir,
        &options(
            json!({"D": {"lang": ["de"], "replies": "dataset"}, "B2": {"source": "built_in"}}),
        ),
    )
    .unwrap();
    let Spec::MultiTurn(dialog) = &d.scenarios["D"].spec else {
        panic!()
    };
    assert_eq!(
        (dialog.lang.clone(), dialog.replies),
        (vec!["de".to_owned()], Replies::Dataset)
    );
    assert_eq!(
        d.scenarios["B2"].spec,
        Spec::Diverse {
            input_tokens: 2500,
            source: Source::BuiltIn
        }
    );

    let cases = [
        (
            json!({"D": {"langg": ["en"]}}),
            "scenario_options.D.langg: unknown field `langg`",
        ),
        (
            json!({"D": {"lang": "en"}}),
            "scenario_options.D.lang: invalid type: string \"en\", expected a sequence",
        ),
        (
            json!({"D": {"paths": "best"}}),
            "scenario_options.D.paths: unknown variant `best`, expected `rank0` or `all`",
        ),
        (
            json!({"A1": {"lang": ["en"]}}),
            "scenario_options.A1.lang: does not apply to kind identical; its settings are: source, input_tokens, max_tokens",
        ),
        (
            json!({"A1": {"input_tokens": 0}}),
            "scenario_options.A1.input_tokens: expected a length of at least 1 token",
        ),
        (
            json!({"B1": {"source": "oasst2"}}),
            "scenario_options.B1.source: `oasst2` cannot feed kind diverse; expected built_in or longbench",
        ),
        (
            json!({"Z9": {}}),
            "scenario_options.Z9: no scenario `Z9`; known: A1, A2, B1, B2, C, D, E, S",
        ),
        (
            json!({"D": {"lang": []}}),
            "scenario_options.D.lang: expected a list of language codes",
        ),
    ];
    for (opts, expected) in cases {
        let err = load(dir, &options(opts)).unwrap_err().to_string();
        assert!(err.starts_with(expected), "{err}\n  expected: {expected}");
    }
}

#[test]
fn files_add_and_override_scenarios() {
    let tmp = temp_dir("defs-add");
    let dir = tmp.path();
    std::fs::write(dir.join("A1.json"), r#"{"id": "A1", "name": "Same Short", "description": "x", "kind": "identical", "input_tokens": 64}"#).unwrap();
    std::fs::write(dir.join("mine.json"), r#"{"id": "mine", "name": "Mine", "description": "y", "kind": "custom", "source": "jsonl", "file": "mine.jsonl"}"#).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a definition").unwrap();
    let d = load(Some(dir), &BTreeMap::new()).unwrap();
    assert_eq!(d.scenarios["A1"].spec, Spec::Identical { input_tokens: 64 });
    assert_eq!(d.scenarios["mine"].header.kind, Kind::Custom);
    assert_eq!(
        d.scenarios["mine"].spec,
        Spec::Custom(CustomFile {
            path: dir.join("mine.jsonl"),
            folder: dir.to_owned(),
            allow_outside: false,
            max_prompt_tokens: 1_000_000,
        })
    );
}

#[test]
fn bad_files_name_the_file_and_the_field() {
    let cases = [
        (
            "X.json",
            r#"{"id": "Y", "name": "n", "description": "d", "kind": "identical", "input_tokens": 5}"#,
            "`id`: `Y` must match the file name (`X.json`)",
        ),
        (
            "X.json",
            r#"{"id": "X", "name": "n", "description": "d", "kind": "identical"}"#,
            "`input_tokens` is required for kind identical",
        ),
        (
            "X.json",
            r#"{"id": "X", "name": "n", "description": "d", "kind": "identical", "input_tokens": 5, "colour": 1}"#,
            "`colour`: unknown field `colour`",
        ),
        (
            "X.json",
            r#"{"id": "X", "name": "n", "description": "d", "kind": "sideways"}"#,
            "`kind`: unknown variant `sideways`",
        ),
        (
            "X.json",
            r#"{"id": "X", "name": "n", "kind": "identical", "input_tokens": 5}"#,
            "`.`: missing field `description`",
        ),
        ("X.json", r#"[1, 2]"#, "expected a JSON object"),
        (
            "X.json",
            r#"{"id": "X", "name": "n", "description": "d", "kind": "custom"}"#,
            "`file` is required for kind custom",
        ),
    ];
    for (i, (name, text, expected)) in cases.into_iter().enumerate() {
        let tmp = temp_dir(&format!("defs-bad-{i}"));
        let dir = tmp.path();
        std::fs::write(dir.join(name), text).unwrap();
        let err = load(Some(dir), &BTreeMap::new()).unwrap_err().to_string();
        let prefix = format!("{}: {expected}", dir.join(name).display());
        assert!(err.starts_with(&prefix), "{err}\n  expected: {prefix}");
    }
}

#[test]
fn a_custom_file_stays_in_its_folder_unless_allowed_out() {
    let tmp = temp_dir("defs-outside");
    let dir = tmp.path();
    let def = |file: &str, extra: &str| {
        std::fs::write(
            dir.join("mine.json"),
            format!(r#"{{"id": "mine", "name": "Mine", "description": "y", "kind": "custom", "file": "{file}"{extra}}}"#),
        )
        .unwrap();
    };
    for file in [
        "../secrets.jsonl",
        "/etc/prompts.jsonl",
        "sub/../../x.jsonl",
    ] {
        def(file, "");
        let err = load(Some(dir), &BTreeMap::new()).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "{}: `file` `{file}` leads out of this scenario's folder ({}); a custom \
                 scenario reads its prompts from its own folder: move the file there, or set \
                 \"allow_outside\": true to read it where it is",
                dir.join("mine.json").display(),
                dir.display()
            )
        );
        def(file, r#", "allow_outside": true"#);
        let d = load(Some(dir), &BTreeMap::new()).unwrap();
        let Spec::Custom(f) = &d.scenarios["mine"].spec else {
            panic!()
        };
        assert!(f.allow_outside);
        assert_eq!(f.path, dir.join(file));
    }
    def("sub/./mine.jsonl", "");
    let d = load(Some(dir), &BTreeMap::new()).unwrap();
    assert!(matches!(&d.scenarios["mine"].spec, Spec::Custom(f) if !f.allow_outside));
    let err = load(
        Some(dir),
        &options(json!({"mine": {"file": "../up.jsonl"}})),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with(
            "scenario_options.mine.file: `../up.jsonl` leads out of this scenario's folder"
        ),
        "{err}"
    );
}
