//! Load shards on the common timetable (`--start-at`): every runner begins every phase of
//! every cell at the instant computed from the config, and plans whose phases each runner
//! would decide for itself are refused.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{Sim, assert_finished, json, run, temp, tiny_config};
use crate::shard::{into, merge};

/// `plateau run --shard i/2 --shard-by load --start-at START --cell-gap 1` with `extra`.
fn timetabled(config: &Path, dir: &Path, i: usize, start_at: &str, extra: &[&str]) -> Command {
    let shard = format!("{i}/2");
    let mut args = vec![
        "--shard",
        &shard,
        "--shard-by",
        "load",
        "--start-at",
        start_at,
        "--cell-gap",
        "1",
        "--quiet",
    ];
    args.extend_from_slice(extra);
    into(config, dir, &args)
}

/// Two load shards, two cells: each runner begins cell k at start + gap + k x (Fill +
/// Stabilize + Measure + Drain limit + gap) by its wall clock and every phase within a
/// bound of its instant; a plan whose phases each runner would decide for itself is
/// refused before anything runs.
#[test]
fn load_shards_begin_every_phase_of_every_cell_on_one_timetable() {
    let tmp = temp("shard-timetable");
    let server = Sim::start();
    let config = tiny_config(
        tmp.path(),
        serde_json::json!({
            "endpoints": [{"name": "sim", "engine": "sim", "url": server.url}],
            "batch_sizes": [2, 4],
            "fill_seconds": 0.2, "stabilize_seconds": 0.3, "measure_seconds": 1,
            "drain_seconds": 1,
        }),
    );
    let start = chrono::Utc::now() + chrono::Duration::seconds(3);
    let start_at = start.to_rfc3339();
    let dirs: Vec<PathBuf> = (0..2).map(|i| tmp.path().join(format!("s{i}"))).collect();
    let children: Vec<_> = dirs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let mut cmd = timetabled(&config, d, i, &start_at, &[]);
            cmd.stderr(std::process::Stdio::piped()).spawn().unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_finished(
            out.status.code().unwrap_or(-1),
            &String::from_utf8_lossy(&out.stderr),
        );
    }
    for dir in &dirs {
        let t = &json(&dir.join("run.json"))["shard"]["timetable"];
        assert_eq!(
            (t["gap_us"].as_u64(), t["cell_us"].as_u64()),
            (Some(1_000_000), Some(2_500_000))
        );
        for (k, cell) in ["sim/m/A1/c2", "sim/m/A1/c4"].iter().enumerate() {
            let s = json(&dir.join(cell).join("summary.json"));
            let due = start + chrono::Duration::milliseconds(1_000 + 3_500 * k as i64);
            let scheduled: chrono::DateTime<chrono::Utc> = s["timetable"]["scheduled_start"]
                .as_str()
                .unwrap()
                .parse()
                .unwrap();
            assert_eq!(scheduled, due, "{cell} in {}", dir.display());
            // The bound merge is given here (see `merge`).
            for phase in ["fill", "stabilize", "measure", "drain"] {
                let off = s["timetable"]["offsets_us"][phase].as_i64().unwrap();
                assert!(
                    off.abs() < 50_000,
                    "{cell} {phase} {off} us off in {}",
                    dir.display()
                );
            }
        }
    }
    let merged = tmp.path().join("merged");
    let (code, out, err) = merge(&[&dirs[0], &dirs[1]], &merged);
    assert_eq!(code, 0, "{out}{err}");
    let m = json(&merged.join("sim/m/A1/c4/summary.json"));
    assert!(
        m["shards"][1]["offsets_us"]["measure"].is_i64(),
        "{}",
        m["shards"]
    );
    for (set, why) in [
        (
            r#"phases="adaptive""#,
            "adaptive phases end when each runner's own data says so",
        ),
        (
            "drain_seconds=null",
            "the Drain limit is derived by each runner",
        ),
    ] {
        let mut cmd = timetabled(
            &config,
            &tmp.path().join("refused"),
            0,
            &start_at,
            &["--set", set, "--dry-run"],
        );
        let (code, _, err) = run(&mut cmd);
        assert_eq!(code, 2, "{set}: {err}");
        assert!(err.contains(why), "{set}: {err}");
    }
}
