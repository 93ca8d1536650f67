//! `plateau compare` end to end: three short runs of the in-process simulator at once (a
//! baseline, the same config and seed again, and a candidate whose decode step is 50% slower), then
//! one `plateau compare` of both candidates against the baseline, read back from
//! compare.csv.

use std::collections::BTreeMap;
use std::path::Path;

use plateau_testkit::tree::copy_tree;

use crate::common::{plateau, run, temp};

/// A run of A1 at N = 1 and 4 against the realistic simulator with decode step
/// `decode_base_ms`, endpoint `endpoint`, into `dir/<name>`.
fn bench(dir: &Path, name: &str, endpoint: &str, decode_base_ms: f64) {
    let config = serde_json::json!({
        "endpoints": [{"name": endpoint, "engine": "sim", "sim": {
            "profile": "realistic", "seed": 7, "engine": {"decode_base_ms": decode_base_ms}}}],
        "models": [{"id": "m", "name": "plateau-sim"}],
        "scenarios": ["A1"],
        "batch_sizes": [1, 4],
        "fill_seconds": 1, "stabilize_seconds": 1, "measure_seconds": 8, "drain_seconds": 5,
        "max_tokens": 32,
        "seed": 42,
        "output_dir": dir.join(name),
    });
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, serde_json::to_vec_pretty(&config).unwrap()).unwrap();
    let (code, stdout, stderr) =
        run(plateau(&["run", "-q", "--config", path.to_str().unwrap()]).current_dir(dir));
    // Exit 1 is a validation warning of a busy 2-core machine (client_bottleneck); the
    // cells are written either way and the comparison is what is under test.
    assert!(
        code == 0 || code == 1,
        "{name}: exit {code}\n{stdout}\n{stderr}"
    );
}

/// The baseline, its twin and the slower candidate, at once: each holds at most 4 requests
/// on its own simulator, so they wait far more than they compute, and the baseline and its
/// twin see the same machine.
fn three_runs(dir: &Path) {
    std::thread::scope(|s| {
        s.spawn(|| bench(dir, "base", "sim", 8.0));
        s.spawn(|| bench(dir, "same", "sim", 8.0));
        s.spawn(|| bench(dir, "slow", "slow-sim", 12.0));
    });
}

/// compare.csv as one map per row.
fn rows(csv: &str) -> Vec<BTreeMap<String, String>> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            header
                .iter()
                .zip(l.split(','))
                .map(|(h, v)| ((*h).to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

#[test]
fn compare_finds_the_slower_decode_and_no_difference_between_equal_runs() {
    let tmp = temp("compare");
    let dir = tmp.path();
    three_runs(dir);
    let (code, stdout, stderr) = run(plateau(&[
        "compare",
        dir.join("base").to_str().unwrap(),
        dir.join("same").to_str().unwrap(),
        dir.join("slow").to_str().unwrap(),
        "--out",
        dir.join("cmp").to_str().unwrap(),
    ])
    .current_dir(dir));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("same vs base: 2 matched cells"), "{stdout}");
    assert!(stdout.contains("slow vs base: 2 matched cells"), "{stdout}");

    let csv = std::fs::read_to_string(dir.join("cmp/compare.csv")).unwrap();
    let all = rows(&csv);
    let get = |cand: &str, place: &str, metric: &str| {
        all.iter()
            .find(|r| {
                r["candidate_run"] == cand && r["scenario_load"] == place && r["metric"] == metric
            })
            .unwrap_or_else(|| panic!("no row {cand} {place} {metric} in\n{csv}"))
    };
    let num = |r: &BTreeMap<String, String>, k: &str| -> f64 { r[k].parse().unwrap() };

    // The slower decode, matched by (scenario, load) although its endpoint is named
    // differently. The decode step goes from 8 + 0.25 N ms to 12 + 0.25 N ms: TPOT +48%
    // at N = 1 and +47% at N = 4, output throughput down by the same ratio (-32%). ±10
    // points of tolerance absorb the client's share of each gap on a loaded machine.
    for place in ["A1/c1", "A1/c4"] {
        let tpot = get("slow", place, "TPOT p50");
        assert_eq!(tpot["verdict"], "worse", "{place}: {tpot:?}");
        let pct = num(tpot, "diff_pct");
        assert!((38.0..=58.0).contains(&pct), "{place}: TPOT {pct}%");
        assert!(
            num(tpot, "ci_low") > 0.0 && num(tpot, "p_adjusted") < 0.05,
            "{tpot:?}"
        );
        let tps = get("slow", place, "server throughput");
        assert_eq!(tps["verdict"], "worse", "{place}: {tps:?}");
        let pct = num(tps, "diff_pct");
        assert!((-42.0..=-22.0).contains(&pct), "{place}: throughput {pct}%");
        assert!(num(tps, "ci_high") < 0.0, "{tps:?}");
        assert_eq!(get("slow", place, "E2E p50")["verdict"], "worse");
        // The error rate is 0 on both sides: tested, p = 1, no difference.
        let err = get("slow", place, "error rate");
        assert_eq!(
            (err["p_value"].as_str(), err["verdict"].as_str()),
            ("1", "no significant difference")
        );
    }
    // Nothing got better with a slower decode.
    assert!(
        !all.iter()
            .any(|r| r["candidate_run"] == "slow" && r["verdict"] == "better"),
        "{csv}"
    );

    // The same config and seeds: the simulator's timings are the same draws, and only the
    // machine's noise differs. The Bonferroni adjustment keeps the chance of any false
    // "significant" in a cell at 5%, but the machine is not the same between runs (5 builds share 2
    // cores), so a real shift of a few % in a latency can appear: at least 80% of the
    // tested metrics must show no significant difference.
    let same: Vec<_> = all
        .iter()
        .filter(|r| r["candidate_run"] == "same" && r["verdict"] != "not tested")
        .collect();
    assert!(same.len() >= 18, "{csv}");
    let quiet = same
        .iter()
        .filter(|r| r["verdict"] == "no significant difference")
        .count();
    assert!(
        quiet * 10 >= same.len() * 8,
        "{quiet} of {} without a difference:\n{csv}",
        same.len()
    );

    let md = std::fs::read_to_string(dir.join("cmp/compare.md")).unwrap();
    assert!(md.contains("## slow vs baseline base"), "{md}");
    assert!(md.contains("Matched on scenario and load"), "{md}");
    let html = std::fs::read_to_string(dir.join("cmp/compare.html")).unwrap();
    assert_eq!(html.matches("<img").count(), 3, "three figures");
    for f in [
        "server_throughput_vs_concurrency",
        "ttft_vs_concurrency",
        "tpot_vs_concurrency",
    ] {
        assert!(dir.join(format!("cmp/figures/{f}.png")).is_file(), "{f}");
        assert!(dir.join(format!("cmp/figures/{f}.svg")).is_file(), "{f}");
    }
}

/// `plateau report DIR1 DIR2 --out DIR`: two copies of the report crate's clean fixture
/// drawn side by side, endpoints labelled by directory, nothing written into the sources;
/// `plateau compare` with one directory is a usage error (exit 2).
#[test]
fn report_takes_several_directories_and_compare_needs_two() {
    let tmp = temp("report-several");
    let dir = tmp.path();
    let clean = Path::new(env!("CARGO_MANIFEST_DIR")).join("../report/tests/fixtures/clean");
    let (a, b) = (dir.join("gpu-a"), dir.join("gpu-b"));
    copy_tree(&clean, &a);
    copy_tree(&clean, &b);
    let (code, stdout, stderr) = run(plateau(&[
        "report",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--out",
        dir.join("out").to_str().unwrap(),
    ])
    .current_dir(dir));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("24 cells"), "{stdout}");
    let csv = std::fs::read_to_string(dir.join("out/summary.csv")).unwrap();
    assert_eq!(
        csv.lines()
            .filter(|l| l.starts_with("gpu-b/sglang,"))
            .count(),
        6
    );
    assert!(dir.join("out/report.html").is_file());
    assert!(dir.join("out/figures/ttft_vs_concurrency.svg").is_file());
    assert!(!a.join("report.html").exists() && !b.join("summary.md").exists());

    let (code, _, stderr) = run(plateau(&["compare", a.to_str().unwrap()]).current_dir(dir));
    assert_eq!(code, 2, "{stderr}");
}
