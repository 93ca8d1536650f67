//! plateau run from anywhere: from an empty folder it runs the built-in default config with
//! the built-in scenarios, keeps datasets and caches in the XDG folders (HOME and XDG_*
//! pointed into a temp dir here); inside the checkout it uses the checkout's folders; a
//! `scenarios/` folder beside the user's config overrides and extends the built-ins.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{assert_finished, json, root, run, temp};

/// `plateau <args>` in `cwd`, with HOME and the XDG folders under `home` (XDG_* only when
/// `xdg`), and no cache override.
fn plateau_in(cwd: &Path, home: &Path, xdg: bool, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_plateau"));
    cmd.current_dir(cwd)
        .args(args)
        .env("HOME", home.join("home"))
        .env_remove("PLATEAU_CACHE_DIR")
        .env_remove("XDG_DATA_HOME")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("RUST_LOG");
    if xdg {
        cmd.env("XDG_DATA_HOME", home.join("data"))
            .env("XDG_CACHE_HOME", home.join("cache"));
    }
    cmd
}

/// The corpus cache files in `dir`.
fn cached(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default()
}

/// A dry run of B2 (whose dataset is never in a temp dir) in `cwd`: its stderr.
fn dry_run_b2(cwd: &Path, home: &Path, xdg: bool) -> String {
    let (code, out, err) = run(&mut plateau_in(
        cwd,
        home,
        xdg,
        &["run", "--dry-run", "--set", "scenarios=[B2]"],
    ));
    assert_eq!(code, 0, "{out}{err}");
    err
}

#[test]
fn from_an_empty_folder_the_built_in_default_runs_with_xdg_folders() {
    let tmp = temp("anywhere");
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let (code, out, err) = run(&mut plateau_in(
        &empty,
        tmp.path(),
        true,
        &[
            "run",
            "--set",
            "scenarios=[A1,B2]",
            "--set",
            "batch_sizes=[1]",
            "--set",
            "fill_seconds=0.2",
            "--set",
            "stabilize_seconds=0.5",
            "--set",
            "measure_seconds=2",
        ],
    ));
    assert_finished(code, &format!("{out}{err}"));
    assert!(
        err.contains("no benchmark_config.json here: running the built-in default"),
        "{err}"
    );
    assert!(!err.contains("scenario folder"), "{err}");
    let datasets = tmp.path().join("data/plateau/datasets");
    assert!(
        err.contains(&format!(
            "B2: LongBench-v2 not found at {}",
            datasets.join("longbench/contexts.jsonl").display()
        )),
        "{err}"
    );
    assert!(
        !cached(&tmp.path().join("cache/plateau")).is_empty(),
        "the corpus cache goes to $XDG_CACHE_HOME/plateau"
    );
    let results = empty.join("results/default");
    let launched = &json(&results.join("run.json"))["invocations"][0];
    assert_eq!(launched["config_file"], "benchmark_config.json (built in)");
    assert!(launched["plateau_commit"].is_string(), "{launched}");
    for cell in ["A1/c1", "B2/c1"] {
        assert!(
            results
                .join("sim/sim-8b")
                .join(cell)
                .join("summary.json")
                .is_file()
        );
    }

    let (code, out, err) = run(&mut plateau_in(&empty, tmp.path(), true, &["report"]));
    assert_eq!(code, 0, "{out}{err}");
    assert!(results.join("report.html").is_file());
    let (code, out, err) = run(&mut plateau_in(&empty, tmp.path(), true, &["validate"]));
    assert!(code == 0 || code == 1, "{out}{err}");
    assert!(out.contains("sim/sim-8b/A1/c1"), "{out}");
}

#[test]
fn without_xdg_variables_data_and_cache_go_under_home() {
    let tmp = temp("anywhere-home");
    let err = dry_run_b2(tmp.path(), tmp.path(), false);
    let home = tmp.path().join("home");
    let expected = home.join(".local/share/plateau/datasets/longbench/contexts.jsonl");
    assert!(
        err.contains(&format!("not found at {}", expected.display())),
        "{err}"
    );
    assert!(!cached(&home.join(".cache/plateau")).is_empty());
}

#[test]
fn an_empty_cache_dir_variable_turns_the_cache_off() {
    let tmp = temp("anywhere-nocache");
    let mut cmd = plateau_in(
        tmp.path(),
        tmp.path(),
        true,
        &["run", "--dry-run", "--set", "scenarios=[A1]"],
    );
    let (code, out, err) = run(cmd.env("PLATEAU_CACHE_DIR", ""));
    assert_eq!(code, 0, "{out}{err}");
    assert!(cached(&tmp.path().join("cache/plateau")).is_empty());
}

#[test]
fn inside_the_checkout_its_own_folders_are_used() {
    let tmp = temp("anywhere-checkout");
    // crates/ has no benchmark_config.json: the built-in default, the checkout's folders.
    let err = dry_run_b2(&root().join("crates"), tmp.path(), true);
    let theirs = root().join("datasets/longbench/contexts.jsonl");
    // Fetched or not, B2 reads the checkout's datasets/, never the XDG folder.
    if theirs.is_file() {
        assert!(!err.contains("LongBench-v2 not found"), "{err}");
    } else {
        assert!(
            err.contains(&format!("not found at {}", theirs.display())),
            "{err}"
        );
    }
    assert!(!err.contains(&tmp.path().display().to_string()), "{err}");
}

#[test]
fn a_scenarios_folder_here_overrides_and_extends_the_built_in_ones() {
    let tmp = temp("anywhere-init");
    let dir = tmp.path().join("bench");
    let (code, out, err) = run(&mut plateau_in(
        tmp.path(),
        tmp.path(),
        true,
        &["init", "bench", "--scenarios"],
    ));
    assert_eq!(code, 0, "{out}{err}");
    let dry = |set: &str| {
        run(&mut plateau_in(
            &dir,
            tmp.path(),
            true,
            &["run", "--dry-run", "--set", set],
        ))
    };
    // The custom example init wrote is a scenario of this folder only.
    let (code, out, err) = dry("scenarios=[A1,custom-example]");
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = run(&mut plateau_in(
        tmp.path(),
        tmp.path(),
        true,
        &["run", "--dry-run", "--set", "scenarios=[custom-example]"],
    ));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no scenario `custom-example`"), "{err}");
    // An edited definition here replaces the built-in one (and its errors name this file).
    let a1 = dir.join("scenarios/A1.json");
    let text = std::fs::read_to_string(&a1).unwrap();
    std::fs::write(
        &a1,
        text.replace("\"input_tokens\": 50", "\"input_tokens\": 0"),
    )
    .unwrap();
    let (code, out, err) = dry("scenarios=[A1]");
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains(&a1.display().to_string()), "{err}");
}

#[test]
fn a_scenarios_dir_that_is_not_a_folder_is_bad_input() {
    let tmp = temp("anywhere-baddir");
    let (code, _, err) = run(&mut plateau_in(
        tmp.path(),
        tmp.path(),
        true,
        &["run", "--dry-run", "--set", "scenarios_dir=nowhere"],
    ));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--set scenarios_dir=nowhere: scenarios_dir: nowhere is not a folder"),
        "{err}"
    );
}
