//! Bad input gives errors that name the file, never a panic: a missing directory, a corrupt
//! summary.json, a requests.jsonl.gz cut short, a comparison concurrency that did not run.

use std::fs;

use plateau_report::{Options, ReportError};

use crate::common;

const CELL: &str = "vllm/llama-8b/A1/c2";

#[test]
fn a_missing_results_directory_is_named() {
    let tmp = common::scratch("missing");
    let root = tmp.path();
    let missing = root.join("no-such-dir");
    let err = plateau_report::render(&Options::new(&missing, root.join("f"))).unwrap_err();
    assert!(matches!(err, ReportError::Results(_)), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("no-such-dir") && text.contains("no such results directory"),
        "{text}"
    );
}

#[test]
fn a_directory_without_results_is_named() {
    let tmp = common::scratch("empty");
    let root = tmp.path();
    let err = plateau_report::render(&Options::new(root, root.join("f"))).unwrap_err();
    assert!(err.to_string().contains("no plateau results here"), "{err}");
}

#[test]
fn a_corrupt_summary_is_named_and_the_rest_is_reported() {
    let (_tmp, results, figures) = common::fixture_copy("clean", "corrupt-summary");
    let bad = results.join(CELL).join("summary.json");
    fs::write(&bad, "{ \"schema_version\": 1, ").unwrap();
    let out = plateau_report::render(&Options::new(&results, &figures)).unwrap();
    assert_eq!(out.cells, 11);
    assert_eq!(out.unreadable.len(), 1, "{:?}", out.unreadable);
    assert!(
        out.unreadable[0].contains(&bad.display().to_string()),
        "{:?}",
        out.unreadable
    );
    assert!(
        out.findings
            .iter()
            .any(|f| f.check == "summary" && f.cell == CELL)
    );
    assert!(out.html.exists());
}

#[test]
fn a_requests_file_cut_short_is_named() {
    let (_tmp, results, figures) = common::fixture_copy("clean", "cut-gz");
    let gz = results.join(CELL).join("requests.jsonl.gz");
    let bytes = fs::read(&gz).unwrap();
    fs::write(&gz, &bytes[..bytes.len() / 2]).unwrap();
    let out = plateau_report::render(&Options::new(&results, &figures)).unwrap();
    assert_eq!(out.unreadable.len(), 1, "{:?}", out.unreadable);
    assert!(
        out.unreadable[0].contains("requests.jsonl.gz"),
        "{:?}",
        out.unreadable
    );
    assert!(
        out.findings
            .iter()
            .any(|f| f.check == "records" && f.cell == CELL)
    );
    // Every other figure is still drawn (the distributions without that cell); only that
    // cell's timeline is missing.
    assert_eq!(out.figures.len(), 10 + 2 + 11);
}

#[test]
fn every_summary_corrupt_is_an_error_naming_them() {
    let (_tmp, results, figures) = common::fixture_copy("unsteady", "all-corrupt");
    for n in [1, 4] {
        fs::write(
            results.join(format!("vllm/llama-8b/A1/c{n}/summary.json")),
            "[]",
        )
        .unwrap();
    }
    let err = plateau_report::render(&Options::new(&results, &figures)).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, ReportError::NoCells { .. }), "{err:?}");
    assert!(
        text.contains("c1/summary.json") && text.contains("c4/summary.json"),
        "{text}"
    );
}

#[test]
fn a_comparison_concurrency_that_did_not_run_is_refused() {
    let (_tmp, results, figures) = common::fixture_copy("unsteady", "compare-at");
    let mut opts = Options::new(&results, &figures);
    opts.compare_at = Some(3);
    let err = plateau_report::render(&opts).unwrap_err();
    assert_eq!(
        err.to_string(),
        "--compare-at 3: no cell ran at that concurrency (the results have 1, 4)"
    );
}
