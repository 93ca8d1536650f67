//! The per-cell pages of a large run: past [`crate::pipeline::INLINE_CELLS`] cells,
//! report.html keeps its headline, checks and figures but not a row, a table or a timeline
//! per cell. Those go to `cells/page-NNNN.html`, [`PAGE_CELLS`] cells a page in the
//! matrix's order (series, scenario, load), each page with its cells' summary rows, their
//! per-cell results tables and their timelines (the figure files, linked and loaded by the
//! browser, never inlined). Each page is written as soon as it is laid out and dropped, so
//! the report holds one page's text at a time; report.html lists the pages ([`index`]) with
//! their first and last cell and how many of their cells failed a check.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use plateau_model::results;
use plateau_model::validate::Thresholds;

use super::{cells, escape, summary};
use crate::error::ReportError;
use crate::figures::Rendered;
use crate::matrix::{Cell, Matrix};

/// Cells on one page.
pub const PAGE_CELLS: usize = 200;

/// The directory the pages go to, under report.html's.
pub const PAGES_DIR: &str = "cells";

/// A page as written, for report.html's list.
#[derive(Clone, Debug, PartialEq)]
pub struct PageRef {
    /// The page's path relative to report.html (`cells/page-0001.html`).
    pub href: String,
    /// Cells on it.
    pub cells: usize,
    /// Its first and last cell (their paths in the results directory).
    pub first: String,
    /// Its last cell.
    pub last: String,
    /// Its cells that failed a check, were interrupted or failed (their verdict is red).
    pub flagged: usize,
}

/// What every page shares.
pub struct Pages<'a> {
    /// The whole run's matrix (each page shows a slice of its cells).
    pub m: &'a Matrix<'a>,
    /// The limits of the verdict column.
    pub thresholds: &'a Thresholds,
    /// The results directory as given (the pages' subtitle).
    pub results_dir: &'a str,
    /// The directory report.html is written to; the pages go to its [`PAGES_DIR`].
    pub root: &'a Path,
}

/// Writes the pages of `cells` (the matrix's cells in its order, with the timeline of each
/// when it was drawn), [`PAGE_CELLS`] a page, and returns them in order.
pub fn write(
    pages: &Pages,
    cells: &[(Cell, Option<&Rendered>)],
) -> Result<Vec<PageRef>, ReportError> {
    let dir = pages.root.join(PAGES_DIR);
    std::fs::create_dir_all(&dir).map_err(|source| ReportError::Write {
        path: dir.clone(),
        source,
    })?;
    let total = cells.len().div_ceil(PAGE_CELLS);
    cells
        .chunks(PAGE_CELLS)
        .enumerate()
        .map(|(k, chunk)| {
            let name = format!("page-{:04}.html", k + 1);
            let text = page(pages, chunk, k + 1, total);
            results::write_atomic(&dir.join(&name), text.as_bytes())
                .map_err(ReportError::Output)?;
            Ok(page_ref(pages, chunk, format!("{PAGES_DIR}/{name}")))
        })
        .collect()
}

/// Removes the pages an earlier, larger report of the same directory left beyond the first
/// `kept` (all of them when this report inlines its cells): files named `page-NNNN.html` in
/// [`PAGES_DIR`] whose head is a plateau cells page. Anything else there is left alone, and so
/// is the directory unless it ends up empty.
pub fn remove_stale(root: &Path, kept: usize) -> Result<(), ReportError> {
    let dir = root.join(PAGES_DIR);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let stale = page_number(&entry.file_name().to_string_lossy()).is_some_and(|n| n > kept);
        if stale && entry.file_type().is_ok_and(|t| t.is_file()) && is_plateau_page(&path) {
            std::fs::remove_file(&path).map_err(|source| ReportError::Write { path, source })?;
        }
    }
    let _ = std::fs::remove_dir(&dir);
    Ok(())
}

/// `NNNN` of `page-NNNN.html`.
fn page_number(name: &str) -> Option<usize> {
    let digits = name.strip_prefix("page-")?.strip_suffix(".html")?;
    (digits.len() == 4 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// Whether the file at `path` starts like a page [`page`] writes (its title).
fn is_plateau_page(path: &Path) -> bool {
    use std::io::Read;
    let mut headroom = [0u8; 512];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut headroom))
        .unwrap_or(0);
    let text = String::from_utf8_lossy(&headroom[..n]);
    text.contains("<title>plateau report: ") && text.contains(", cells page ")
}

/// The entry of the page of `chunk`.
fn page_ref(pages: &Pages, chunk: &[(Cell, Option<&Rendered>)], href: String) -> PageRef {
    let rel = |c: Option<&(Cell, Option<&Rendered>)>| c.map_or(String::new(), |c| c.0.rel.into());
    PageRef {
        href,
        cells: chunk.len(),
        first: rel(chunk.first()),
        last: rel(chunk.last()),
        flagged: chunk
            .iter()
            .filter(|(c, _)| cells::flagged(&crate::tables::verdict(c.summary, pages.thresholds)))
            .count(),
    }
}

/// The matrix of `chunk`'s cells alone, with the run's series and scenarios (so labels and
/// columns read as on a small run's report.html).
fn slice<'a>(m: &Matrix<'a>, chunk: &[(Cell<'a>, Option<&Rendered>)]) -> Matrix<'a> {
    let (closed, open): (Vec<Cell>, Vec<Cell>) = chunk
        .iter()
        .map(|(c, _)| *c)
        .partition(|c| c.load.concurrency().is_some());
    Matrix {
        cells: closed,
        open,
        series: m.series.clone(),
        scenarios: m.scenarios.clone(),
        concurrencies: m.concurrencies.clone(),
        hidden_series: m.hidden_series,
    }
}

/// Page `k` of `total`: its cells' summary rows, results tables and timelines.
fn page(pages: &Pages, chunk: &[(Cell, Option<&Rendered>)], k: usize, total: usize) -> String {
    let sub = slice(pages.m, chunk);
    let mut out = String::with_capacity(1 << 20);
    let title = format!(
        "plateau report: {}, cells page {k} of {total}",
        pages.results_dir
    );
    super::head(&mut out, &title);
    let _ = write!(
        out,
        "<h1>Cells, page {k} of {total}</h1>\n<p class=\"sub\">{} · {} cells of {}</p>\n",
        escape(pages.results_dir),
        chunk.len(),
        pages.m.all().count(),
    );
    let link = |n: usize| format!("<a href=\"page-{n:04}.html\">page {n}</a>");
    let _ = write!(out, "<nav><a href=\"../{}\">report</a>", crate::HTML_FILE);
    if k > 1 {
        out.push_str(&link(k - 1));
    }
    if k < total {
        out.push_str(&link(k + 1));
    }
    out.push_str("</nav>\n");
    summary::section(&mut out, &sub, pages.thresholds);
    cells::section(&mut out, &sub, pages.thresholds);
    super::sessions::section(&mut out, &sub);
    timelines(&mut out, chunk, &pages.root.join(PAGES_DIR));
    out.push_str("</body>\n</html>\n");
    out
}

/// The timelines of `chunk`, folded, each an image of its SVG file (loaded when opened)
/// linked to its PNG; `from` is the page's directory.
fn timelines(out: &mut String, chunk: &[(Cell, Option<&Rendered>)], from: &Path) {
    let drawn: Vec<&Rendered> = chunk.iter().filter_map(|(_, r)| *r).collect();
    out.push_str(
        "<h2 id=\"timelines\">Timelines</h2>\n<p class=\"note\">Each cell over its whole life: \
         output tokens/s and requests in flight, phases shaded, the server's own gauges where \
         its /metrics was scraped. A steady Measure window is flat.</p>\n",
    );
    if drawn.is_empty() {
        out.push_str("<p class=\"note\">No cell on this page has a timeline.</p>\n");
        return;
    }
    let _ = writeln!(
        out,
        "<details class=\"fold\"><summary>{} timeline(s)</summary>\n<div class=\"grid\">",
        drawn.len()
    );
    for r in drawn {
        let [png, svg] = &r.files;
        let _ = writeln!(
            out,
            "<figure id=\"{}\"><a href=\"{}\"><img loading=\"lazy\" width=\"{}\" height=\"{}\" \
             alt=\"{}\" src=\"{}\"/></a><figcaption>{}</figcaption></figure>",
            escape(&r.name),
            escape(&href(png, from)),
            r.size.0,
            r.size.1,
            escape(&r.title),
            escape(&href(svg, from)),
            escape(&r.title),
        );
    }
    out.push_str("</div></details>\n");
}

/// `file` as a link from a page in the directory `from`: the relative path between them
/// (`../figures/x.svg`) once both are absolute, else the file's own path.
pub fn href(file: &Path, from: &Path) -> String {
    let (Ok(file), Ok(from)) = (std::path::absolute(file), std::path::absolute(from)) else {
        return file.to_string_lossy().into_owned();
    };
    let (a, b): (Vec<_>, Vec<_>) = (file.components().collect(), from.components().collect());
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return file.to_string_lossy().into_owned();
    }
    let mut out: PathBuf = b[common..].iter().map(|_| "..").collect();
    out.extend(&a[common..]);
    out.to_string_lossy().replace('\\', "/")
}

/// The section of report.html that lists the pages, in place of the summary table.
pub fn index(out: &mut String, pages: &[PageRef]) {
    let cells: usize = pages.iter().map(|p| p.cells).sum();
    let flagged: usize = pages.iter().map(|p| p.flagged).sum();
    let _ = writeln!(
        out,
        "<h2 id=\"summary\">Summary</h2>\n<p class=\"note\">{cells} cells, too many for one \
         page: their summary rows, every column of their results and their timelines are on \
         {} pages of up to {PAGE_CELLS} cells, in order of series, scenario and load. \
         {flagged} cell(s) failed a check or did not finish (a red verdict); the pages with \
         any are marked. summary.csv has every cell's numbers.</p>",
        pages.len()
    );
    out.push_str(
        "<div class=\"scroll\"><table class=\"pages\">\n<tr><th class=\"text\">page</th>\
         <th>cells</th><th class=\"text\">from</th><th class=\"text\">to</th>\
         <th>red verdicts</th></tr>\n",
    );
    for p in pages {
        let class = if p.flagged > 0 { " class=\"NO\"" } else { "" };
        let _ = writeln!(
            out,
            "<tr><td class=\"text\"><a href=\"{}\">{}</a></td><td>{}</td>\
             <td class=\"text\">{}</td><td class=\"text\">{}</td><td{class}>{}</td></tr>",
            escape(&p.href),
            escape(&p.href),
            p.cells,
            escape(&p.first),
            escape(&p.last),
            p.flagged
        );
    }
    out.push_str("</table></div>\n");
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::{href, page_number};

    #[test]
    fn only_four_digit_page_names_count() {
        assert_eq!(page_number("page-0012.html"), Some(12));
        for other in [
            "page-12.html",
            "page-00012.html",
            "page-00a1.html",
            "x-0001.html",
        ] {
            assert_eq!(page_number(other), None, "{other}");
        }
    }

    #[test]
    fn links_are_relative_to_the_page() {
        let from = Path::new("/r/out/cells");
        assert_eq!(
            href(Path::new("/r/out/figures/t.svg"), from),
            "../figures/t.svg"
        );
        assert_eq!(href(Path::new("/r/figs/t.svg"), from), "../../figs/t.svg");
        assert_eq!(
            href(Path::new("figs/t.svg"), Path::new("out/cells")),
            "../../figs/t.svg"
        );
    }
}
