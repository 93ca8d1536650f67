//! Load shards joined: every runner ran every cell with its share of the load, so each
//! merged cell's records are all runners' records on one timeline (each shifted by its
//! start after the earliest runner's, slots renumbered apart), and its summary is computed
//! again from them by [`metrics::summarize`], the code that summarizes any cell: never an
//! average of the shards' numbers. The measure window is the span every runner was
//! measuring; the server's metrics are the earliest runner's (taken once, on its clock,
//! which is the merged timeline's).

use std::path::Path;

use chrono::{DateTime, Utc};

use super::cells::Joined;
use super::{MergeError, ShardDir};
use crate::config::RunConfig;
use crate::load::LoadInfo;
use crate::metrics::{self, Options, Window};
use crate::results::dir::SERVER_METRICS_FILE;
use crate::results::run_info::{CellEntry, CellState, RunStatus};
use crate::results::summary::{CellShard, CellStatus, CellSummary, RecordsInfo};
use crate::results::{self, REQUESTS_FILE, ResultsError, SUMMARY_FILE};
use crate::sample::Sample;
use crate::server_timing::ServerTimingSummary;

/// One runner's part of one cell.
struct Part<'a> {
    shard: &'a ShardDir,
    summary: Option<CellSummary>,
    samples: Vec<Sample>,
}

/// Merges every cell of the load shards into `out`.
pub fn join(shards: &[ShardDir], out: &Path, bound_us: u64) -> Result<Vec<Joined>, MergeError> {
    let first = &shards[0];
    for s in &shards[1..] {
        let paths = |d: &ShardDir| d.info.cells.iter().map(|c| c.path.clone()).collect();
        let (a, b): (Vec<String>, Vec<String>) = (paths(first), paths(s));
        if a != b {
            return Err(MergeError::Differs {
                dir: s.dir.clone(),
                index: s.record.shard.index,
                field: "cells".into(),
                expected: a.join(","),
                got: b.join(","),
            });
        }
    }
    let mut joined = Vec::with_capacity(first.info.cells.len());
    for entry in &first.info.cells {
        let parts = shards
            .iter()
            .map(|shard| read_part(shard, &entry.path))
            .collect::<Result<Vec<_>, _>>()?;
        parts
            .iter()
            .try_for_each(|p| on_time(p, &entry.path, bound_us))?;
        joined.push(merge_cell(&first.info.config, &entry.path, parts, out)?);
    }
    Ok(joined)
}

/// The shard's summary and records of the cell at `path`, when it ran.
fn read_part<'a>(shard: &'a ShardDir, path: &str) -> Result<Part<'a>, ResultsError> {
    let dir = shard.dir.join(path);
    let summary: Option<CellSummary> = results::read_json_if_present(&dir.join(SUMMARY_FILE))?;
    let samples = match &summary {
        Some(s) if s.records.write_error.is_none() => {
            results::read_samples(&dir.join(REQUESTS_FILE))?
        }
        _ => Vec::new(),
    };
    Ok(Part {
        shard,
        summary,
        samples,
    })
}

/// Refuses a runner that began one of the cell's phases further from the common
/// timetable than `bound_us`.
fn on_time(part: &Part<'_>, path: &str, bound_us: u64) -> Result<(), MergeError> {
    let Some(t) = part.summary.as_ref().and_then(|s| s.timetable.as_ref()) else {
        return Ok(());
    };
    let (phase, offset) = t.offsets_us.worst();
    if offset.unsigned_abs() <= bound_us {
        return Ok(());
    }
    Err(MergeError::OffSchedule {
        dir: part.shard.dir.clone(),
        index: part.shard.record.shard.index,
        cell: path.to_owned(),
        phase,
        offset_ms: offset as f64 / 1000.0,
        bound_ms: bound_us as f64 / 1000.0,
    })
}

/// One merged cell, written into `out`.
fn merge_cell(
    config: &RunConfig,
    path: &str,
    mut parts: Vec<Part<'_>>,
    out: &Path,
) -> Result<Joined, MergeError> {
    let starts: Vec<DateTime<Utc>> = parts
        .iter()
        .filter_map(|p| p.summary.as_ref().map(|s| s.started_at))
        .collect();
    let Some(&t0) = starts.iter().min() else {
        return Ok(Joined {
            entry: entry(path, CellState::Pending, Some("no shard ran it".into())),
            summary: None,
        });
    };
    let (shards, samples, window) = timeline(&mut parts, t0, path);
    let reference = parts
        .iter()
        .find(|p| p.summary.as_ref().map(|s| s.started_at) == Some(t0))
        .and_then(|p| p.summary.as_ref().map(|s| (p.shard, s.clone())));
    let Some((first, mut summary)) = reference else {
        return Ok(Joined {
            entry: entry(path, CellState::Pending, None),
            summary: None,
        });
    };
    let load = total_load(&parts);
    let window = Window {
        concurrency: load.concurrency,
        ..window
    };
    summary.metrics = metrics::summarize(
        &samples,
        &window,
        &Options {
            slo: config.slo.as_ref(),
            steady: &config.steady,
            stream: config.stream,
            target_rps: load.request_rate,
            fill_end_us: Some((summary.phases.fill_s * 1e6) as u64),
        },
    );
    summary.server_timing =
        ServerTimingSummary::measure(&samples, &window, config.stream).map(Box::new);
    summary.cell.load = load;
    summary.phases.m0_us = window.m0_us;
    summary.phases.m1_us = window.m1_us;
    summary.phases.end_us = samples.iter().map(|s| s.t_end_us).max().unwrap_or(0);
    summary.phases.drain_end_us = summary.phases.end_us;
    summary.ended_at = parts
        .iter()
        .filter_map(|p| p.summary.as_ref().map(|s| s.ended_at))
        .max()
        .unwrap_or(summary.ended_at);
    summary.records = RecordsInfo {
        file: REQUESTS_FILE.into(),
        count: samples.len() as u64,
        write_error: None,
    };
    summary.client = None;
    summary.fingerprint = None;
    summary.timetable = None;
    (summary.status, summary.failure) = status(&shards);
    summary.shards = shards;
    let (labels, hardware) = (summary.cell.labels.clone(), summary.cell.hardware.clone());
    summary.describe_endpoint(&labels, hardware.as_ref());
    let dir = out.join(path);
    std::fs::create_dir_all(&dir).map_err(|e| ResultsError::io(&dir, e))?;
    results::write_samples(&dir.join(REQUESTS_FILE), &samples)?;
    let scrapes = first.dir.join(path).join(SERVER_METRICS_FILE);
    if scrapes.is_file() {
        let to = dir.join(SERVER_METRICS_FILE);
        std::fs::copy(&scrapes, &to).map_err(|e| ResultsError::io(&to, e))?;
    }
    results::write_json(&dir.join(SUMMARY_FILE), &summary)?;
    Ok(Joined {
        entry: entry(path, summary.status.into(), summary.failure.clone()),
        summary: Some(summary),
    })
}

/// Every runner's records on the timeline that starts at `t0`: shifted by its start
/// after `t0`, its slots numbered after the earlier runners', renumbered in send order;
/// the window every runner was measuring; and each runner's part as the summary lists it.
fn timeline(
    parts: &mut [Part<'_>],
    t0: DateTime<Utc>,
    path: &str,
) -> (Vec<CellShard>, Vec<Sample>, Window) {
    let (mut m0, mut m1) = (0u64, u64::MAX);
    let mut slots = 0u32;
    let mut shards = Vec::with_capacity(parts.len());
    let mut samples = Vec::new();
    for part in parts.iter_mut() {
        let Some(s) = &part.summary else {
            shards.push(absent(part.shard, path));
            continue;
        };
        let shift = (s.started_at - t0).num_microseconds().unwrap_or(0).max(0) as u64;
        m0 = m0.max(s.phases.m0_us + shift);
        m1 = m1.min(s.phases.m1_us + shift);
        let held = s.cell.load.concurrency.unwrap_or(0);
        for mut sample in std::mem::take(&mut part.samples) {
            shift_sample(&mut sample, shift);
            sample.slot += slots;
            samples.push(sample);
        }
        shards.push(CellShard {
            index: part.shard.record.shard.index,
            dir: part.shard.dir.display().to_string(),
            host: part.shard.info.host.hostname.clone(),
            status: s.status,
            held: s.cell.load,
            started_at: s.started_at,
            shift_us: shift,
            requests: s.records.count,
            reason: s.failure.clone(),
            client: s.client.clone(),
            offsets_us: s.timetable.as_ref().map(|t| t.offsets_us),
        });
        slots += held.max(s.cell.load.max_concurrency.unwrap_or(0));
    }
    samples.sort_by_key(|s| (s.t_start_us(), s.slot));
    for (seq, s) in samples.iter_mut().enumerate() {
        s.seq = seq as u64;
    }
    let window = Window {
        m0_us: m0,
        m1_us: m1.max(m0),
        concurrency: None,
    };
    (shards, samples, window)
}

/// A runner that has no summary of the cell: it never reached it, or it was stopped in
/// it before writing one (killed: its `run.json` still says `running`).
fn absent(shard: &ShardDir, path: &str) -> CellShard {
    // The cell's folder is made as the cell starts; its summary is written as it ends.
    let started = shard.dir.join(path).is_dir();
    let reason = match (started, shard.info.status) {
        (false, _) => "it never reached this cell".to_owned(),
        (true, RunStatus::Running) => "it stopped in this cell without writing its summary \
             (killed? its run.json still says running)"
            .to_owned(),
        (true, status) => format!("its run ended {status:?} in this cell").to_lowercase(),
    };
    CellShard {
        reason: Some(reason),
        index: shard.record.shard.index,
        dir: shard.dir.display().to_string(),
        host: shard.info.host.hostname.clone(),
        status: CellStatus::Interrupted,
        held: LoadInfo::default(),
        started_at: shard.info.started_at,
        shift_us: 0,
        requests: 0,
        client: None,
        offsets_us: None,
    }
}

/// Moves every instant of `s` later by `shift` us.
fn shift_sample(s: &mut Sample, shift: u64) {
    s.t_sent_us += shift;
    s.t_end_us += shift;
    s.t_intended_us = s.t_intended_us.map(|t| t + shift);
    s.t_first_answer_us = s.t_first_answer_us.map(|t| t + shift);
    for c in &mut s.chunks {
        c.t_us += shift;
    }
}

/// The whole load: the runners' shares added up (N, the rate, any cap).
fn total_load(parts: &[Part<'_>]) -> LoadInfo {
    let mut total = LoadInfo::default();
    for p in parts {
        let Some(s) = &p.summary else { continue };
        let held = s.cell.load;
        let add = |a: Option<u32>, b: Option<u32>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        };
        total.concurrency = add(total.concurrency, held.concurrency);
        total.max_concurrency = add(total.max_concurrency, held.max_concurrency);
        total.request_rate = match (total.request_rate, held.request_rate) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        };
        total.arrival = total.arrival.or(held.arrival);
        total.rate_unit = total.rate_unit.or(held.rate_unit);
    }
    if let Some(r) = &mut total.request_rate {
        *r = (*r * 1000.0).round() / 1000.0;
    }
    total
}

/// The merged cell's status: complete when every runner's part was, else the first
/// runner's that was not, and why, naming every such runner.
fn status(shards: &[CellShard]) -> (CellStatus, Option<String>) {
    let not: Vec<&CellShard> = shards
        .iter()
        .filter(|s| s.status != CellStatus::Complete)
        .collect();
    match not.first() {
        None => (CellStatus::Complete, None),
        Some(first) => {
            let why: Vec<String> = not
                .iter()
                .map(|s| {
                    let state = match s.status {
                        CellStatus::Interrupted => "interrupted",
                        _ => "failed",
                    };
                    let why = s
                        .reason
                        .as_deref()
                        .map(|r| format!(": {r}"))
                        .unwrap_or_default();
                    format!("shard {} ({}) {state}{why}", s.index, s.dir)
                })
                .collect();
            (
                first.status,
                Some(format!(
                    "incomplete: {}; the merged numbers hold less than the whole load",
                    why.join("; ")
                )),
            )
        }
    }
}

/// A merged `run.json` cell entry.
fn entry(path: &str, state: CellState, reason: Option<String>) -> CellEntry {
    CellEntry {
        path: path.to_owned(),
        state,
        reason,
        redone: None,
    }
}
