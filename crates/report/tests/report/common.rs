//! Shared by the tests: a fresh copy of a fixture in a temp directory removed when the test
//! ends (the report writes into its results directory), the clean and open fixtures and a
//! default-size run rendered once each (under the target directory, for the whole test
//! process), a repeated cell added to a copy, a cell's requests rewritten (and its summary
//! with them), a section cut out of a page, and counts of an SVG's elements.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use flate2::Compression;
use flate2::write::GzEncoder;
use tempfile::TempDir;

use plateau_model::results::repeats::{REPEATS_FILE, RepeatsReport, aggregate};
use plateau_model::results::summary::CellSummary;
use plateau_model::results::{read_json, write_json};
use plateau_model::sample::Sample;
use plateau_report::{Options, Output};

use crate::fixtures;
use plateau_testkit::tree::copy_tree;

/// A fresh, empty directory for `test` (`plateau-report-<test>-XXXXXX`), removed with
/// everything in it when the guard is dropped: keep it bound until the test ends.
pub fn scratch(test: &str) -> TempDir {
    plateau_testkit::scratch(&format!("report-{test}"))
}

/// A copy of fixture `name` for `test`: `(guard, results dir, figures dir)`, in a
/// [`scratch`] directory removed when the guard is dropped.
pub fn fixture_copy(name: &str, test: &str) -> (TempDir, PathBuf, PathBuf) {
    let root = scratch(test);
    let (results, figures) = copy_into(root.path(), name);
    (root, results, figures)
}

/// Copies fixture `name` to `root/results`: `(results dir, figures dir)`.
fn copy_into(root: &Path, name: &str) -> (PathBuf, PathBuf) {
    let results = root.join("results");
    copy_tree(&fixtures::path(name), &results);
    (results, root.join("figures"))
}

/// Copies of fixtures side by side under `root`, one a `(directory name, fixture)`.
pub fn runs<const K: usize>(root: &Path, runs: [(&str, &str); K]) -> [PathBuf; K] {
    runs.map(|(name, fixture)| {
        let dir = root.join(name);
        copy_tree(&fixtures::path(fixture), &dir);
        dir
    })
}

/// A fixture as rendered: `(results dir, figures dir, output)`.
pub type Rendered = (PathBuf, PathBuf, Output);

/// The copy is read by tests for the whole process, from a static that is never dropped,
/// so it is not in a temp directory removed on drop: it goes under the target directory's
/// `tmp/`, one directory a fixture, replaced by the next run.
fn render(name: &str) -> Rendered {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("plateau-report-{name}"));
    let _ = fs::remove_dir_all(&root);
    let (results, figures) = copy_into(&root, name);
    let out = plateau_report::render(&Options::new(&results, &figures)).unwrap();
    (results, figures, out)
}

/// The clean fixture (closed loop only), rendered once for every test that only reads the
/// output.
pub fn clean() -> &'static Rendered {
    static RENDERED: OnceLock<Rendered> = OnceLock::new();
    RENDERED.get_or_init(|| render("clean"))
}

/// A run the size of the default config's ([`fixtures::default_size`]), generated and
/// rendered once.
pub fn default_size() -> &'static Rendered {
    static RENDERED: OnceLock<Rendered> = OnceLock::new();
    RENDERED.get_or_init(|| {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("plateau-report-default-size");
        let _ = fs::remove_dir_all(&root);
        let (results, figures) = (root.join("results"), root.join("figures"));
        fixtures::default_size::write(&results);
        let out = plateau_report::render(&Options::new(&results, &figures)).unwrap();
        (results, figures, out)
    })
}

/// The open fixture (closed- and open-loop cells, capacity.json), rendered once.
pub fn open() -> &'static Rendered {
    static RENDERED: OnceLock<Rendered> = OnceLock::new();
    RENDERED.get_or_init(|| render("open"))
}

/// Makes vllm A1 N = 1 of the results at `dir` a cell run twice, laid out as `repeats: 2`
/// lays it out: a second run `c1-2`, a copy of `c1` with a server throughput of 82.5 tok/s
/// (`c1` has 75), and `repeats.json` as the model aggregates the two (only this cell was repeated).
pub fn add_repeat(dir: &Path) -> RepeatsReport {
    let cell = dir.join("vllm/llama-8b/A1");
    copy_tree(&cell.join("c1"), &cell.join("c1-2"));
    let read =
        |rel: &str| -> CellSummary { read_json(&cell.join(rel).join("summary.json")).unwrap() };
    let first = read("c1");
    let mut second = first.clone();
    second.cell.repeat = 2;
    second.metrics.throughput.server_direct_tps = 82.5;
    write_json(&cell.join("c1-2/summary.json"), &second).unwrap();
    let report = aggregate(&[first, second], 2);
    write_json(&dir.join(REPEATS_FILE), &report).unwrap();
    report
}

/// The text of `doc` from the first `start` to the next `end` after it.
pub fn section<'a>(doc: &'a str, start: &str, end: &str) -> &'a str {
    let from = doc
        .find(start)
        .unwrap_or_else(|| panic!("no {start:?} in the document"));
    let len = doc[from + start.len()..]
        .find(end)
        .unwrap_or_else(|| panic!("no {end:?} after {start:?}"));
    &doc[from..from + start.len() + len]
}

/// Rewrites the requests of the cell at `dir` by `change`, and its summary's metrics as
/// the core's `summarize` makes them from the changed requests (a closed-loop cell, no SLO,
/// the default steady thresholds: what the fixtures' rules use).
pub fn rewrite_requests(dir: &Path, change: impl FnOnce(&mut Vec<Sample>)) -> CellSummary {
    use plateau_model::config::SteadyConfig;
    use plateau_model::metrics::{Options, Window, summarize};

    let gz = dir.join(plateau_model::results::REQUESTS_FILE);
    let mut samples = plateau_model::results::read_samples(&gz).unwrap();
    change(&mut samples);
    let mut out = GzEncoder::new(fs::File::create(&gz).unwrap(), Compression::default());
    for s in &samples {
        serde_json::to_writer(&mut out, s).unwrap();
        out.write_all(b"\n").unwrap();
    }
    out.finish().unwrap();
    let path = dir.join(plateau_model::results::SUMMARY_FILE);
    let mut summary: CellSummary = read_json(&path).unwrap();
    let window = Window {
        m0_us: summary.phases.m0_us,
        m1_us: summary.phases.m1_us,
        concurrency: summary.cell.load.load().and_then(|l| l.concurrency()),
    };
    let steady = SteadyConfig::default();
    let opts = Options {
        slo: None,
        steady: &steady,
        stream: true,
        target_rps: None,
        fill_end_us: None,
    };
    summary.metrics = summarize(&samples, &window, &opts);
    summary.records.count = samples.len() as u64;
    write_json(&path, &summary).unwrap();
    summary
}

/// The SVG text of figure `name` in `figures`.
pub fn svg(figures: &Path, name: &str) -> String {
    fs::read_to_string(figures.join(format!("{name}.svg")))
        .unwrap_or_else(|e| panic!("{name}.svg: {e}"))
}

/// The points (x, y px) of the `<polyline>`s of `svg` drawn in `stroke` (`#0072B2`) at
/// `width` px, in document order.
pub fn polyline_points(svg: &str, stroke: &str, width: u32) -> Vec<Vec<(f64, f64)>> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("polyline"))
        .filter(|n| {
            n.attribute("stroke") == Some(stroke)
                && n.attribute("stroke-width") == Some(width.to_string().as_str())
        })
        .map(|n| {
            n.attribute("points")
                .unwrap_or("")
                .split_whitespace()
                .map(|p| {
                    let (x, y) = p.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect()
        })
        .collect()
}

/// The point counts of [`polyline_points`].
pub fn polylines(svg: &str, stroke: &str, width: u32) -> Vec<usize> {
    polyline_points(svg, stroke, width)
        .iter()
        .map(Vec::len)
        .collect()
}

/// How many elements `tag` of `svg` have every attribute of `attrs`.
pub fn count(svg: &str, tag: &str, attrs: &[(&str, &str)]) -> usize {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name(tag))
        .filter(|n| attrs.iter().all(|(k, v)| n.attribute(*k) == Some(*v)))
        .count()
}

/// The texts of `svg`'s `<text>` elements, trimmed.
pub fn texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or("").trim().to_owned())
        .collect()
}
