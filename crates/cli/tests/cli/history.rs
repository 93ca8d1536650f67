//! `plateau history` and `plateau check` on simulator runs with known truth: four short
//! runs of the realistic simulator (seeds varied) go into a history with `run --history`;
//! a run with the same engine passes the gate against the three before it (exit 0), one
//! whose decode step is 5% slower exits 1 naming TPOT and server throughput; adding a run
//! twice changes nothing; label filters select; a damaged database is refused with exit 2
//! and nothing already recorded is lost.

use std::path::Path;

use crate::common::{plateau, run, temp, tiny_config};

/// A short run of the realistic simulator, seed `seed`, decode step times x `scale`,
/// recorded in `db` with label `step=<seed>`; the results go to `results<seed>`.
fn sim_run(dir: &Path, db: &Path, seed: u64, scale: f64) -> String {
    let config = tiny_config(
        dir,
        serde_json::json!({
            "endpoints": [{"name": "sim", "engine": "sim", "sim": {"profile": "realistic", "seed": seed,
                "engine": {"decode_base_ms": 8.0 * scale, "decode_per_seq_ms": 0.5 * scale}}}],
            "batch_sizes": [4],
            "fill_seconds": 0.5, "stabilize_seconds": 1, "measure_seconds": 6,
            "max_tokens": 32,
            "output_dir": dir.join(format!("results{seed}")),
            "check": {"server_tps": "-3%", "tpot_p50": "+3%"}
        }),
    );
    let (code, out, err) = run(&mut plateau(&[
        "run",
        "--config",
        config.to_str().unwrap(),
        "--history",
        "--db",
        db.to_str().unwrap(),
        "--label",
        &format!("step={seed}"),
    ]));
    assert!(code == 0 || code == 1, "{out}\n{err}");
    assert!(out.contains("recorded"), "{out}");
    dir.join(format!("results{seed}")).display().to_string()
}

#[test]
fn the_gate_passes_noise_and_catches_a_five_percent_decode_slowdown() {
    let tmp = temp("history");
    let dir = tmp.path();
    let db = dir.join("h.sqlite");
    let dbs = db.to_str().unwrap();
    let runs: Vec<String> = (1..=4).map(|s| sim_run(dir, &db, s, 1.0)).collect();
    let slow = sim_run(dir, &db, 5, 1.05);

    // The same run again: nothing changes.
    let (code, out, _) = run(&mut plateau(&["history", "--db", dbs, "add", &runs[1]]));
    assert_eq!(code, 0);
    assert!(out.contains("already recorded as run 2"), "{out}");
    let (_, out, _) = run(&mut plateau(&["history", "--db", dbs, "list", "step=3"]));
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("step=3") && out.contains("results3"), "{out}");

    // Run 4 against runs 1-3 (pooled): no change, exit 0.
    let (code, out, err) = run(&mut plateau(&[
        "check",
        &runs[3],
        "--db",
        dbs,
        "--against",
        "last 3",
    ]));
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.starts_with("**PASS**") && out.contains("3 baseline run(s)"),
        "{out}"
    );

    // The slow run against runs 2-4: TPOT and throughput regressed, exit 1.
    let md = dir.join("check.md");
    let (code, out, err) = run(&mut plateau(&[
        "check",
        &slow,
        "--db",
        dbs,
        "--against",
        "last 3",
        "--markdown",
        md.to_str().unwrap(),
    ]));
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.starts_with("**REGRESSED (2 number(s)"), "{out}");
    let regressed: Vec<&str> = out
        .lines()
        .filter(|l| l.ends_with("| REGRESSED |"))
        .collect();
    assert_eq!(regressed.len(), 2, "{out}");
    assert!(
        regressed.iter().any(|l| l.contains("| TPOT p50 |")),
        "{out}"
    );
    assert!(
        regressed
            .iter()
            .any(|l| l.contains("| server throughput |")),
        "{out}"
    );
    assert_eq!(std::fs::read_to_string(&md).unwrap(), out);

    // A tolerance wider than the step: worse, significantly, but within it: exit 0.
    let (code, out, _) = run(&mut plateau(&[
        "check",
        &slow,
        "--db",
        dbs,
        "--against",
        "4",
        "--tolerance",
        "tpot_p50=+20%",
    ]));
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("worse, within tolerance"), "{out}");

    bad_input_is_exit_2(&slow, dbs);
    a_damaged_database_is_refused_and_left_as_it_was(&db, &runs[0]);
}

/// Bad input to `check`: exit 2 with the reason.
fn bad_input_is_exit_2(slow: &str, dbs: &str) {
    for (args, says) in [
        (vec!["--against", "engine"], "expected key=value"),
        (vec!["--against", "99"], "no run 99"),
        (vec!["--against", "step=nope"], "no baseline"),
        (
            vec!["--against", "1", "--tolerance", "server_tps=+3%"],
            "check.server_tps",
        ),
    ] {
        let mut all = vec!["check", slow, "--db", dbs];
        all.extend(args);
        let (code, _, err) = run(&mut plateau(&all));
        assert_eq!(code, 2, "{all:?}: {err}");
        assert!(err.contains(says), "{all:?}: {err}");
    }
}

/// A damaged database: exit 2, the file left as it was.
fn a_damaged_database_is_refused_and_left_as_it_was(db: &Path, results: &str) {
    let dbs = db.to_str().unwrap();
    let mut bytes = std::fs::read(db).unwrap();
    let len = bytes.len();
    bytes[100..len].fill(0xA5);
    std::fs::write(db, &bytes).unwrap();
    let (code, _, err) = run(&mut plateau(&["history", "--db", dbs, "add", results]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is not a readable plateau history"), "{err}");
    assert_eq!(std::fs::read(db).unwrap(), bytes);
}
