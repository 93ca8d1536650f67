//! Claiming a results directory: one run at a time, a dead run's lock taken over, someone
//! else's directory refused, and no file plateau did not write overwritten.

use super::*;

fn temp() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("plateau-claim-")
        .tempdir()
        .unwrap()
}

fn cells() -> Vec<String> {
    vec!["sim/m/A1/c1".into(), "sim/m/A1/c2".into()]
}

#[test]
fn a_second_claim_is_refused_naming_the_holder() {
    let tmp = temp();
    let dir = tmp.path().join("results");
    let first = claim(&dir, false, &cells()).unwrap();
    assert_eq!(first.stale, None);
    let err = claim(&dir, false, &cells()).unwrap_err().to_string();
    let pid = std::process::id();
    assert!(
        err.starts_with(&format!(
            "{}: in use by plateau pid {pid} on ",
            dir.display()
        )),
        "{err}"
    );
    assert!(
        err.ends_with("; wait for that run to end, or write to another output_dir"),
        "{err}"
    );
    drop(first);
    let again = claim(&dir, false, &cells()).unwrap();
    assert_eq!(
        again.stale, None,
        "a run that ended cleanly leaves no holder"
    );
}

#[test]
fn a_lock_left_by_a_dead_run_is_taken_over_and_named() {
    let tmp = temp();
    let dir = tmp.path();
    let dead = Holder {
        pid: 4_000_000,
        host: "gpu-box".into(),
        started_at: "2025-01-02T03:04:05Z".parse().unwrap(),
    };
    fs::write(dir.join(LOCK_FILE), serde_json::to_vec(&dead).unwrap()).unwrap();
    let c = claim(dir, false, &cells()).unwrap();
    assert_eq!(
        c.stale.as_deref(),
        Some("plateau pid 4000000 on gpu-box, started 2025-01-02T03:04:05Z")
    );
    let now: Holder = serde_json::from_slice(&fs::read(dir.join(LOCK_FILE)).unwrap()).unwrap();
    assert_eq!(now.pid, std::process::id());
}

#[test]
fn a_foreign_directory_is_refused_unless_forced_and_never_overwritten() {
    let tmp = temp();
    let dir = tmp.path();
    fs::write(dir.join(RUN_FILE), b"{\"mine\": true}\n").unwrap();
    fs::write(dir.join(CSV_FILE), b"a,b\n1,2\n").unwrap();
    fs::write(dir.join("notes.txt"), b"x").unwrap();
    let err = claim(dir, false, &cells()).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "{}: not a plateau results directory, and not empty (it holds notes.txt, \
             run.json, summary.csv); plateau writes only into an empty directory or one of its \
             own: pick another output_dir, or pass --force to write beside these files \
             (plateau never overwrites a file it did not write)",
            dir.display()
        )
    );
    let err = claim(dir, true, &cells()).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "{}: the run would overwrite run.json, summary.csv, which plateau did not write; \
             plateau never overwrites a file it did not write: move them, or pick another \
             output_dir",
            dir.display()
        )
    );
    assert!(!dir.join(LOCK_FILE).exists(), "nothing written on refusal");
    fs::remove_file(dir.join(RUN_FILE)).unwrap();
    fs::remove_file(dir.join(CSV_FILE)).unwrap();
    fs::create_dir(dir.join("sim")).unwrap();
    let err = claim(dir, true, &cells()).unwrap_err().to_string();
    assert!(err.contains("the run would overwrite sim, which"), "{err}");
    fs::remove_dir(dir.join("sim")).unwrap();
    let c = claim(dir, true, &cells()).unwrap();
    drop(c);
    assert_eq!(fs::read(dir.join("notes.txt")).unwrap(), b"x");
    // Now plateau's: no --force needed.
    claim(dir, false, &cells()).unwrap();
}

#[test]
fn in_its_own_directory_plateau_still_overwrites_only_its_own_files() {
    let tmp = temp();
    let dir = tmp.path();
    drop(claim(dir, false, &cells()).unwrap());
    fs::write(
        dir.join(RUN_FILE),
        b"{\n  \"plateau_version\": \"0.1.0\",\n  \"status\": \"complete\"\n}\n",
    )
    .unwrap();
    fs::write(
        dir.join(CSV_FILE),
        format!("{}concurrency\n", crate::results::csv::header_start()),
    )
    .unwrap();
    fs::create_dir_all(dir.join("sim/m/A1/c2")).unwrap();
    fs::write(dir.join("sim/m/A1/c2/summary.json"), b"{\"mine\": 1}").unwrap();
    let err = claim(dir, false, &cells()).unwrap_err().to_string();
    assert!(
        err.contains(
            "the run would overwrite sim/m/A1/c2/summary.json, which plateau did not write"
        ),
        "{err}"
    );
    fs::remove_file(dir.join("sim/m/A1/c2/summary.json")).unwrap();
    claim(dir, false, &cells()).unwrap();
}

#[test]
fn a_directory_with_plateaus_run_json_is_plateaus() {
    let tmp = temp();
    let dir = tmp.path();
    fs::write(dir.join(RUN_FILE), b"{\"plateau_version\": \"0.0.9\"}").unwrap();
    fs::write(dir.join("old.log"), b"x").unwrap();
    claim(dir, false, &cells()).unwrap();
}
