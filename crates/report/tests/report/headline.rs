//! The headline of each scenario and series, against the fixtures' known numbers: the
//! peak of the steady cells, the knee, where TTFT p99 crosses the SLO, the error rate, and
//! the words that stand in where a number does not exist.

use std::path::Path;

use plateau_model::results::capacity::{CAPACITY_FILE, CapacityReport};
use plateau_model::results::dir::ResultsDir;
use plateau_model::results::summary::CellSummary;
use plateau_model::results::{SUMMARY_FILE, read_json, write_json};
use plateau_report::headline::{self, Card, Slo};
use plateau_report::matrix::Matrix;

use crate::{common, fixtures};

/// The cards of the results at `dir`, with the SLO the report would use.
fn cards(dir: &Path) -> Vec<Card> {
    let results = ResultsDir::read(dir).unwrap();
    let capacity: Option<CapacityReport> = read_json(&dir.join(CAPACITY_FILE)).ok();
    let slo = Slo::of(capacity.as_ref(), results.run_info().map(|r| &r.config));
    headline::cards(&Matrix::new(&results), &slo)
}

/// `(value, detail)` of the fact `label` of the card of `series` in `scenario`.
fn fact(cards: &[Card], scenario: &str, series: Option<&str>, label: &str) -> (String, String) {
    let card = cards
        .iter()
        .find(|c| c.scenario == scenario && c.series.as_deref() == series)
        .unwrap_or_else(|| panic!("no card for {scenario} {series:?}"));
    let f = card.facts.iter().find(|f| f.label == label).unwrap();
    (f.value.clone(), f.detail.clone())
}

/// Sets the server throughput of the cell at `rel` under `dir` (and its steady verdict).
fn set(dir: &Path, rel: &str, tps: f64, steady: bool) {
    let path = dir.join(rel).join(SUMMARY_FILE);
    let mut s: CellSummary = read_json(&path).unwrap();
    s.metrics.throughput.server_direct_tps = tps;
    s.metrics.steady.steady = steady;
    write_json(&path, &s).unwrap();
}

/// Clean fixture: every cell steady, throughput still climbing at N=4 in every series
/// (vllm A1: 75, 136.25, 229.25 tok/s; N=2 is 59% of N=4), no SLO, no errors.
#[test]
fn clean_cards_show_the_peak_and_say_what_is_missing() {
    let cards = cards(&fixtures::path("clean"));
    assert_eq!(cards.len(), 4, "2 scenarios x 2 series");
    let a1 = "A1 · Same Short";
    let vllm = Some("vllm");
    let (peak, at) = fact(&cards, a1, vllm, "peak sustained throughput");
    assert_eq!(peak, "229 tok/s");
    assert_eq!(at, "at N=4, the highest steady cell");
    assert_eq!(
        fact(
            &cards,
            "B2 · Diverse Long",
            Some("sglang"),
            "peak sustained throughput"
        )
        .0,
        "146 tok/s"
    );
    let (knee, why) = fact(&cards, a1, vllm, "knee");
    assert_eq!(knee, "not reached");
    assert!(
        why.contains("still climbs at the largest steady N=4"),
        "{why}"
    );
    assert_eq!(
        fact(&cards, a1, vllm, "TTFT p99 crosses the SLO").0,
        "no SLO set"
    );
    let (rate, detail) = fact(&cards, a1, vllm, "error rate");
    assert_eq!(rate, "0%");
    assert_eq!(detail, "0 of 146 measured requests failed");

    // report.html opens with them, summary.md has them as a table.
    let (_, _, out) = common::clean();
    let html = std::fs::read_to_string(&out.html).unwrap();
    let first_h2 = html.find("<h2 ").unwrap();
    assert_eq!(html[first_h2..].find("<h2 id=\"headline\">"), Some(0));
    let section = common::section(&html, "<h2 id=\"headline\">", "<h2 ");
    assert_eq!(section.matches("<div class=\"kpis\"").count(), 4);
    // Four facts a card, but the knee "not reached" (with the same reason) and "no SLO set"
    // are the same on every card: each said once, below the cards.
    assert_eq!(section.matches("<div class=\"kpi\"").count(), 4 * 2);
    assert_eq!(section.matches("data-fact=\"error rate\"").count(), 4);
    for (label, value) in [
        ("knee", "not reached"),
        ("TTFT p99 crosses the SLO", "no SLO set"),
    ] {
        assert_eq!(
            section.matches(&format!("data-fact=\"{label}\"")).count(),
            1
        );
        let said = format!(
            "<p class=\"shared\" data-fact=\"{label}\"><b>{label}: {value}</b>, the same for \
             every scenario ("
        );
        assert!(section.contains(&said), "{section}");
    }
    assert!(section.contains("<div class=\"v\">229 tok/s</div>"));
    let md = std::fs::read_to_string(&out.markdown).unwrap();
    let table = common::section(&md, "## Headline", "## ");
    assert_eq!(table.lines().filter(|l| l.starts_with("| A1")).count(), 2);
    assert!(table.contains("| A1 · Same Short | vllm | **229 tok/s** (at N=4"));
}

/// vllm A1 N=4 lowered to 140 tok/s: N=2's 136.25 reaches 90% of it (126), so the knee
/// is N=2.
#[test]
fn the_knee_is_the_smallest_n_reaching_ninety_percent_of_the_peak() {
    let (_tmp, results, _) = common::fixture_copy("clean", "headline-knee");
    set(&results, "vllm/llama-8b/A1/c4", 140.0, true);
    let cards = cards(&results);
    let (knee, why) = fact(&cards, "A1 · Same Short", Some("vllm"), "knee");
    assert_eq!(knee, "N=2");
    assert_eq!(
        why,
        "the smallest N reaching 90% of the peak: 136 of 140 tok/s"
    );
}

/// The open fixture's SLO (`capacity.json`: TTFT p99 ≤ 100 ms): the closed loop's TTFT p99
/// stays at or below 44 ms up to N=4; the open loop's crosses at 8 req/s (767 ms, the
/// overloaded cell, a p99 of 32 requests: flagged), and that cell is not the peak: N=4's
/// 229 tok/s is.
#[test]
fn the_slo_crossing_is_the_first_load_above_the_bound() {
    let cards = cards(&fixtures::path("open"));
    assert_eq!(cards.len(), 1);
    let (value, detail) = fact(&cards, "A1 · Same Short", None, "TTFT p99 crosses the SLO");
    assert_eq!(value, "8 req/s");
    assert_eq!(
        detail,
        "closed loop: not crossed up to N=4; open loop: TTFT p99 767 ms at 8 req/s (from too \
         few samples: indicative); SLO TTFT p99 ≤ 100 ms (capacity.slo.ttft_p99_ms)"
    );
    let (peak, at) = fact(&cards, "A1 · Same Short", None, "peak sustained throughput");
    assert_eq!(
        (peak.as_str(), at.as_str()),
        ("229 tok/s", "at N=4, the highest steady cell")
    );
    // 25 + 45 + 76 closed-loop and 8 + 16 + 24 open-loop measured requests; the
    // overloaded 8 req/s cell's 32 are left out.
    assert_eq!(
        fact(&cards, "A1 · Same Short", None, "error rate").1,
        "0 of 194 measured requests failed (1 overloaded cell left out: their requests fail \
         by waiting in the queue)"
    );
    let (overload, detail) = fact(&cards, "A1 · Same Short", None, "overloaded");
    assert_eq!(overload, "from 8 req/s");
    assert_eq!(
        detail,
        "arrivals outpaced the server: it completed 7.00 req/s of 8.00 offered; the highest \
         rate it kept up with: 6 req/s"
    );
    // One series: summary.md's headline has no series column.
    let (_, _, out) = common::open();
    let md = std::fs::read_to_string(&out.markdown).unwrap();
    let table = common::section(&md, "## Headline", "## ");
    assert!(
        table.contains("| scenario | peak sustained throughput | knee |"),
        "{table}"
    );
    assert!(
        table.contains("| A1 · Same Short | **229 tok/s** (at N=4"),
        "{table}"
    );
}

/// The clean fixture with a goodput SLO of TTFT ≤ 30 ms in run.json: vllm A1's TTFT p99
/// is 29, 34, 44 ms at N = 1, 2, 4, so it crosses at N=2; sglang A1's (34, 40, 52) at N=1.
#[test]
fn a_per_request_ttft_slo_is_judged_on_the_p99() {
    use plateau_model::config::SloConfig;
    use plateau_model::results::RUN_FILE;
    use plateau_model::results::run_info::RunInfo;

    let (_tmp, results, _) = common::fixture_copy("clean", "headline-slo");
    let mut run: RunInfo = read_json(&results.join(RUN_FILE)).unwrap();
    run.config.slo = Some(SloConfig {
        ttft_ms: Some(30.0),
        tpot_ms: None,
        e2e_ms: None,
    });
    write_json(&results.join(RUN_FILE), &run).unwrap();
    let cards = cards(&results);
    let label = "TTFT p99 crosses the SLO";
    let (value, detail) = fact(&cards, "A1 · Same Short", Some("vllm"), label);
    assert_eq!(value, "N=2");
    assert_eq!(
        detail,
        "closed loop: TTFT p99 34.0 ms at N=2 (from too few samples: indicative); SLO TTFT p99 \
         ≤ 30 ms (slo.ttft_ms)"
    );
    assert_eq!(
        fact(&cards, "A1 · Same Short", Some("sglang"), label).0,
        "N=1"
    );
    // B2's TTFT p99 (104 ms and up) is above 30 ms from N=1.
    assert_eq!(
        fact(&cards, "B2 · Diverse Long", Some("vllm"), label).0,
        "N=1"
    );
}

/// The unsteady fixture: N=4 is not steady, so the peak is N=1's 75 tok/s and one steady N
/// gives no knee; with N=1 unsteady too, the headline says "not steady" and names the
/// highest unsteady cell instead of showing it as sustained.
#[test]
fn unsteady_cells_are_not_a_peak() {
    let (_tmp, results, _) = common::fixture_copy("unsteady", "headline-unsteady");
    let cards = cards(&results);
    let a1 = "A1 · Same Short";
    assert_eq!(
        fact(&cards, a1, None, "peak sustained throughput"),
        (
            "75.0 tok/s".into(),
            "at N=1, the highest steady cell".into()
        )
    );
    assert_eq!(
        fact(&cards, a1, None, "knee"),
        (
            "–".into(),
            "one steady concurrency (N=1): nothing to compare".into()
        )
    );
    set(&results, "vllm/llama-8b/A1/c1", 75.0, false);
    let cards = self::cards(&results);
    let (peak, why) = fact(&cards, a1, None, "peak sustained throughput");
    assert_eq!(peak, "not steady");
    assert_eq!(
        why,
        "no cell was steady; the highest, 143 tok/s at N=4, is not sustained"
    );
    assert_eq!(fact(&cards, a1, None, "knee").0, "not steady");
}

/// The open fixture without its closed-loop cells: the peak is the highest steady,
/// not overloaded rate (6 req/s, 72 tok/s; 8 req/s has more but was overloaded), there is
/// no knee (it is over N), and the SLO is crossed at 8 req/s.
#[test]
fn an_open_loop_only_run_has_a_peak_rate_and_no_knee() {
    let (_tmp, results, _) = common::fixture_copy("open", "headline-open-only");
    for n in [1, 2, 4] {
        std::fs::remove_dir_all(results.join(format!("vllm/llama-8b/A1/c{n}"))).unwrap();
    }
    let cards = cards(&results);
    let a1 = "A1 · Same Short";
    assert_eq!(
        fact(&cards, a1, None, "peak sustained throughput"),
        (
            "72.0 tok/s".into(),
            "at 6 req/s, the highest steady cell".into()
        )
    );
    assert_eq!(
        fact(&cards, a1, None, "knee"),
        (
            "–".into(),
            "no closed-loop cells: the knee is over N".into()
        )
    );
    assert_eq!(
        fact(&cards, a1, None, "TTFT p99 crosses the SLO"),
        (
            "8 req/s".into(),
            "open loop: TTFT p99 767 ms at 8 req/s (from too few samples: indicative); SLO TTFT \
             p99 ≤ 100 ms (capacity.slo.ttft_p99_ms)"
                .into()
        )
    );
}
