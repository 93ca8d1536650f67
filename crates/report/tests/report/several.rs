//! `plateau report DIR1 DIR2 ...`: each directory's own files, `capacity.json` and
//! `repeats.json`, appear in report.html and summary.md exactly as the report of that
//! directory alone shows them, every search and repeated cell labelled by its run.

use std::fs;
use std::path::Path;

use plateau_report::{Options, Output};

use crate::common::{self, add_repeat, runs, scratch, section};

fn render(dirs: &[&Path], root: &Path, out: &str) -> Output {
    let mut opts = Options::new(dirs[0], root.join(format!("figures-{out}")));
    opts.more_dirs = dirs[1..].iter().map(|d| d.to_path_buf()).collect();
    opts.out_dir = Some(root.join(out));
    plateau_report::render(&opts).unwrap()
}

fn read(out: &Output) -> (String, String) {
    (
        fs::read_to_string(&out.html).unwrap(),
        fs::read_to_string(&out.markdown).unwrap(),
    )
}

/// `text` as the report of several runs labels run `run`'s vllm endpoint: titles
/// (`vllm · llama-8b`) and cell paths (`vllm/llama-8b/`) prefixed with `run/`.
fn labelled(text: &str, run: &str) -> String {
    text.replace("vllm · llama-8b", &format!("{run}/vllm · llama-8b"))
        .replace("vllm/llama-8b/", &format!("{run}/vllm/llama-8b/"))
}

#[test]
fn several_directories_show_each_runs_capacity_and_repeats() {
    let tmp = scratch("several-own-files");
    let root = tmp.path();
    // run-a searched for capacity (the open fixture); run-b repeated a cell.
    let [a, b] = runs(root, [("run-a", "open"), ("run-b", "clean")]);
    let repeats = add_repeat(&b);
    let (alone_a, alone_b) = (
        read(&render(&[&a], root, "alone-a")),
        read(&render(&[&b], root, "alone-b")),
    );
    let both = render(&[&a, &b], root, "both");
    assert!(both.unreadable.is_empty(), "{:?}", both.unreadable);
    let (html, md) = read(&both);

    // Each section is the one of its run alone, its searches and cells named by the run.
    let capacity = |html: &str| section(html, "<h2 id=\"capacity\">", "<h2 ").to_owned();
    let repeats_html = |html: &str| section(html, "<h2 id=\"repeats\">", "<h2 ").to_owned();
    assert_eq!(capacity(&html), labelled(&capacity(&alone_a.0), "run-a"));
    assert_eq!(
        repeats_html(&html),
        labelled(&repeats_html(&alone_b.0), "run-b")
    );
    let capacity_md = |md: &str| section(md, "## Capacity", "## Summary").to_owned();
    let repeats_md = |md: &str| section(md, "## Repeats", "Latencies in ms").to_owned();
    assert_eq!(
        capacity_md(&md),
        labelled(&capacity_md(&alone_a.1), "run-a")
    );
    assert_eq!(repeats_md(&md), labelled(&repeats_md(&alone_b.1), "run-b"));
    assert!(html.contains("<a href=\"#capacity\">Capacity</a>"));

    // And the labelled rows carry the files' numbers: the capacity answer, a probe's cell
    // as the merged Results table names it, and the repeated throughput (75 and 82.5 tok/s).
    assert!(html.contains("run-a/vllm · llama-8b · A1: 6 req/s, 72.0 output tok/s"));
    assert!(html.contains("<td class=\"text\">run-a/vllm/llama-8b/A1/r8</td>"));
    assert!(html.contains("data-cell=\"run-a/vllm/llama-8b/A1/r8\""));
    let tps = repeats.cells[0]
        .metrics
        .iter()
        .find(|s| s.metric == "throughput.server_direct_tps")
        .unwrap();
    assert_eq!(tps.values, [75.0, 82.5]);
    let row = md
        .lines()
        .find(|l| l.contains("| throughput.server_direct_tps |"))
        .unwrap();
    assert!(
        row.starts_with("| run-b/vllm · llama-8b · A1 · c1 | throughput.server_direct_tps | 2 | 75.0, 82.5 | 78.8 tok/s |"),
        "{row}"
    );
}

#[test]
fn an_unreadable_capacity_file_of_one_run_is_named_and_the_others_shown() {
    let tmp = scratch("several-bad-capacity");
    let root = tmp.path();
    let [a, b] = runs(root, [("run-a", "open"), ("run-b", "open")]);
    let bad = b.join("capacity.json");
    fs::write(&bad, "{\"slo\": ").unwrap();
    let out = render(&[&a, &b], root, "out");
    assert_eq!(out.unreadable.len(), 1, "{:?}", out.unreadable);
    assert!(
        out.unreadable[0].contains(&bad.display().to_string()),
        "{:?}",
        out.unreadable
    );
    let (html, _) = read(&out);
    assert!(html.contains("run-a/vllm · llama-8b · A1: 6 req/s"));
    assert!(!html.contains("run-b/vllm · llama-8b · A1: 6 req/s"));
    // The single-directory report is untouched by the labels.
    let (_, _, alone) = common::open();
    let html = fs::read_to_string(&alone.html).unwrap();
    assert!(html.contains("<h3>vllm · llama-8b · A1: 6 req/s, 72.0 output tok/s</h3>"));
}
