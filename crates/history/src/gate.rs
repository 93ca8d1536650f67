//! `plateau check`: a run judged cell by cell against its baseline with `compare`'s
//! statistics. The baseline is one or more recorded runs; their repeats of a cell are
//! pooled, each run its own cluster ([`Loaded::run`]), so the bootstrap draws runs before
//! blocks and the baseline's interval carries the across-run spread. Each gated number
//! ([`Tolerance`]) of a matched cell is then: regressed (worse, significantly, by more than
//! its tolerance), worse within tolerance, beyond tolerance but not significant, better,
//! the same, or not judged (a side unsteady, overloaded or failed, a small sample, too
//! few blocks) — never silently passed.

use std::collections::BTreeMap;
use std::path::PathBuf;

use plateau_model::config::Tolerance;
use plateau_model::quantity::Quantity;
use plateau_model::results::dir::ResultsDir;
use plateau_model::results::summary::CellStatus;
use plateau_report::compare::analyze::{self, Row, Verdict};
use plateau_report::compare::blocks::Loaded;
use plateau_report::compare::runs::{self, Group};
use plateau_report::compare::{self, SEED};

use crate::HistoryError;

/// How the gate judges.
#[derive(Clone, Debug)]
pub struct Options {
    /// Bootstrap resamples per cell.
    pub resamples: usize,
    /// Judge rows of unsteady, overloaded or failed cells and small samples too.
    pub allow_unsteady: bool,
    /// The gated numbers: name, quantity, tolerance.
    pub tolerances: Vec<(&'static str, Quantity, Tolerance)>,
}

/// What became of one gated number of one cell.
#[derive(Clone, Debug, PartialEq)]
pub enum Judgement {
    /// Worse by more than the tolerance, and significant.
    Regressed,
    /// Significantly worse, within the tolerance.
    WorseWithin,
    /// Beyond the tolerance, but not significant: noise cannot be ruled out.
    NotSignificant,
    /// Significantly better.
    Better,
    /// No significant change within tolerance.
    Same,
    /// Not judged, and why.
    Unjudged(String),
}

impl Judgement {
    /// What the table says.
    pub fn text(&self) -> String {
        match self {
            Judgement::Regressed => "REGRESSED".into(),
            Judgement::WorseWithin => "worse, within tolerance".into(),
            Judgement::NotSignificant => "beyond tolerance, not significant".into(),
            Judgement::Better => "better".into(),
            Judgement::Same => "same".into(),
            Judgement::Unjudged(why) => format!("NOT JUDGED: {why}"),
        }
    }
}

/// One gated number of one matched cell.
#[derive(Clone, Debug)]
pub struct Line {
    /// The candidate's cell (`sim/m/A1/c8`).
    pub cell: String,
    /// The number's name in `check` (`tpot_p50`).
    pub name: &'static str,
    /// The number.
    pub quantity: Quantity,
    /// Its tolerance.
    pub tolerance: Tolerance,
    /// compare's row (values, interval, verdict, flags).
    pub row: Row,
    /// The verdict.
    pub judgement: Judgement,
}

/// How the check ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every gated number judged; none regressed. Exit 0.
    Pass,
    /// Some number regressed. Exit 1.
    Regressed,
    /// Nothing regressed, but some number could not be judged. Exit 3.
    Unjudged,
}

/// The gate's findings.
#[derive(Debug, Default)]
pub struct Findings {
    /// Every gated number of every matched cell.
    pub lines: Vec<Line>,
    /// Baseline runs pooled, by their label.
    pub baseline: Vec<String>,
    /// Candidate cells no baseline run has.
    pub new_cells: Vec<String>,
    /// Baseline cells the candidate lacks.
    pub missing_cells: Vec<String>,
    /// What the reader should know (baseline repeats left out of the pool, unreadable
    /// records).
    pub notes: Vec<String>,
}

impl Findings {
    /// Regressed first, then not judged, then pass.
    pub fn outcome(&self) -> Outcome {
        if self
            .lines
            .iter()
            .any(|l| l.judgement == Judgement::Regressed)
        {
            Outcome::Regressed
        } else if self
            .lines
            .iter()
            .any(|l| matches!(l.judgement, Judgement::Unjudged(_)))
        {
            Outcome::Unjudged
        } else {
            Outcome::Pass
        }
    }
}

/// Judges `candidate` against the baseline runs `baseline` (`(label, results directory)`,
/// pooled).
pub fn check(
    candidate: &std::path::Path,
    baseline: &[(String, PathBuf)],
    opts: &Options,
) -> Result<Findings, HistoryError> {
    if baseline.is_empty() {
        return Err(HistoryError::NoBaseline(
            "the selection holds no run".into(),
        ));
    }
    let read = |p: &std::path::Path| {
        ResultsDir::read(p).map_err(|e| HistoryError::Results {
            path: p.to_owned(),
            why: e.to_string(),
        })
    };
    let cand_dir = read(candidate)?;
    let base_dirs: Vec<ResultsDir> = baseline
        .iter()
        .map(|(_, p)| read(p))
        .collect::<Result<_, _>>()?;
    let cand_groups = runs::groups(&cand_dir);
    if cand_groups.is_empty() {
        return Err(HistoryError::Results {
            path: candidate.to_owned(),
            why: "no readable cell summary".into(),
        });
    }
    let base_groups: Vec<Vec<Group>> = base_dirs.iter().map(runs::groups).collect();
    // For each candidate cell, the matching cell of every baseline run.
    let mut pooled: BTreeMap<String, Vec<(usize, &Group)>> = BTreeMap::new();
    let mut missing = Vec::new();
    for (k, groups) in base_groups.iter().enumerate() {
        let m = runs::matching(groups, &cand_groups);
        for (b, c) in m.pairs {
            pooled.entry(c.name()).or_default().push((k, b));
        }
        missing.extend(m.only_baseline.iter().map(|g| g.name()));
    }
    missing.sort();
    missing.dedup();
    let mut findings = Findings {
        lines: Vec::new(),
        baseline: baseline.iter().map(|(l, _)| l.clone()).collect(),
        new_cells: Vec::new(),
        missing_cells: missing,
        notes: Vec::new(),
    };
    for c in &cand_groups {
        let Some(bases) = pooled.get(&c.name()) else {
            findings.new_cells.push(c.name());
            continue;
        };
        judge_cell(c, bases, baseline, opts, &mut findings);
    }
    Ok(findings)
}

/// Judges one candidate cell against its pooled baseline cells.
fn judge_cell(
    c: &Group,
    bases: &[(usize, &Group)],
    labels: &[(String, PathBuf)],
    opts: &Options,
    out: &mut Findings,
) {
    let mut base: Vec<Loaded> = Vec::new();
    // Every repeat of every baseline run is its own cluster of the bootstrap.
    for &(k, g) in bases {
        match compare::load(g, 0) {
            Ok(loaded) => {
                for mut l in loaded {
                    l.run = base.len();
                    base.push(l);
                }
            }
            Err(e) => out.notes.push(format!("baseline {}: {e}", labels[k].0)),
        }
    }
    let cand = match compare::load(c, 0) {
        Ok(mut loaded) => {
            for (r, l) in loaded.iter_mut().enumerate() {
                l.run = r;
            }
            loaded
        }
        Err(e) => {
            out.notes.push(format!("candidate: {e}"));
            Vec::new()
        }
    };
    judge_pool(&c.name(), base, &cand, opts, out);
}

/// Judges a candidate cell's repeats `cand` against its pooled baseline repeats `base` (each
/// numbered with its run, [`Loaded::run`]) and adds a line per gated number to `out`. A
/// baseline repeat that was not steady is left out while others remain.
pub fn judge_pool(
    cell: &str,
    mut base: Vec<Loaded>,
    cand: &[Loaded],
    opts: &Options,
    out: &mut Findings,
) {
    let mut dropped = Vec::new();
    let sound = |l: &Loaded| {
        let s = l.summary;
        s.status == CellStatus::Complete && s.metrics.steady.steady && !s.metrics.steady.overloaded
    };
    if base.iter().any(sound) {
        for l in base.iter().filter(|l| !sound(l)) {
            dropped.push(l.summary.cell.repeat);
        }
        base.retain(sound);
    }
    if !dropped.is_empty() {
        out.notes.push(format!(
            "{}: {} baseline repeat(s) unsteady, overloaded or failed, left out of the pool",
            cell,
            dropped.len()
        ));
    }
    if base.is_empty() || cand.is_empty() {
        for &(name, quantity, tolerance) in &opts.tolerances {
            out.lines.push(Line {
                cell: cell.to_owned(),
                name,
                quantity,
                tolerance,
                row: empty_row(quantity),
                judgement: Judgement::Unjudged("records unreadable".into()),
            });
        }
        return;
    }
    let tested = analyze::cell(&base, cand, opts.resamples, SEED);
    for &(name, quantity, tolerance) in &opts.tolerances {
        let Some(row) = tested
            .rows
            .iter()
            .find(|r| r.metric.q.field == quantity.field)
        else {
            continue; // neither side has it (goodput without an SLO): nothing to judge
        };
        out.lines.push(Line {
            cell: cell.to_owned(),
            name,
            quantity,
            tolerance,
            judgement: judge(row, tolerance, opts.allow_unsteady),
            row: row.clone(),
        });
    }
}

/// The verdict on one row.
pub fn judge(row: &Row, tolerance: Tolerance, allow_unsteady: bool) -> Judgement {
    if !row.flags.is_empty() && !allow_unsteady {
        return Judgement::Unjudged(row.flags.join(", "));
    }
    if row.test.is_none() {
        return Judgement::Unjudged(match (row.baseline, row.candidate) {
            (Some(_), Some(_)) => "too few blocks to test".into(),
            _ => "absent on one side".into(),
        });
    }
    let beyond = row.diff_pct().is_some_and(|d| d / tolerance.0 > 1.0);
    match (row.verdict, beyond) {
        (Verdict::Worse, true) => Judgement::Regressed,
        (Verdict::Worse, false) => Judgement::WorseWithin,
        (Verdict::Better, _) => Judgement::Better,
        (_, true) => Judgement::NotSignificant,
        _ => Judgement::Same,
    }
}

fn empty_row(quantity: Quantity) -> Row {
    let metric = plateau_report::compare::metric::METRICS
        .iter()
        .find(|m| m.q.field == quantity.field)
        .copied()
        .unwrap_or(plateau_report::compare::metric::METRICS[0]);
    Row {
        metric,
        baseline: None,
        candidate: None,
        test: None,
        verdict: Verdict::Untested,
        small_sample: [false; 2],
        flags: Vec::new(),
    }
}
