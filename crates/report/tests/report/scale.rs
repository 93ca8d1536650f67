//! A run with more cells than report.html shows one by one (generated from copies of a
//! fixture cell, without running a benchmark): its summary rows, per-cell tables and
//! timelines are on pages of their own that report.html links, every page exists, every
//! cell is on exactly one, and the figures draw the first series only and say so.

use std::collections::BTreeMap;
use std::path::Path;

use plateau_report::Options;
use plateau_report::html::pages::PAGE_CELLS;
use plateau_report::pipeline::{FIGURE_SERIES, INLINE_CELLS};
use plateau_testkit::tree::{Copies, cell_copies};

use crate::{common, fixtures};

/// 10 series x 3 scenarios x 8 concurrencies: past [`INLINE_CELLS`], two pages.
const SHAPE: Copies = Copies {
    endpoints: 10,
    scenarios: 3,
    loads: 8,
};

/// The values of `attr="..."` in `html`.
fn attrs<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
    html.split(&format!("{attr}=\""))
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .collect()
}

/// What an earlier report of 3 pages left in `results`, and a file of the user's beside it;
/// returns the pages' directory.
fn plant_earlier_pages(results: &Path) -> std::path::PathBuf {
    let pages = results.join("cells");
    std::fs::create_dir_all(&pages).unwrap();
    let old = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n\
               <title>plateau report: results, cells page 3 of 3</title>";
    std::fs::write(pages.join("page-0003.html"), old).unwrap();
    std::fs::write(pages.join("page-0004.html"), "my own notes").unwrap();
    pages
}

/// The earlier report's third page is gone; the user's file is not.
fn earlier_pages_removed(pages: &Path) {
    assert!(!pages.join("page-0003.html").exists());
    assert_eq!(
        std::fs::read_to_string(pages.join("page-0004.html")).unwrap(),
        "my own notes",
        "a file plateau did not write is left alone"
    );
}

/// How many times each cell appears on the pages `hrefs` (relative to `results`), checking
/// on the way that every file a page shows or links is there.
fn cells_on_pages(results: &Path, hrefs: &[&str]) -> BTreeMap<String, usize> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for &href in hrefs {
        let path = results.join(href);
        let text = std::fs::read_to_string(&path).unwrap();
        for rel in attrs(&text, "data-cell") {
            *seen.entry(rel.to_owned()).or_default() += 1;
        }
        let dir = path.parent().unwrap();
        let files: Vec<&str> = attrs(&text, "src")
            .into_iter()
            .chain(
                attrs(&text, "href")
                    .into_iter()
                    .filter(|h| h.contains("timeline_")),
            )
            .collect();
        assert!(files.len() >= 2, "{href} shows its timelines");
        for f in files {
            assert!(
                Path::new(dir).join(f).is_file(),
                "{href} links {f}, missing"
            );
        }
    }
    seen
}

#[test]
fn a_large_run_puts_its_cells_on_linked_pages_and_keeps_report_html_small() {
    let tmp = common::scratch("paged");
    let results = tmp.path().join("results");
    let cell = fixtures::path("clean").join("vllm/llama-8b/A1/c4");
    let rels = cell_copies(&cell, &results, SHAPE).unwrap();
    assert!(rels.len() > INLINE_CELLS && rels.len() < 2 * PAGE_CELLS);
    let pages = plant_earlier_pages(&results);
    let out = plateau_report::render(&Options::new(&results, tmp.path().join("figures"))).unwrap();
    assert_eq!(out.cells, 240);
    earlier_pages_removed(&pages);

    let page = std::fs::read_to_string(&out.html).unwrap();
    assert!(
        !page.contains("data-cell="),
        "no row per cell in report.html"
    );
    assert!(!page.contains("id=\"results\"") && !page.contains("id=\"timelines\""));
    let timelines = out
        .figures
        .iter()
        .filter(|r| r.name.starts_with("timeline_"));
    assert_eq!(timelines.clone().count(), 240);
    assert!(
        timelines.clone().all(|r| r.svg.is_empty()),
        "no timeline SVG kept"
    );
    assert_eq!(
        page.matches("src=\"data:image/svg").count(),
        out.figures.len() - 240,
        "every figure but the timelines embedded"
    );
    // Measured 2.1 MB, nearly all the figures of 8 series x 3 scenarios; 17 KB of text
    // besides them. The rows, tables and timeline links of a page take 1.9 KB a cell (456 KB
    // for these 240), an embedded timeline its SVG file's 23 KB and more.
    assert!(
        page.len() < 3_000_000,
        "report.html is {} bytes",
        page.len()
    );
    let text: usize = page
        .split("src=\"data:")
        .enumerate()
        .map(|(i, part)| {
            if i == 0 {
                part.len()
            } else {
                part.len() - part.find('"').unwrap_or(0)
            }
        })
        .sum();
    assert!(
        text < 40_000,
        "report.html has {text} bytes besides its figures"
    );

    let md = std::fs::read_to_string(results.join("summary.md")).unwrap();
    assert!(md.contains("240 cells, too many to list here"));
    assert!(
        md.len() < 20_000,
        "summary.md lists no cell ({} bytes)",
        md.len()
    );

    let hrefs: Vec<&str> = attrs(&page, "href")
        .into_iter()
        .filter(|h| h.starts_with("cells/page-"))
        .collect();
    assert_eq!(hrefs, ["cells/page-0001.html", "cells/page-0002.html"]);
    assert!(page.contains("<td>200</td>") && page.contains("<td>40</td>"));
    let seen = cells_on_pages(&results, &hrefs);
    assert_eq!(
        seen.keys().cloned().collect::<Vec<_>>(),
        {
            let mut sorted = rels.clone();
            sorted.sort();
            sorted
        },
        "every cell on a page, none other"
    );
    assert!(
        seen.values().all(|&n| n == 2),
        "each cell once in its page's summary and once in its results table: {seen:?}"
    );
}

#[test]
fn a_run_of_more_series_than_colours_draws_the_first_ones_and_says_so() {
    let tmp = common::scratch("series");
    let results = tmp.path().join("results");
    let cell = fixtures::path("clean").join("vllm/llama-8b/A1/c4");
    let shape = Copies {
        endpoints: FIGURE_SERIES + 2,
        scenarios: 1,
        loads: 2,
    };
    cell_copies(&cell, &results, shape).unwrap();
    let figures = tmp.path().join("figures");
    let out = plateau_report::render(&Options::new(&results, &figures)).unwrap();
    assert_eq!(out.cells, 20);
    let svg = std::fs::read_to_string(figures.join("ttft_vs_concurrency.svg")).unwrap();
    assert!(
        svg.contains("the first 8 of 10 series"),
        "the subtitle says it"
    );
    assert!(svg.contains("\ne7 (vllm)\n") && !svg.contains("e8 (vllm)"));
    let page = std::fs::read_to_string(&out.html).unwrap();
    assert_eq!(
        page.matches("<tr data-cell=").count(),
        40,
        "a small run keeps every cell's rows (summary and results) on report.html"
    );
}
