//! The output directory is plateau's alone, one run at a time: a second run is refused
//! naming the first (exit 2), a lock a killed run left is taken over with a warning, a
//! directory holding someone else's files is refused unless `--force`, and no file plateau
//! did not write is ever overwritten, `--resume` included.

use std::time::{Duration, Instant};

use crate::common::{assert_finished, json, plateau, run, run_config, temp, tiny_config};

#[test]
fn someone_elses_directory_is_refused_and_never_overwritten() {
    let tmp = temp("foreign");
    let dir = tmp.path();
    let config = tiny_config(dir, serde_json::json!({"batch_sizes": [1]}));
    let results = dir.join("results");
    std::fs::create_dir_all(&results).unwrap();
    std::fs::write(results.join("run.json"), b"{\"mine\": true}\n").unwrap();
    std::fs::write(results.join("summary.csv"), b"a,b\n1,2\n").unwrap();
    let cfg = config.to_str().unwrap();
    for resume in [false, true] {
        let mut args = vec!["run", "--config", cfg, "--quiet"];
        if resume {
            args.push("--resume");
        }
        let (code, _, err) = run(&mut plateau(&args));
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("results: not a plateau results directory, and not empty (it holds run.json, summary.csv)"),
            "{err}"
        );
    }
    let (code, _, err) = run(&mut plateau(&[
        "run", "--config", cfg, "--quiet", "--force",
    ]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the run would overwrite run.json, summary.csv, which plateau did not write"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(results.join("run.json")).unwrap(),
        b"{\"mine\": true}\n"
    );
    assert_eq!(
        std::fs::read(results.join("summary.csv")).unwrap(),
        b"a,b\n1,2\n"
    );
    assert!(!results.join("sim").exists(), "nothing was run");

    // Beside other files, with --force, as long as none is in the way.
    std::fs::rename(results.join("run.json"), results.join("mine.json")).unwrap();
    std::fs::rename(results.join("summary.csv"), results.join("mine.csv")).unwrap();
    let (code, _, err) = run(&mut plateau(&[
        "run", "--config", cfg, "--quiet", "--force",
    ]));
    assert_finished(code, &err);
    assert_eq!(json(&results.join("run.json"))["status"], "complete");
    assert_eq!(
        std::fs::read(results.join("mine.json")).unwrap(),
        b"{\"mine\": true}\n"
    );
    // Now plateau's: the next run needs no --force.
    let (code, _, err) = run(&mut plateau(&[
        "run", "--config", cfg, "--quiet", "--resume",
    ]));
    assert_finished(code, &err);
}

#[test]
fn a_second_run_is_refused_naming_the_first_and_a_dead_runs_lock_is_taken_over() {
    let tmp = temp("locked");
    let dir = tmp.path();
    let config = tiny_config(dir, serde_json::json!({"measure_seconds": 60}));
    let cfg = config.to_str().unwrap();
    let mut first = plateau(&["run", "--config", cfg, "--quiet"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let cell = dir.join("results/sim/m/A1/c2");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !cell.join("requests.jsonl.gz.tmp").exists() {
        assert!(
            Instant::now() < deadline,
            "the first run never started its cell"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let (code, _, err) = run(&mut plateau(&[
        "run", "--config", cfg, "--quiet", "--resume",
    ]));
    assert_eq!(code, 2, "{err}");
    let holder = format!("results: in use by plateau pid {} on ", first.id());
    assert!(err.contains(&holder), "{err}");
    assert!(err.contains(", started 20"), "names the start time: {err}");
    assert!(
        err.trim_end()
            .ends_with("wait for that run to end, or write to another output_dir"),
        "{err}"
    );
    assert!(first.try_wait().unwrap().is_none(), "the first run goes on");

    // Killed outright, the first run leaves its pid in the lock: the next run takes over.
    first.kill().unwrap();
    first.wait().unwrap();
    let lock = std::fs::read_to_string(dir.join("results/.plateau.lock")).unwrap();
    assert!(lock.contains(&format!("\"pid\":{}", first.id())), "{lock}");
    let short = tiny_config(dir, serde_json::json!({}));
    let (code, _, err) = run_config(&short, &["--quiet"]);
    assert_finished(code, &err);
    assert!(
        err.contains(&format!(
            "results: taking over the lock of plateau pid {} on ",
            first.id()
        )) && err.contains("which is gone (it crashed or was killed)"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("results/.plateau.lock")).unwrap(),
        "",
        "a run that ended cleanly leaves no holder"
    );
}
