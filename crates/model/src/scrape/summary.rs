//! Per-phase summary of a cell's scrapes ([`ServerMetrics`] in `summary.json`): gauges'
//! mean and max, counters' increase (a counter that went down was reset: its new value is
//! the increase since, as Prometheus' `increase()` reads it), and histogram quantiles from
//! bucket increases, linearly interpolated inside the bucket as `histogram_quantile` does.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Scrape;
use super::engines::{KvUsage, Table};
use crate::results::summary::PhaseBounds;

/// A server is saturated at this N when more than this share of Measure's scrapes saw a
/// non-empty waiting queue. A request passing through the queue between two engine steps
/// shows up in a few scrapes at any N; a queue non-empty most of the time means requests
/// wait for room in the batch, so the client's N exceeds what the server runs at once.
pub const SATURATED_SHARE: f64 = 0.5;

/// Fewest Measure scrapes the saturation verdict is given on.
pub const MIN_VERDICT_SCRAPES: u64 = 4;

/// The server's own metrics over one cell, scraped from its Prometheus `/metrics`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServerMetrics {
    /// The mapping table used (`vllm`, `sglang`, `tgi`, `llamacpp`).
    pub engine: String,
    /// The raw scrapes' file in the cell directory.
    pub file: String,
    /// Time between scrapes, ms.
    pub interval_ms: u64,
    /// Scrapes taken over the cell.
    pub scrapes: u64,
    /// Scrapes that failed or timed out (they leave a gap; the cell is not disturbed).
    pub failed_scrapes: u64,
    /// Quantities this engine does not expose (always absent below).
    pub absent: Vec<String>,
    /// The server queued requests in most of Measure while plateau held N in flight (more
    /// than half of Measure's scrapes saw waiting > 0): it is saturated at this N. Absent
    /// without a waiting gauge or with fewer than 4 Measure scrapes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saturated: Option<bool>,
    /// Fill.
    pub fill: PhaseServer,
    /// Stabilize.
    pub stabilize: PhaseServer,
    /// Measure.
    pub measure: PhaseServer,
    /// Drain.
    pub drain: PhaseServer,
}

/// The server's metrics over one phase. Gauges: plain mean and max of the scrapes taken
/// inside the phase (scrapes are evenly spaced, so the mean approximates the time-weighted
/// one). Counters: increase from the last scrape at or before the phase's start to the last
/// one at or before its end; rates divide it by the time between those two scrapes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PhaseServer {
    /// Scrapes taken inside the phase.
    pub scrapes: u64,
    /// Requests in the server's running batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running: Option<Gauge>,
    /// Requests in the server's waiting queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting: Option<Gauge>,
    /// Share of the phase's scrapes that saw waiting > 0, 0..=1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting_share: Option<f64>,
    /// KV-cache usage as a fraction, 0..=1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kv_cache_usage: Option<Gauge>,
    /// Prefix-cache hits / queries (in tokens) over the phase, 0..=1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix_cache_hit_rate: Option<f64>,
    /// Requests preempted during the phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemptions: Option<f64>,
    /// Prompt tokens per second as the server counts them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens_per_s: Option<f64>,
    /// Generated tokens per second as the server counts them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation_tokens_per_s: Option<f64>,
    /// The server's own TTFT, seconds, from its histogram.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_s: Option<Quantiles>,
    /// The server's own time per output token (or inter-token latency), seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpot_s: Option<Quantiles>,
}

/// Mean and max of a gauge over a phase's scrapes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Gauge {
    /// Plain mean of the scrapes.
    pub mean: f64,
    /// Largest scrape.
    pub max: f64,
}

/// Quantiles of a server histogram's observations over a phase.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Quantiles {
    /// Observations in the phase.
    pub count: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
}

/// A half-open span of the cell clock, us.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// Start.
    pub from_us: u64,
    /// End (exclusive for gauges).
    pub to_us: u64,
}

/// The four phases' spans from a cell's bounds (Drain up to its end).
pub fn spans(b: &PhaseBounds) -> [Span; 4] {
    let fill = (b.fill_s * 1e6) as u64;
    [
        Span {
            from_us: 0,
            to_us: fill,
        },
        Span {
            from_us: fill,
            to_us: b.m0_us,
        },
        Span {
            from_us: b.m0_us,
            to_us: b.m1_us,
        },
        Span {
            from_us: b.m1_us,
            to_us: b.drain_end_us.max(b.m1_us),
        },
    ]
}

/// Summarizes one phase of `scrapes` (sorted by time) with `table`.
pub fn phase(scrapes: &[Scrape], table: &Table, span: Span) -> PhaseServer {
    let inside: Vec<&Scrape> = scrapes
        .iter()
        .filter(|s| s.t_us >= span.from_us && s.t_us < span.to_us)
        .collect();
    let window = counter_window(scrapes, span);
    let waiting: Vec<f64> = inside
        .iter()
        .filter_map(|s| sum(s, table.waiting))
        .collect();
    let queries = increase(window, |s| sum(s, table.prefix_queries));
    let hits = increase(window, |s| sum(s, table.prefix_hits));
    PhaseServer {
        scrapes: inside.len() as u64,
        running: gauge(inside.iter().filter_map(|s| sum(s, table.running))),
        waiting: gauge(waiting.iter().copied()),
        waiting_share: (!waiting.is_empty())
            .then(|| waiting.iter().filter(|&&w| w > 0.0).count() as f64 / waiting.len() as f64),
        kv_cache_usage: gauge(inside.iter().filter_map(|s| kv_usage(s, table.kv_usage))),
        prefix_cache_hit_rate: match (hits, queries) {
            (Some(h), Some(q)) if q > 0.0 => Some((h / q).min(1.0)),
            _ => None,
        },
        preemptions: increase(window, |s| sum(s, table.preemptions)),
        prompt_tokens_per_s: rate(window, |s| sum(s, table.prompt_tokens)),
        generation_tokens_per_s: rate(window, |s| sum(s, table.generation_tokens)),
        ttft_s: histogram(window, table.ttft),
        tpot_s: histogram(window, table.tpot),
    }
}

/// The server's gauges at one scrape (the report's timeline draws them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// When, us since the cell's start.
    pub t_us: u64,
    /// Requests running.
    pub running: Option<f64>,
    /// Requests waiting.
    pub waiting: Option<f64>,
    /// KV-cache usage, 0..=1.
    pub kv_cache_usage: Option<f64>,
}

/// The gauges of every scrape, read with `table`.
pub fn points(scrapes: &[Scrape], table: &Table) -> Vec<Point> {
    scrapes
        .iter()
        .map(|s| Point {
            t_us: s.t_us,
            running: sum(s, table.running),
            waiting: sum(s, table.waiting),
            kv_cache_usage: kv_usage(s, table.kv_usage),
        })
        .collect()
}

/// The saturation verdict from Measure's summary (see [`SATURATED_SHARE`]).
pub fn saturated(measure: &PhaseServer) -> Option<bool> {
    let share = measure.waiting_share?;
    (measure.scrapes >= MIN_VERDICT_SCRAPES).then_some(share > SATURATED_SHARE)
}

/// The scrapes a counter's increase over `span` reads: from the last one at or before the
/// start (else the first after it) to the last one at or before the end.
fn counter_window(scrapes: &[Scrape], span: Span) -> &[Scrape] {
    let first = scrapes
        .iter()
        .rposition(|s| s.t_us <= span.from_us)
        .unwrap_or(0);
    let Some(last) = scrapes.iter().rposition(|s| s.t_us <= span.to_us) else {
        return &[];
    };
    if last < first {
        return &[];
    }
    &scrapes[first..=last]
}

/// Plain mean and max of `values`; `None` when there are none.
pub(crate) fn gauge(values: impl Iterator<Item = f64>) -> Option<Gauge> {
    let (mut n, mut total, mut max) = (0usize, 0.0, f64::NEG_INFINITY);
    for v in values {
        n += 1;
        total += v;
        max = max.max(v);
    }
    (n > 0).then(|| Gauge {
        mean: total / n as f64,
        max,
    })
}

/// Every series of metric `name` in `s` (the bare name, or the name and its labels).
fn series<'a>(s: &'a Scrape, name: &'a str) -> impl Iterator<Item = (&'a str, f64)> + 'a {
    s.values
        .range::<str, _>((std::ops::Bound::Included(name), std::ops::Bound::Unbounded))
        .take_while(move |(k, _)| k.starts_with(name))
        .filter(move |(k, _)| k.len() == name.len() || k.as_bytes()[name.len()] == b'{')
        .map(|(k, v)| (k.as_str(), *v))
}

/// The first candidate present in `s`, summed over its series (engines, label sets).
fn sum(s: &Scrape, names: &[&str]) -> Option<f64> {
    names.iter().find_map(|name| {
        let mut it = series(s, name).peekable();
        it.peek()?;
        Some(it.map(|(_, v)| v).sum())
    })
}

/// KV usage as a fraction: the mean of the fraction gauge's series (one per engine), or
/// used / total.
fn kv_usage(s: &Scrape, kv: KvUsage) -> Option<f64> {
    match kv {
        KvUsage::Fraction(names) => names.iter().find_map(|name| {
            let values: Vec<f64> = series(s, name).map(|(_, v)| v).collect();
            (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
        }),
        KvUsage::Ratio { used, total } => {
            let (u, t) = (sum(s, &[used])?, sum(s, &[total])?);
            (t > 0.0).then(|| (u / t).min(1.0))
        }
        KvUsage::Absent => None,
    }
}

/// A counter's increase across `window`, a reset counted as its new value.
fn increase(window: &[Scrape], value: impl Fn(&Scrape) -> Option<f64>) -> Option<f64> {
    increase_of(window.iter().map(value))
}

/// A counter's increase per second across `window`.
fn rate(window: &[Scrape], value: impl Fn(&Scrape) -> Option<f64>) -> Option<f64> {
    let present: Vec<&Scrape> = window.iter().filter(|s| value(s).is_some()).collect();
    let (first, last) = (present.first()?, present.last()?);
    let seconds = last.t_us.saturating_sub(first.t_us) as f64 / 1e6;
    let inc = increase(window, value)?;
    (seconds > 0.0).then(|| inc / seconds)
}

/// Quantiles of the first candidate histogram's observations across `window`.
fn histogram(window: &[Scrape], bases: &[&str]) -> Option<Quantiles> {
    for base in bases {
        let bucket = format!("{base}_bucket");
        let per_scrape: Vec<BTreeMap<Le, f64>> =
            window.iter().map(|s| buckets(s, &bucket)).collect();
        let les: Vec<Le> = per_scrape
            .iter()
            .flat_map(|b| b.keys().copied())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        if les.is_empty() {
            continue;
        }
        let cumulative: Vec<(f64, f64)> = les
            .iter()
            .filter_map(|le| {
                let inc = increase_of(per_scrape.iter().map(|b| b.get(le).copied()))?;
                Some((le.0, inc))
            })
            .collect();
        return quantiles(&cumulative);
    }
    None
}

/// The increase of a counter's successive values (absent ones skipped), a reset counted as
/// its new value; `None` with fewer than two values.
fn increase_of(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let values: Vec<f64> = values.flatten().collect();
    if values.len() < 2 {
        return None;
    }
    Some(
        values
            .windows(2)
            .map(|w| if w[1] >= w[0] { w[1] - w[0] } else { w[1] })
            .sum(),
    )
}

/// A bucket's upper bound, ordered (`+Inf` last).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Le(f64);

impl Eq for Le {}

impl PartialOrd for Le {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Le {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// The histogram's buckets in `s`, summed over every label but `le`.
fn buckets(s: &Scrape, bucket: &str) -> BTreeMap<Le, f64> {
    let mut out = BTreeMap::new();
    for (key, v) in series(s, bucket) {
        if let Some(le) = le_of(key) {
            *out.entry(Le(le)).or_insert(0.0) += v;
        }
    }
    out
}

/// The `le` label of a series key.
fn le_of(key: &str) -> Option<f64> {
    let start = key.find("le=\"")? + 4;
    let end = key[start..].find('"')? + start;
    match &key[start..end] {
        "+Inf" => Some(f64::INFINITY),
        v => v.parse().ok(),
    }
}

/// `histogram_quantile` for p50, p90 and p99 of cumulative bucket counts (sorted by `le`,
/// the last `+Inf`); `None` without observations.
pub fn quantiles(cumulative: &[(f64, f64)]) -> Option<Quantiles> {
    let total = cumulative.last().map(|&(_, c)| c)?;
    if total <= 0.0 || cumulative.last().is_some_and(|&(le, _)| le.is_finite()) {
        return None;
    }
    let q = |q: f64| quantile(q, cumulative, total);
    Some(Quantiles {
        count: total,
        p50: q(0.5),
        p90: q(0.9),
        p99: q(0.99),
    })
}

/// One quantile as Prometheus computes it: the bucket holding rank `q * total`, linear
/// inside it from the previous bound (0 for the first bucket); in the `+Inf` bucket, the
/// highest finite bound.
fn quantile(q: f64, cumulative: &[(f64, f64)], total: f64) -> f64 {
    let rank = q * total;
    let mut prev = (0.0, 0.0);
    for &(le, count) in cumulative {
        if count >= rank {
            if le.is_infinite() {
                return prev.0;
            }
            if count == prev.1 {
                return le;
            }
            return prev.0 + (le - prev.0) * (rank - prev.1) / (count - prev.1);
        }
        prev = (le, count);
    }
    prev.0
}
