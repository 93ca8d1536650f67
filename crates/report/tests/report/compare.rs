//! `compare` and the multi-directory report on the clean fixture split in two runs (vllm's
//! cells and sglang's): values read back equal the summaries', cells match by scenario and
//! load, unmatched cells are listed, a run against an identical copy finds nothing, and
//! `render` with several directories draws them side by side without writing into them.

use std::fs;
use std::path::{Path, PathBuf};

use plateau_model::results::dir::ResultsDir;
use plateau_report::Options;
use plateau_report::compare::analyze::Verdict;
use plateau_report::compare::{self, Comparison};

use crate::common::scratch;
use crate::fixtures;
use crate::tree::copy_tree;

/// `root/<name>` holding the clean fixture's run.json and only `endpoint`'s cells.
fn only(root: &Path, name: &str, endpoint: &str) -> PathBuf {
    let dir = root.join(name);
    let clean = fixtures::path("clean");
    copy_tree(&clean.join(endpoint), &dir.join(endpoint));
    fs::copy(clean.join("run.json"), dir.join("run.json")).unwrap();
    dir
}

fn run(dirs: Vec<PathBuf>, out: &Path) -> compare::Output {
    compare::compare(&compare::Options::new(dirs, out)).unwrap()
}

fn rows<'a>(c: &'a Comparison, place: &str) -> &'a [compare::analyze::Row] {
    &c.cells.iter().find(|x| x.place == place).unwrap().rows
}

#[test]
fn compare_reads_the_summaries_values_and_matches_by_scenario_and_load() {
    let root = scratch("compare-split");
    let a = only(&root, "vllm-run", "vllm");
    let b = only(&root, "sglang-run", "sglang");
    fs::remove_dir_all(b.join("sglang/llama-8b/B2/c4")).unwrap();
    let out = run(vec![a.clone(), b.clone()], &root.join("cmp"));
    let c = &out.comparisons[0];
    assert_eq!(c.by, compare::runs::MatchBy::ScenarioLoad);
    assert_eq!(
        (c.baseline.as_str(), c.candidate.as_str()),
        ("vllm-run", "sglang-run")
    );
    let places: Vec<&str> = c.cells.iter().map(|x| x.place.as_str()).collect();
    assert_eq!(places, ["A1/c1", "A1/c2", "A1/c4", "B2/c1", "B2/c2"]);
    assert_eq!(c.only_baseline, ["vllm/llama-8b/B2/c4"]);
    assert!(c.only_candidate.is_empty());

    // Each side's value is the one its summary.json holds (the same samples through the
    // core's percentile), for every metric the summary has.
    let (da, db) = (ResultsDir::read(&a).unwrap(), ResultsDir::read(&b).unwrap());
    let summary = |d: &ResultsDir, scenario: &str, n: u32| {
        d.summaries()
            .find(|s| s.cell.scenario == scenario && s.cell.load.concurrency == Some(n))
            .unwrap()
            .clone()
    };
    for (place, scenario, n) in [("A1/c1", "A1", 1), ("B2/c2", "B2", 2)] {
        let (sa, sb) = (summary(&da, scenario, n), summary(&db, scenario, n));
        for r in rows(c, place) {
            let q = r.metric.q;
            let want = |s| (q.read)(s).map(|x| x.value);
            let close = |got: Option<f64>, want: Option<f64>| match (got, want) {
                (Some(g), Some(w)) => (g - w).abs() <= 1e-9 * w.abs().max(1.0),
                (g, w) => g == w,
            };
            assert!(close(r.baseline, want(&sa)), "{place} {}: {:?}", q.label, r);
            assert!(
                close(r.candidate, want(&sb)),
                "{place} {}: {:?}",
                q.label,
                r
            );
            if let (Some(d), Some([lo, hi])) = (r.diff(), r.ci) {
                assert!(lo <= hi, "{r:?}");
                // A significant verdict always agrees with the sign and the direction.
                match r.verdict {
                    Verdict::Worse | Verdict::Better => {
                        assert!(lo > 0.0 || hi < 0.0, "{r:?}");
                        assert!(r.p_holm.unwrap() < 0.05 && r.p_holm >= r.p, "{r:?}");
                        let up = d > 0.0;
                        let higher = q.better == plateau_report::quantity::Better::Higher;
                        assert_eq!(r.verdict == Verdict::Better, up == higher, "{r:?}");
                    }
                    _ => {}
                }
            }
        }
    }
    let csv = fs::read_to_string(&out.csv).unwrap();
    let lines = csv.lines().count();
    let rows_total: usize = c.cells.iter().map(|x| x.rows.len()).sum();
    assert_eq!(lines, rows_total + 1, "{csv}");
    assert!(
        csv.starts_with("baseline_run,candidate_run,scenario_load,"),
        "{csv}"
    );
    let md = fs::read_to_string(&out.markdown).unwrap();
    assert!(
        md.contains("Only in the baseline: vllm/llama-8b/B2/c4"),
        "{md}"
    );
    // The sources are read, never written.
    assert!(!a.join("report.html").exists() && !b.join("compare.csv").exists());
}

#[test]
fn compare_of_a_run_against_its_copy_finds_no_difference() {
    let root = scratch("compare-copy");
    let a = root.join("first");
    let b = root.join("second");
    copy_tree(&fixtures::path("clean"), &a);
    copy_tree(&fixtures::path("clean"), &b);
    // A second repeat of vllm A1 N=1 on both sides, in the directory layout of `repeats`.
    for dir in [&a, &b] {
        let cell = dir.join("vllm/llama-8b/A1");
        copy_tree(&cell.join("c1"), &cell.join("c1-2"));
        let path = cell.join("c1-2/summary.json");
        let mut summary: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        summary["cell"]["repeat"] = 2.into();
        std::fs::write(&path, serde_json::to_vec_pretty(&summary).unwrap()).unwrap();
    }
    let out = run(vec![a, b], &root.join("cmp"));
    let c = &out.comparisons[0];
    assert_eq!(c.by, compare::runs::MatchBy::Cell);
    assert_eq!(c.cells.len(), 12);
    let repeated = c
        .cells
        .iter()
        .find(|x| x.baseline == "vllm/llama-8b/A1/c1")
        .unwrap();
    assert_eq!(repeated.repeats, [2, 2]);
    let tps = repeated
        .rows
        .iter()
        .find(|r| r.metric.q.label == "server throughput")
        .unwrap();
    assert_eq!(tps.test, "Welch t over repeats");
    assert!(c.cells.iter().filter(|x| x.repeats == [1, 1]).count() == 11);
    for r in c.cells.iter().flat_map(|x| &x.rows) {
        // Identical samples: every difference is exactly 0 and every p-value exactly 1
        // (U at its mean; equal per-second series; equal proportions).
        assert_eq!(r.diff(), Some(0.0), "{r:?}");
        assert_eq!(r.p, Some(1.0), "{r:?}");
        assert_eq!(r.verdict, Verdict::Same, "{r:?}");
    }
}

#[test]
fn report_draws_several_directories_side_by_side() {
    let root = scratch("report-several");
    let a = root.join("run-a");
    let b = root.join("run-b");
    copy_tree(&fixtures::path("clean"), &a);
    copy_tree(&fixtures::path("clean"), &b);
    let mut opts = Options::new(&a, root.join("figures"));
    opts.more_dirs = vec![b.clone()];
    opts.out_dir = Some(root.join("out"));
    let out = plateau_report::render(&opts).unwrap();
    assert_eq!(out.cells, 24);
    assert_eq!(out.html, root.join("out/report.html"));
    let csv = fs::read_to_string(&out.csv).unwrap();
    for endpoint in ["run-a/vllm", "run-a/sglang", "run-b/vllm", "run-b/sglang"] {
        let n = csv
            .lines()
            .filter(|l| l.starts_with(&format!("{endpoint},")))
            .count();
        assert_eq!(n, 6, "{endpoint} in\n{csv}");
    }
    let html = fs::read_to_string(&out.html).unwrap();
    assert!(html.contains("run-a/vllm") && html.contains("run-b/sglang"));
    // Findings of each source, named by its directory.
    assert!(
        out.findings
            .iter()
            .all(|f| f.cell.starts_with("run-a/") || f.cell.starts_with("run-b/")),
        "{:?}",
        out.findings
    );
    for dir in [&a, &b] {
        assert!(!dir.join("report.html").exists() && !dir.join("summary.md").exists());
    }
    assert!(root.join("figures/ttft_vs_concurrency.png").is_file());
}
