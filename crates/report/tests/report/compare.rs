//! `compare` and the multi-directory report on the clean fixture split in two runs (vllm's
//! cells and sglang's): values read back equal the summaries', small-sample percentiles are
//! flagged as the summaries flag them, cells match by scenario and load, unmatched cells are
//! listed, a run against an identical copy finds nothing, the baseline comes first and the
//! candidates in the order given, and `render` with several directories draws them side by
//! side without writing into them.

use std::fs;
use std::path::{Path, PathBuf};

use plateau_model::results::dir::ResultsDir;
use plateau_report::Options;
use plateau_report::compare::analyze::Verdict;
use plateau_report::compare::{self, Comparison};
use plateau_report::matrix;

use crate::common::{add_repeat, runs, scratch};
use crate::fixtures;
use plateau_testkit::tree::copy_tree;

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
    let tmp = scratch("compare-split");
    let root = tmp.path();
    let a = only(root, "vllm-run", "vllm");
    let b = only(root, "sglang-run", "sglang");
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
            if let (Some(d), Some(t)) = (r.diff(), r.test) {
                let [lo, hi] = t.ci;
                assert!(lo <= hi, "{r:?}");
                // A significant verdict always agrees with the sign and the direction.
                match r.verdict {
                    Verdict::Worse | Verdict::Better => {
                        assert!(lo > 0.0 || hi < 0.0, "{r:?}");
                        assert!(t.p_adjusted < 0.05 && t.p_adjusted >= t.p, "{r:?}");
                        let up = d > 0.0;
                        let higher = q.better == plateau_report::quantity::Better::Higher;
                        assert_eq!(r.verdict == Verdict::Better, up == higher, "{r:?}");
                    }
                    _ => {}
                }
            }
        }
    }
    // Which side's percentile rests on too few samples, as each summary.json flags it (a
    // fixture cell has 17 to 86 measured requests: every p99 is flagged, a p50 only below
    // 20 requests).
    let flagged = |d: &Path, rel: &str, field: &str| -> bool {
        let json: serde_json::Value =
            plateau_model::results::read_json(&d.join(rel).join("summary.json")).unwrap();
        let (dist, p) = field.rsplit_once('.').unwrap();
        json[dist]["small_sample"]
            .as_array()
            .is_some_and(|l| l.iter().any(|x| x == p))
    };
    let mut small = [0, 0];
    for cell in &c.cells {
        for r in &cell.rows {
            let f = r.metric.q.field;
            let want = [
                flagged(&a, &cell.baseline, f),
                flagged(&b, &cell.candidate, f),
            ];
            assert_eq!(r.small_sample, want, "{} {f}", cell.place);
            small[usize::from(r.small())] += 1;
        }
    }
    // 13 rows a cell (no SLO: no goodput). Flagged: TTFT, TPOT, ITL and E2E p99 of the 5
    // cells, and the TTFT, TPOT and E2E p50 of B2/c1 (17 requests on each side).
    assert_eq!(small, [65 - 23, 5 * 4 + 3], "[not flagged, flagged] rows");

    let csv = fs::read_to_string(&out.csv).unwrap();
    let lines = csv.lines().count();
    let rows_total: usize = c.cells.iter().map(|x| x.rows.len()).sum();
    assert_eq!(lines, rows_total + 1, "{csv}");
    assert!(
        csv.starts_with("baseline_run,candidate_run,scenario_load,"),
        "{csv}"
    );
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let flags: Vec<(String, String)> = csv
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[col("baseline_small_sample")].to_owned(),
                f[col("candidate_small_sample")].to_owned(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = c
        .cells
        .iter()
        .flat_map(|x| &x.rows)
        .map(|r| (r.small_sample[0].to_string(), r.small_sample[1].to_string()))
        .collect();
    assert_eq!(flags, want);
    let md = fs::read_to_string(&out.markdown).unwrap();
    assert!(
        md.contains("Only in the baseline: vllm/llama-8b/B2/c4"),
        "{md}"
    );
    // The marker on both sides of a flagged row, none on an unflagged one, and its legend.
    assert!(md.contains(compare::write::SMALL_SAMPLE_NOTE), "{md}");
    let line = |metric: &str| {
        md.lines()
            .find(|l| l.starts_with(&format!("| {metric} |")))
            .unwrap()
    };
    assert_eq!(line("TTFT p99 (ms)").matches('†').count(), 2, "{md}");
    assert!(!line("TTFT p50 (ms)").contains('†'), "{md}");
    let html = fs::read_to_string(&out.html).unwrap();
    assert!(
        html.contains("<td class=\"small\">"),
        "flagged values are italic"
    );
    // The sources are read, never written.
    assert!(!a.join("report.html").exists() && !b.join("compare.csv").exists());
}

#[test]
fn compare_of_a_run_against_its_copy_finds_no_difference() {
    let tmp = scratch("compare-copy");
    let root = tmp.path();
    let [a, b] = runs(root, [("first", "clean"), ("second", "clean")]);
    // A second repeat of vllm A1 N=1 on both sides, in the directory layout of `repeats`.
    for dir in [&a, &b] {
        add_repeat(dir);
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
    // The fixture's 4 s windows are too short for the bootstrap's 5 blocks a side; the
    // repeated cell has 8 a side.
    assert!(tps.test.is_some(), "{tps:?}");
    assert!(c.cells.iter().filter(|x| x.repeats == [1, 1]).count() == 11);
    for r in c.cells.iter().flat_map(|x| &x.rows) {
        // Identical samples: every difference is exactly 0, and no interval excludes it.
        assert_eq!(r.diff(), Some(0.0), "{r:?}");
        assert!(
            matches!(r.verdict, Verdict::Same | Verdict::Untested),
            "{r:?}"
        );
        if let Some(t) = r.test {
            assert!(
                t.ci[0] <= 0.0 && t.ci[1] >= 0.0 && t.p_adjusted >= 0.05,
                "{r:?}"
            );
        }
    }
}

#[test]
fn report_draws_several_directories_side_by_side() {
    let tmp = scratch("report-several");
    let root = tmp.path();
    let [a, b] = runs(root, [("run-a", "clean"), ("run-b", "clean")]);
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

#[test]
fn compare_orders_the_baseline_first_then_the_candidates_as_given() {
    // Named so that sorting by label would put the baseline last.
    let tmp = scratch("compare-order");
    let root = tmp.path();
    let zeta = only(root, "zeta", "vllm");
    let beta = only(root, "beta", "sglang");
    let alpha = only(root, "alpha", "vllm");
    let dirs = vec![zeta.clone(), beta.clone(), alpha.clone()];
    let out = run(dirs.clone(), &root.join("cmp"));
    let candidates: Vec<&str> = out
        .comparisons
        .iter()
        .map(|c| c.candidate.as_str())
        .collect();
    assert_eq!(candidates, ["beta", "alpha"]);

    // compare.csv: the baseline in the first column, every row of a candidate before the
    // next candidate's, in the order given.
    let csv = fs::read_to_string(&out.csv).unwrap();
    let mut runs: Vec<(&str, &str)> = csv
        .lines()
        .skip(1)
        .map(|l| {
            let mut f = l.split(',');
            (f.next().unwrap(), f.next().unwrap())
        })
        .collect();
    runs.dedup();
    assert_eq!(runs, [("zeta", "beta"), ("zeta", "alpha")]);

    // Each cell's line names the baseline first.
    let md = fs::read_to_string(&out.markdown).unwrap();
    assert!(
        md.contains("baseline vllm/llama-8b/A1/c1 (×1), candidate sglang/llama-8b/A1/c1 (×1)"),
        "{md}"
    );

    // The figures' series (and so their colours) and legends: zeta, beta, alpha.
    let read: Vec<ResultsDir> = dirs.iter().map(|d| ResultsDir::read(d).unwrap()).collect();
    let labelled: Vec<(String, &ResultsDir)> = ["zeta", "beta", "alpha"]
        .iter()
        .map(|l| (*l).to_owned())
        .zip(&read)
        .collect();
    let merged = matrix::merge(&labelled, matrix::Naming::ByRun);
    let m = matrix::Matrix::new(&merged);
    let want = ["zeta (vllm)", "beta (sglang)", "alpha (vllm)"];
    let series: Vec<&str> = m.series.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(series, want);
    assert_eq!(
        m.subtitle(),
        "model llama-8b (meta-llama/Llama-3.1-8B-Instruct) · engines zeta (vllm), beta (sglang), alpha (vllm)"
    );
    let svg =
        fs::read_to_string(root.join("cmp/figures/server_throughput_vs_concurrency.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let legend: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(str::trim))
        .filter(|t| want.contains(t))
        .collect();
    assert_eq!(legend, want);
}
