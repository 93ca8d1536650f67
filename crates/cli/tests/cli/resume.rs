//! `--resume` reuses a cell only when its results are complete and were measured with the
//! same inputs (its fingerprint); it redoes the rest, saying which and why, and run.json
//! keeps every invocation.

use crate::common::{
    Sim, assert_finished, json, plateau, run, run_config, run_resume, temp, tiny_config,
};

#[test]
fn resume_skips_finished_cells() {
    let tmp = temp("resume");
    let dir = tmp.path();
    let first = tiny_config(dir, serde_json::json!({"batch_sizes": [1]}));
    let (code, _, err) = run(&mut plateau(&["run", "--config", first.to_str().unwrap()]));
    assert_finished(code, &err);
    let c1 = dir.join("results/sim/m/A1/c1/summary.json");
    let before = std::fs::read(&c1).unwrap();

    let second = tiny_config(dir, serde_json::json!({"batch_sizes": [1, 2]}));
    let (code, out, err) = run_resume(&second);
    assert_finished(code, &err);
    assert!(err.contains("sim/m/A1/c1 (resumed)"), "{err}");
    assert!(!err.contains("redoing"), "{err}");
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
    let run_info = json(&dir.join("results/run.json"));
    assert_eq!(run_info["cells"][0]["state"], "resumed");
    assert_eq!(run_info["cells"][1]["state"], "complete");
    assert!(
        run_info["cells"][1].get("redone").is_none(),
        "never ran before"
    );
}

#[test]
fn resume_redoes_a_cell_after_max_tokens_changed() {
    let tmp = temp("resume-max-tokens");
    let dir = tmp.path();
    let first = tiny_config(
        dir,
        serde_json::json!({"batch_sizes": [1], "max_tokens": 8}),
    );
    let (code, _, err) = run(&mut plateau(&["run", "--config", first.to_str().unwrap()]));
    assert_finished(code, &err);

    let second = tiny_config(
        dir,
        serde_json::json!({"batch_sizes": [1], "max_tokens": 16}),
    );
    let (code, _, err) = run_resume(&second);
    assert_finished(code, &err);
    assert!(
        err.contains("redoing sim/m/A1/c1: max_tokens 8 -> 16"),
        "{err}"
    );
    assert!(!err.contains("(resumed)"), "{err}");
    let summary = json(&dir.join("results/sim/m/A1/c1/summary.json"));
    assert_eq!(summary["cell"]["max_tokens"], 16);
    assert_eq!(summary["fingerprint"]["inputs"]["max_tokens"], 16);
    let run_info = json(&dir.join("results/run.json"));
    assert_eq!(run_info["cells"][0]["state"], "complete");
    assert_eq!(run_info["cells"][0]["redone"], "max_tokens 8 -> 16");
}

#[test]
fn resume_redoes_a_cell_after_the_url_or_extra_body_changed() {
    let tmp = temp("resume-url");
    let dir = tmp.path();
    let (a, b) = (Sim::start(), Sim::start());
    let config = |url: &str, extra_body: serde_json::Value| {
        tiny_config(
            dir,
            serde_json::json!({"batch_sizes": [1], "endpoints": [
                {"name": "gpu", "engine": "vllm", "url": url, "extra_body": extra_body}]}),
        )
    };
    let resume = |config: std::path::PathBuf| {
        let (code, _, err) = run_resume(&config);
        assert_finished(code, &err);
        err
    };
    resume(config(&a.url, serde_json::json!({})));

    let err = resume(config(&b.url, serde_json::json!({})));
    let expected = format!("redoing gpu/m/A1/c1: url {} -> {}", a.url, b.url);
    assert!(err.contains(&expected), "{err}");
    let summary = json(&dir.join("results/gpu/m/A1/c1/summary.json"));
    assert_eq!(summary["cell"]["url"], b.url.as_str());

    let err = resume(config(&b.url, serde_json::json!({"temperature": 0.5})));
    assert!(
        err.contains("redoing gpu/m/A1/c1: extra_body.temperature (absent) -> 0.5"),
        "{err}"
    );

    let err = resume(config(&b.url, serde_json::json!({"temperature": 0.5})));
    assert!(err.contains("gpu/m/A1/c1 (resumed)"), "{err}");
}

#[test]
fn resume_redoes_unfinished_failed_and_unfingerprinted_cells_and_keeps_invocations() {
    let tmp = temp("resume-redo");
    let dir = tmp.path();
    let config = tiny_config(dir, serde_json::json!({"batch_sizes": [1, 2, 3]}));
    let (code, _, err) = run(&mut plateau(&["run", "--config", config.to_str().unwrap()]));
    assert_finished(code, &err);
    let cell = |n: u32| dir.join(format!("results/sim/m/A1/c{n}/summary.json"));
    let edit = |n: u32, change: &dyn Fn(&mut serde_json::Value)| {
        let mut s = json(&cell(n));
        change(&mut s);
        std::fs::write(cell(n), serde_json::to_vec_pretty(&s).unwrap()).unwrap();
    };
    edit(1, &|s| s["status"] = "interrupted".into());
    edit(2, &|s| {
        s["requests"]["measured_ok"] = 0.into();
        s["requests"]["measured_errors"] = s["requests"]["measured"].clone();
    });
    edit(3, &|s| {
        s.as_object_mut().unwrap().remove("fingerprint");
    });

    let (code, _, err) = run_resume(&config);
    assert_finished(code, &err);
    assert!(
        err.contains("redoing sim/m/A1/c1: status was interrupted"),
        "{err}"
    );
    assert!(
        err.contains("redoing sim/m/A1/c2: no measured request succeeded"),
        "{err}"
    );
    assert!(
        err.contains("redoing sim/m/A1/c3: no fingerprint (written by an older plateau)"),
        "{err}"
    );
    for n in 1..=3 {
        let s = json(&cell(n));
        assert_eq!(s["status"], "complete");
        assert!(s["fingerprint"]["hash"].is_string());
    }

    let run_info = json(&dir.join("results/run.json"));
    let invocations = run_info["invocations"].as_array().unwrap();
    assert_eq!(invocations.len(), 2, "{run_info}");
    assert_eq!(invocations[0]["resume"], false);
    assert_eq!(invocations[1]["resume"], true);
    for i in invocations {
        assert_eq!(i["status"], "complete");
        assert!(i["ended_at"].as_str().unwrap() > i["started_at"].as_str().unwrap());
        assert!(i["config_file"].as_str().unwrap().ends_with("config.json"));
    }
    assert_eq!(run_info["started_at"], invocations[0]["started_at"]);
    assert_eq!(run_info["ended_at"], invocations[1]["ended_at"]);
    assert_eq!(run_info["status"], "complete");

    let (code, _, err) = run(&mut plateau(&["run", "--config", config.to_str().unwrap()]));
    assert_finished(code, &err);
    let run_info = json(&dir.join("results/run.json"));
    assert_eq!(
        run_info["invocations"].as_array().unwrap().len(),
        1,
        "a run without --resume starts over"
    );
}

#[test]
fn redo_unsteady_reruns_only_the_unsteady_cells() {
    let tmp = temp("resume-redo");
    let dir = tmp.path();
    let config = tiny_config(dir, serde_json::json!({"batch_sizes": [1, 2]}));
    let (code, _, err) = run(&mut plateau(&["run", "--config", config.to_str().unwrap()]));
    assert_finished(code, &err);
    // Mark c1 unsteady as a noisy window would have left it; c2 stays as measured.
    let c1 = dir.join("results/sim/m/A1/c1/summary.json");
    let mut summary = json(&c1);
    summary["steady"]["steady"] = false.into();
    summary["steady"]["reasons"] = serde_json::json!(["block cv 0.41 > 0.25"]);
    std::fs::write(&c1, serde_json::to_vec(&summary).unwrap()).unwrap();
    // c2 steady whatever a busy machine made of it.
    let c2 = dir.join("results/sim/m/A1/c2/summary.json");
    let mut summary = json(&c2);
    summary["steady"]["steady"] = true.into();
    summary["steady"]["reasons"] = serde_json::json!([]);
    std::fs::write(&c2, serde_json::to_vec(&summary).unwrap()).unwrap();
    let c2_before = std::fs::read(&c2).unwrap();

    let (code, _, err) = run_config(&config, &["--resume", "--redo", "unsteady"]);
    assert_finished(code, &err);
    assert!(
        err.contains("redoing sim/m/A1/c1: it was unsteady (--redo unsteady)"),
        "{err}"
    );
    assert!(err.contains("sim/m/A1/c2 (resumed)"), "{err}");
    assert_eq!(std::fs::read(&c2).unwrap(), c2_before, "c2 was not rerun");
    let run_info = json(&dir.join("results/run.json"));
    assert_eq!(
        run_info["cells"][0]["redone"],
        "it was unsteady (--redo unsteady)"
    );
    assert_eq!(run_info["cells"][1]["state"], "resumed");
    // --redo means nothing without --resume.
    let (code, _, err) = run_config(&config, &["--redo", "failed"]);
    assert_eq!(code, 2, "{err}");
}
