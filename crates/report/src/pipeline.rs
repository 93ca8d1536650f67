//! The report pipeline ([`render`]): read the results directory (and `capacity.json` and
//! `repeats.json`, when the run wrote them) once, or several results directories merged side
//! by side ([`crate::matrix::merge`]) with each one's own files labelled by its run
//! ([`crate::per_run`]), each cell held slim (the held module), check it, draw every figure
//! (each cell's records are read once, for its timeline and for the latency distributions
//! drawn after; figures are drawn in parallel, one per worker at a time: the jobs module),
//! then write report.html, summary.md and summary.csv; past [`INLINE_CELLS`] cells, the per-cell sections go to pages of their
//! own ([`html::pages`]) and figures draw the first [`FIGURE_SERIES`] series.

use std::path::{Path, PathBuf};

use plateau_model::results::capacity::{CAPACITY_FILE, CapacityReport};
use plateau_model::results::dir::{Missing, ResultsDir};
use plateau_model::results::repeats::{REPEATS_FILE, RepeatsReport};
use plateau_model::results::{self, CSV_FILE};
use plateau_model::validate::{self, Finding, Records, Severity, Thresholds};

use crate::error::ReportError;
use crate::figures::requests::CellRequests;
use crate::figures::{self, Rendered};
use crate::headline::{self, Slo};
use crate::matrix::{self, Cell, Matrix, Naming};
use crate::per_run::{self, PerRun};
use crate::{font, html, markdown};

mod held;
mod jobs;
mod parallel;

use jobs::{Job, run};
use parallel::parallel;

/// report.html's file name.
pub const HTML_FILE: &str = "report.html";
/// summary.md's file name.
pub const MARKDOWN_FILE: &str = "summary.md";

/// Past this many cells, report.html keeps the headline, the checks and the figures, and
/// the summary rows, per-cell tables and timelines go to pages of their own
/// ([`html::pages`]); no timeline's SVG is kept in memory once written. report.html and the
/// report's memory stay bounded whatever the run's size (`cargo xtask bench report`).
pub const INLINE_CELLS: usize = 200;

/// Figures draw at most this many series (as many as their colours tell apart), the first
/// in the run's order; the subtitle says how many the run has, the tables have them all.
pub const FIGURE_SERIES: usize = 8;

/// Past [`INLINE_CELLS`] cells, the distributions draw at most this many series: their
/// lines tell series apart only as solid and dashed, and a dashed line of 200 points is
/// hundreds of SVG elements (10,000 cells of 100 series made a 188 MB ITL figure).
pub const DISTRIBUTION_SERIES: usize = 2;

/// What to report on and where to put it.
#[derive(Clone, Debug)]
pub struct Options {
    /// The results directory (`run.json`, cell directories); report.html, summary.md and
    /// summary.csv are written into it.
    pub results_dir: PathBuf,
    /// Where the PNG and SVG figures go (created if missing).
    pub figures_dir: PathBuf,
    /// The concurrency of the engine comparison; `None` picks the largest one every series
    /// ran.
    pub compare_at: Option<u32>,
    /// Limits of the checks behind the warnings.
    pub thresholds: Thresholds,
    /// More results directories drawn beside `results_dir`, none copied: each one's
    /// endpoints are labelled `<directory name>/<endpoint>` where another directory has an
    /// endpoint of the same name. With any, set `out_dir` (the sources are only read).
    pub more_dirs: Vec<PathBuf>,
    /// Where report.html, summary.md and summary.csv go (created if missing); `None`: into
    /// `results_dir`.
    pub out_dir: Option<PathBuf>,
    /// Past this many cells, the per-cell sections are on pages of their own
    /// ([`INLINE_CELLS`]).
    pub inline_cells: usize,
}

impl Options {
    /// Defaults for everything but the two directories.
    pub fn new(results_dir: impl Into<PathBuf>, figures_dir: impl Into<PathBuf>) -> Options {
        Options {
            results_dir: results_dir.into(),
            figures_dir: figures_dir.into(),
            compare_at: None,
            thresholds: Thresholds::default(),
            more_dirs: Vec::new(),
            out_dir: None,
            inline_cells: INLINE_CELLS,
        }
    }
}

/// What [`render`] wrote and found.
#[derive(Debug)]
pub struct Output {
    /// report.html.
    pub html: PathBuf,
    /// summary.md.
    pub markdown: PathBuf,
    /// summary.csv.
    pub csv: PathBuf,
    /// Every figure, overview first, then the distributions, then timelines, with its PNG
    /// and SVG files.
    pub figures: Vec<Rendered>,
    /// Cells reported.
    pub cells: usize,
    /// Findings of the checks (also listed in report.html).
    pub findings: Vec<Finding>,
    /// Input files that could not be read, each error naming its file; the report covers
    /// everything else.
    pub unreadable: Vec<String>,
    /// Cells that ran (or left records) but have no `summary.json`.
    pub missing: Vec<Missing>,
    /// What the reader should know of the input (files from a newer plateau).
    pub warnings: Vec<String>,
}

impl Output {
    /// What was written and found, in a few lines for the terminal.
    pub fn describe(&self, figures_dir: &Path) -> String {
        let fails = self
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Fail)
            .count();
        let mut out = format!(
            "{} cells: {} figures (PNG and SVG) in {}\n",
            self.cells,
            self.figures.len(),
            figures_dir.display()
        );
        for path in [&self.html, &self.markdown, &self.csv] {
            out.push_str(&format!("wrote {}\n", path.display()));
        }
        out.push_str(&format!(
            "checks: {fails} failed, {} warnings (listed in report.html; `plateau validate` prints them)\n",
            self.findings.len() - fails
        ));
        out
    }
}

/// Makes the whole report from the result files in `opts.results_dir` (and
/// `opts.more_dirs`).
pub fn render(opts: &Options) -> Result<Output, ReportError> {
    font::register()?;
    let paths: Vec<PathBuf> = std::iter::once(&opts.results_dir)
        .chain(&opts.more_dirs)
        .cloned()
        .collect();
    let sources: Vec<ResultsDir> = paths
        .iter()
        .map(|p| held::read(p))
        .collect::<Result<_, _>>()?;
    let labels = crate::compare::labels(&paths);
    let several = sources.len() > 1;
    let merged;
    let dir: &ResultsDir = if several {
        let runs: Vec<(String, &ResultsDir)> = labels.iter().cloned().zip(&sources).collect();
        merged = matrix::merge(&runs, Naming::OnCollision);
        &merged
    } else {
        &sources[0]
    };
    let mut unreadable = dir.problems();
    if several {
        for source in &sources {
            if let Some(Err(e)) = &source.run {
                unreadable.push(e.to_string());
            }
        }
    }
    let missing: Vec<Missing> = dir.missing().into_iter().filter(|m| m.lost).collect();
    let runs: Vec<(String, PathBuf)> = labels.iter().cloned().zip(paths.clone()).collect();
    let capacity: Vec<PerRun<CapacityReport>> =
        per_run::read(&runs, CAPACITY_FILE, &mut unreadable);
    let repeats: Vec<PerRun<RepeatsReport>> = per_run::read(&runs, REPEATS_FILE, &mut unreadable);
    // The figures' SLO and capacity lines belong to one run's series: drawn for one run.
    let figure_capacity = capacity.first().filter(|_| !several).map(|r| &r.file);
    let m = Matrix::new(dir);
    if m.all().next().is_none() {
        return Err(ReportError::NoCells {
            path: opts.results_dir.clone(),
            errors: unreadable.iter().map(|e| format!("\n  {e}")).collect(),
        });
    }
    let compare_at = figures::comparison_concurrency(&m, opts.compare_at);
    if let (Some(requested), None) = (opts.compare_at, compare_at) {
        let have: Vec<String> = m.concurrencies.iter().map(u32::to_string).collect();
        return Err(ReportError::CompareAt {
            requested,
            available: have.join(", "),
        });
    }
    std::fs::create_dir_all(&opts.figures_dir).map_err(|source| ReportError::Write {
        path: opts.figures_dir.clone(),
        source,
    })?;

    // A run of more series than figures tell apart: they draw the first ones.
    let first = m.first_series(FIGURE_SERIES);
    let fm = first.as_ref().unwrap_or(&m);
    let compare_at = compare_at.and(figures::comparison_concurrency(fm, opts.compare_at));
    let overview = figures::overview(fm, compare_at, figure_capacity);
    let cells: Vec<Cell> = m.all().copied().collect();
    let jobs: Vec<Job> = (0..cells.len())
        .map(Job::Timeline)
        .chain((0..overview.len()).map(Job::Overview))
        .collect();
    let paged = cells.len() > opts.inline_cells;
    let fewer = paged
        .then(|| fm.first_series(DISTRIBUTION_SERIES))
        .flatten();
    let dm = fewer.as_ref().unwrap_or(fm);
    let done = parallel(&jobs, |job| {
        run(job, &cells, &overview, &opts.figures_dir, dm.series.len()).map(|mut d| {
            if let (Job::Timeline(_), Some(r), true) = (job, &mut d.rendered, paged) {
                r.svg = String::new();
            }
            d
        })
    });
    let mut findings = Vec::new();
    for (label, source) in labels.iter().zip(&sources) {
        let checked = validate::check_dir(source, &opts.thresholds, Records::Skip);
        findings.extend(
            validate::fold_run_wide(checked, source.cells.len())
                .into_iter()
                .map(|mut f| {
                    if several {
                        f.cell = format!("{label}/{}", f.cell);
                    }
                    f
                }),
        );
    }
    let mut shown = Vec::new();
    let mut timelines: Vec<Option<Rendered>> = vec![None; cells.len()];
    let mut requests: Vec<(Cell, CellRequests)> = Vec::new();
    for (job, result) in jobs.iter().zip(done) {
        let d = result?;
        findings.extend(d.finding);
        unreadable.extend(d.unreadable);
        if let (Job::Timeline(i), Some(r)) = (job, d.requests) {
            requests.push((cells[*i], r));
        }
        match (job, d.rendered) {
            (Job::Overview(_), Some(r)) => shown.push(r),
            (Job::Timeline(i), Some(r)) => timelines[*i] = Some(r),
            (_, None) => {}
        }
    }
    let plots = figures::distributions(dm, &requests);
    let distributions: Vec<Rendered> = parallel(&plots, |p| figures::save(p, &opts.figures_dir))
        .into_iter()
        .collect::<Result<_, _>>()?;
    let slo = if several {
        Slo::PerRun
    } else {
        Slo::of(
            capacity.first().map(|r| &r.file),
            dir.run_info().map(|r| &r.config),
        )
    };
    let cards = headline::cards(&m, &slo);

    let root = opts.out_dir.as_ref().unwrap_or(&opts.results_dir);
    std::fs::create_dir_all(root).map_err(|source| ReportError::Write {
        path: root.clone(),
        source,
    })?;
    let sources_shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let shown_dir = sources_shown.join(" + ");
    let run = match &dir.run {
        _ if several => Err(format!(
            "{} results directories side by side ({}); each has its own run.json",
            sources.len(),
            labels.join(", ")
        )),
        Some(Ok(run)) => Ok(run),
        Some(Err(e)) => Err(e.to_string()),
        None => Err("no run.json in the results directory".into()),
    };
    let pages = if paged {
        let with: Vec<(Cell, Option<&Rendered>)> = cells
            .iter()
            .copied()
            .zip(timelines.iter().map(Option::as_ref))
            .collect();
        let on = html::pages::Pages {
            m: &m,
            thresholds: &opts.thresholds,
            results_dir: &shown_dir,
            root,
        };
        Some(html::pages::write(&on, &with)?)
    } else {
        None
    };
    html::pages::remove_stale(root, pages.as_ref().map_or(0, Vec::len))?;
    let timelines: Vec<Rendered> = timelines.into_iter().flatten().collect();
    let page = html::render(&html::Page {
        m: &m,
        results_dir: &shown_dir,
        run,
        capacity: &capacity,
        repeats: &repeats,
        findings: &findings,
        thresholds: &opts.thresholds,
        overview: &shown,
        distributions: &distributions,
        timelines: if paged { &[] } else { &timelines },
        pages: pages.as_deref(),
        headline: &cards,
    });
    let html_path = root.join(HTML_FILE);
    results::write_atomic(&html_path, page.as_bytes()).map_err(ReportError::Output)?;
    // By reference: a clone per figure would hold every timeline twice (and, inline, its SVG).
    let listed: Vec<(&Rendered, String)> = shown
        .iter()
        .chain(&distributions)
        .chain(&timelines)
        .map(|r| {
            let png = &r.files[0];
            let place = png.strip_prefix(root).unwrap_or(png);
            (r, place.display().to_string())
        })
        .collect();
    let md = markdown::render(&markdown::Input {
        m: &m,
        results_dir: &shown_dir,
        run: dir.run_info(),
        capacity: &capacity,
        repeats: &repeats,
        findings: &findings,
        thresholds: &opts.thresholds,
        headline: &cards,
        figures: &listed,
        paged,
    });
    let md_path = root.join(MARKDOWN_FILE);
    results::write_atomic(&md_path, md.as_bytes()).map_err(ReportError::Output)?;
    let csv_path = root.join(CSV_FILE);
    results::csv::write(&csv_path, cells.iter().map(|c| c.summary)).map_err(ReportError::Output)?;

    Ok(Output {
        html: html_path,
        markdown: md_path,
        csv: csv_path,
        figures: shown
            .into_iter()
            .chain(distributions)
            .chain(timelines)
            .collect(),
        cells: cells.len(),
        findings,
        unreadable,
        missing,
        warnings: dir.warnings.clone(),
    })
}
