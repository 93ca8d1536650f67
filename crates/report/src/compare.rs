//! `plateau compare`: a baseline results directory against one or more candidates. Cells
//! are matched ([`runs`]), every compared quantity ([`metric::METRICS`]: percentiles,
//! means, throughputs, shares) of a matched cell is tested ([`analyze`]), and compare.csv,
//! compare.md, compare.html (each opening with one table per scenario) and the figures
//! (each run one line, per scenario) are written ([`write`](mod@write), [`summary`],
//! [`html`], [`figures`]).
//!
//! The statistics, in short: each side's measure windows are cut into blocks long enough
//! for their means to be close to uncorrelated ([`blocks`]); a block bootstrap
//! ([`bootstrap`], fixed seed, [`Options::resamples`] resamples) draws whole blocks on each
//! side and computes every quantity from the same draw, so each quantity has its own
//! interval and p-value from one resampling; the cell's quantities are one family,
//! adjusted by Bonferroni ([`stats`]), and a verdict is "better" or "worse" exactly when
//! the adjusted interval excludes 0. Rows whose cell is unsteady, overloaded or failed on
//! either side, or whose percentile rests on too few samples, are flagged and left out of
//! the better/worse counts unless [`Options::include_unsteady`].
//!
//! Order: the baseline first everywhere (columns, each cell's line, figure series, colours
//! and legends), then the candidates in the order given.

pub mod analyze;
pub mod blocks;
pub mod bootstrap;
pub mod figures;
pub mod html;
pub mod metric;
pub mod runs;
pub mod stats;
pub mod summary;
pub mod write;

use std::path::{Path, PathBuf};

use plateau_model::results::dir::ResultsDir;
use plateau_model::results::{self, read_samples};

use crate::error::ReportError;
use crate::figures::Rendered;
use crate::font;
use analyze::Row;
use blocks::Loaded;
use runs::{Group, MatchBy};

/// compare.html's file name.
pub const HTML_FILE: &str = "compare.html";
/// compare.md's file name.
pub const MARKDOWN_FILE: &str = "compare.md";
/// compare.csv's file name.
pub const CSV_FILE: &str = "compare.csv";
/// The bootstrap's seed: the same intervals on every run.
pub const SEED: u64 = 0x0070_6c61_7465_6175;
/// Bootstrap resamples by default: enough that a family of 14 quantities still has about
/// 9 resampled differences beyond each end of its 99.6% intervals.
pub const RESAMPLES: usize = 10_000;

/// What to compare and where to write.
#[derive(Clone, Debug)]
pub struct Options {
    /// The baseline results directory, then the candidates.
    pub dirs: Vec<PathBuf>,
    /// Where compare.csv/.md/.html go (figures in `figures/` under it).
    pub out_dir: PathBuf,
    /// Bootstrap resamples per matched cell.
    pub resamples: usize,
    /// Count the flagged rows (a side unsteady, overloaded, failed, or a small sample) in
    /// the better/worse tallies too.
    pub include_unsteady: bool,
}

impl Options {
    /// Defaults for everything but the directories.
    pub fn new(dirs: Vec<PathBuf>, out_dir: impl Into<PathBuf>) -> Options {
        Options {
            dirs,
            out_dir: out_dir.into(),
            resamples: RESAMPLES,
            include_unsteady: false,
        }
    }
}

/// One matched cell.
#[derive(Debug)]
pub struct CellResult {
    /// `A1/c8`.
    pub place: String,
    /// Its scenario.
    pub scenario: String,
    /// Its load.
    pub load: plateau_model::load::Load,
    /// The baseline cell (`vllm/llama-8b/A1/c8`).
    pub baseline: String,
    /// The candidate cell.
    pub candidate: String,
    /// Repeats of each side.
    pub repeats: [usize; 2],
    /// One row per quantity.
    pub rows: Vec<Row>,
    /// The bootstrap's block length, s.
    pub block_s: u64,
    /// Blocks on each side.
    pub blocks: [usize; 2],
    /// Why every row of the cell is flagged (a side unsteady, overloaded or failed).
    pub flags: Vec<String>,
}

/// One candidate against the baseline.
#[derive(Debug)]
pub struct Comparison {
    /// The baseline's label (its directory name).
    pub baseline: String,
    /// The candidate's label.
    pub candidate: String,
    /// What cells were matched on.
    pub by: MatchBy,
    /// Matched cells, in the baseline's order.
    pub cells: Vec<CellResult>,
    /// Baseline cells the candidate does not have.
    pub only_baseline: Vec<String>,
    /// Candidate cells the baseline does not have.
    pub only_candidate: Vec<String>,
    /// Whether flagged rows count in the tallies.
    pub include_unsteady: bool,
}

/// How many rows got each verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Better.
    pub better: usize,
    /// Worse.
    pub worse: usize,
    /// No significant difference.
    pub same: usize,
    /// Not tested.
    pub untested: usize,
    /// Flagged and left out of the four counts above.
    pub flagged: usize,
}

impl Tally {
    /// The counts in words.
    pub fn text(&self, include_unsteady: bool) -> String {
        let flagged = if include_unsteady {
            format!(
                "{} of them flagged, counted as --include-unsteady asks",
                self.flagged
            )
        } else {
            format!(
                "{} flagged (a side unsteady, overloaded, failed or from too few samples) and \
                 left out",
                self.flagged
            )
        };
        format!(
            "{} better, {} worse, {} no significant difference, {} not tested; {flagged}",
            self.better, self.worse, self.same, self.untested
        )
    }
}

impl Comparison {
    /// How many rows got each verdict; flagged rows apart unless `include_unsteady`.
    pub fn tally(&self) -> Tally {
        let mut t = Tally::default();
        for r in self.cells.iter().flat_map(|c| &c.rows) {
            let flagged = !r.flags.is_empty();
            t.flagged += usize::from(flagged);
            if flagged && !self.include_unsteady {
                continue;
            }
            match r.verdict {
                analyze::Verdict::Better => t.better += 1,
                analyze::Verdict::Worse => t.worse += 1,
                analyze::Verdict::Same => t.same += 1,
                analyze::Verdict::Untested => t.untested += 1,
            }
        }
        t
    }
}

/// What [`compare`] wrote and found.
#[derive(Debug)]
pub struct Output {
    /// compare.html.
    pub html: PathBuf,
    /// compare.md.
    pub markdown: PathBuf,
    /// compare.csv.
    pub csv: PathBuf,
    /// The figures.
    pub figures: Vec<Rendered>,
    /// One per candidate.
    pub comparisons: Vec<Comparison>,
    /// Files that could not be read (their cells are left out), each naming the file.
    pub unreadable: Vec<String>,
    /// What the reader should know of the input (files from a newer plateau).
    pub warnings: Vec<String>,
}

impl Output {
    /// A few lines for the terminal.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for c in &self.comparisons {
            out.push_str(&format!(
                "{} vs {}: {} matched cells; {}; unmatched: {} baseline, {} candidate\n",
                c.candidate,
                c.baseline,
                c.cells.len(),
                c.tally().text(c.include_unsteady),
                c.only_baseline.len(),
                c.only_candidate.len()
            ));
        }
        for path in [&self.html, &self.markdown, &self.csv] {
            out.push_str(&format!("wrote {}\n", path.display()));
        }
        out
    }
}

/// A run's label: its directory's name, or the whole path when two runs share a name.
pub fn labels(dirs: &[PathBuf]) -> Vec<String> {
    let name = |d: &Path| {
        d.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| d.display().to_string())
    };
    let names: Vec<String> = dirs.iter().map(|d| name(d)).collect();
    dirs.iter()
        .zip(&names)
        .map(|(d, n)| {
            if names.iter().filter(|x| *x == n).count() > 1 {
                d.display().to_string()
            } else {
                n.clone()
            }
        })
        .collect()
}

/// Compares `opts.dirs[1..]` each against `opts.dirs[0]` and writes the results.
pub fn compare(opts: &Options) -> Result<Output, ReportError> {
    font::register()?;
    let dirs: Vec<ResultsDir> = opts
        .dirs
        .iter()
        .map(|d| ResultsDir::read(d))
        .collect::<Result<_, _>>()?;
    let labels = labels(&opts.dirs);
    let mut unreadable: Vec<String> = dirs
        .iter()
        .flat_map(|d| {
            d.cells
                .iter()
                .filter_map(|c| c.summary.as_ref().err().map(|e| e.to_string()))
                .chain(d.skipped.iter().map(|e| e.to_string()))
        })
        .collect();
    let warnings: Vec<String> = dirs.iter().flat_map(|d| d.warnings.clone()).collect();
    let groups: Vec<Vec<Group>> = dirs.iter().map(runs::groups).collect();
    for (d, g) in dirs.iter().zip(&groups) {
        if g.is_empty() {
            return Err(ReportError::NoCells {
                path: d.root.clone(),
                errors: unreadable.iter().map(|e| format!("\n  {e}")).collect(),
            });
        }
    }
    let mut comparisons = Vec::new();
    for (k, cand) in groups.iter().enumerate().skip(1) {
        let m = runs::matching(&groups[0], cand);
        let mut cells = Vec::new();
        for (b, c) in &m.pairs {
            match (load(b, 0), load(c, 0)) {
                (Ok(lb), Ok(lc)) => {
                    let tested = analyze::cell(&lb, &lc, opts.resamples, SEED);
                    cells.push(CellResult {
                        place: b.place(),
                        scenario: b.scenario.to_owned(),
                        load: b.load,
                        baseline: b.name(),
                        candidate: c.name(),
                        repeats: [lb.len(), lc.len()],
                        rows: tested.rows,
                        block_s: tested.block_s,
                        blocks: tested.blocks,
                        flags: tested.flags,
                    })
                }
                (Err(e), _) | (_, Err(e)) => unreadable.push(e),
            }
        }
        comparisons.push(Comparison {
            baseline: labels[0].clone(),
            candidate: labels[k].clone(),
            by: m.by,
            cells,
            only_baseline: m.only_baseline.iter().map(|g| g.name()).collect(),
            only_candidate: m.only_candidate.iter().map(|g| g.name()).collect(),
            include_unsteady: opts.include_unsteady,
        });
    }

    let figures_dir = opts.out_dir.join("figures");
    std::fs::create_dir_all(&figures_dir).map_err(|source| ReportError::Write {
        path: figures_dir.clone(),
        source,
    })?;
    let runs: Vec<(String, &ResultsDir)> = labels.iter().cloned().zip(&dirs).collect();
    let figures = figures::draw(&runs, &figures_dir)?;

    let write = |name: &str, text: String| -> Result<PathBuf, ReportError> {
        let path = opts.out_dir.join(name);
        results::write_atomic(&path, text.as_bytes()).map_err(ReportError::Output)?;
        Ok(path)
    };
    let csv = write(CSV_FILE, write::csv(&comparisons))?;
    let markdown = write(
        MARKDOWN_FILE,
        write::markdown(&comparisons, &unreadable, opts.resamples),
    )?;
    let html = write(
        HTML_FILE,
        html::render(&comparisons, &figures, &unreadable, opts.resamples),
    )?;
    Ok(Output {
        html,
        markdown,
        csv,
        figures,
        comparisons,
        unreadable,
        warnings,
    })
}

/// The repeats of `g` with their records, numbered run `run` ([`Loaded::run`]); the error
/// names the file that could not be read.
pub fn load<'a>(g: &Group<'a>, run: usize) -> Result<Vec<Loaded<'a>>, String> {
    g.cells
        .iter()
        .map(|&(_, files, summary)| {
            if let Some(e) = &summary.records.write_error {
                return Err(format!(
                    "{}: the records were not written ({e}); cell left out",
                    files.dir.display()
                ));
            }
            let samples = read_samples(&files.dir.join(&summary.records.file))
                .map_err(|e| format!("{e}; cell left out"))?;
            Ok(Loaded {
                summary,
                samples,
                run,
            })
        })
        .collect()
}
