//! `plateau trace stats`: what a trace asks of a server — arrivals per second over time,
//! the input and output length distributions, and prefix sharing: the share of input
//! tokens an ideal prefix cache (unbounded, block-granular, requests in file order) could
//! reuse, from `hash_ids` alone.

use std::collections::{BTreeMap, HashSet};

use plateau_model::metrics::Distribution;
use serde::Serialize;

use super::Record;

/// Arrivals in one bucket of time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Bucket {
    /// Start of the bucket, s since the first request.
    pub start_s: f64,
    /// Requests that arrived in it.
    pub requests: u64,
    /// `requests` / the bucket's length.
    pub rps: f64,
}

/// A trace's statistics.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stats {
    /// Records.
    pub requests: u64,
    /// First to last arrival, s (`None` when no record has a timestamp).
    pub duration_s: Option<f64>,
    /// Requests over the duration, req/s (`None` for a trace of one instant).
    pub mean_rps: Option<f64>,
    /// Arrivals over time.
    pub rate: Vec<Bucket>,
    /// Input lengths, tokens (records that give `input_length`).
    pub input_tokens: Option<Distribution>,
    /// Output lengths, tokens.
    pub output_tokens: Option<Distribution>,
    /// Distinct sessions, where the trace names them.
    pub sessions: Option<u64>,
    /// Requests per model, where the trace names it (BurstGPT).
    pub models: BTreeMap<String, u64>,
    /// Share of input tokens an ideal prefix cache could reuse; `None` when the trace has
    /// no `hash_ids` (the reason is [`Stats::prefix_share_absent`]).
    pub ideal_prefix_share: Option<f64>,
    /// Why `ideal_prefix_share` is absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix_share_absent: Option<String>,
}

/// The statistics of `records`, arrivals counted in buckets of `bucket_s` seconds and
/// `hash_ids` read as blocks of `block_tokens`.
pub fn stats(records: &[Record], bucket_s: f64, block_tokens: u32) -> Stats {
    let times: Vec<f64> = records.iter().filter_map(|r| r.timestamp_ms).collect();
    let last_ms = times.iter().copied().fold(f64::NAN, f64::max);
    let duration_s = (!times.is_empty()).then_some(last_ms / 1e3);
    let mut rate = Vec::new();
    if let Some(d) = duration_s.filter(|_| bucket_s > 0.0) {
        let n = (d / bucket_s).floor() as usize + 1;
        rate = (0..n)
            .map(|i| Bucket {
                start_s: i as f64 * bucket_s,
                requests: 0,
                rps: 0.0,
            })
            .collect();
        for t in &times {
            let i = ((t / 1e3) / bucket_s).floor() as usize;
            if let Some(b) = rate.get_mut(i.min(n - 1)) {
                b.requests += 1;
            }
        }
        for b in &mut rate {
            b.rps = b.requests as f64 / bucket_s;
        }
    }
    let inputs: Vec<f64> = records
        .iter()
        .filter_map(|r| r.input_length())
        .map(f64::from)
        .collect();
    let outputs: Vec<f64> = records.iter().map(|r| f64::from(r.output_length)).collect();
    let sessions: HashSet<&str> = records
        .iter()
        .filter_map(|r| r.session_id.as_deref())
        .collect();
    let mut models = BTreeMap::new();
    for m in records.iter().filter_map(|r| r.model.as_deref()) {
        *models.entry(m.to_owned()).or_insert(0) += 1;
    }
    let share = ideal_prefix_share(records, block_tokens);
    Stats {
        requests: records.len() as u64,
        duration_s,
        mean_rps: duration_s
            .filter(|d| *d > 0.0)
            .map(|d| times.len() as f64 / d),
        rate,
        input_tokens: Distribution::from_values(&inputs),
        output_tokens: Distribution::from_values(&outputs),
        sessions: (!sessions.is_empty()).then_some(sessions.len() as u64),
        models,
        prefix_share_absent: share.as_ref().err().cloned(),
        ideal_prefix_share: share.ok(),
    }
}

/// The share of input tokens whose block an earlier request already sent with the same
/// prefix (the chain of ids up to and including it), in file order; a partial last block
/// counts its own tokens. Records that send recorded messages are left out.
pub fn ideal_prefix_share(records: &[Record], block_tokens: u32) -> Result<f64, String> {
    if !records.iter().any(|r| !r.hash_ids.is_empty()) {
        return Err("the trace has no hash_ids".into());
    }
    let block = u64::from(block_tokens.max(1));
    let mut seen: HashSet<&[u64]> = HashSet::new();
    let (mut total, mut reused) = (0u64, 0u64);
    for r in records {
        let Some(len) = r.input_length().map(u64::from) else {
            continue;
        };
        total += len;
        for i in 0..r.hash_ids.len() {
            let from = i as u64 * block;
            if from >= len {
                break;
            }
            if !seen.insert(&r.hash_ids[..=i]) {
                reused += (len - from).min(block);
            }
        }
    }
    if total == 0 {
        return Err("the trace's requests have no input tokens".into());
    }
    Ok(reused as f64 / total as f64)
}
