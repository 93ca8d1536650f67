//! `--resume` skips cells whose complete results exist and runs the rest.

use crate::common::{plateau, run, temp, tiny_config};

#[test]
fn resume_skips_finished_cells() {
    let dir = temp("resume");
    let first = tiny_config(&dir, serde_json::json!({"batch_sizes": [1]}));
    let (code, _, err) = run(&mut plateau(&["run", "--config", first.to_str().unwrap()]));
    assert_eq!(code, 0, "{err}");
    let c1 = dir.join("results/sim/m/A1/c1/summary.json");
    let before = std::fs::read(&c1).unwrap();

    let second = tiny_config(&dir, serde_json::json!({"batch_sizes": [1, 2]}));
    let (code, out, err) = run(&mut plateau(&[
        "run",
        "--config",
        second.to_str().unwrap(),
        "--resume",
    ]));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("sim/m/A1/c1 (resumed)"), "{err}");
    assert_eq!(
        std::fs::read(&c1).unwrap(),
        before,
        "the finished cell was not rerun"
    );
    assert!(dir.join("results/sim/m/A1/c2/summary.json").is_file());
    assert!(
        out.contains("sim/m/A1/c1") && out.contains("sim/m/A1/c2"),
        "{out}"
    );
    let run_info: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("results/run.json")).unwrap()).unwrap();
    assert_eq!(run_info["cells"][0]["state"], "resumed");
    assert_eq!(run_info["cells"][1]["state"], "complete");
}
