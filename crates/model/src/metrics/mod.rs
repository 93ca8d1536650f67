//! Metrics: every number plateau reports, each defined exactly once, from the raw
//! [`Sample`]s of one cell.
//!
//! [`summarize`] turns a cell's samples, its measure [`Window`] and the [`Options`] (SLOs,
//! steady-state thresholds) into [`Metrics`], written into `summary.json`:
//!
//! - per-request metrics are methods on [`Sample`] (`request.rs`: [`Sample::ttft_us`],
//!   [`Sample::tpot_us`], [`Sample::itl_gaps`], ...), summarized over the requests
//!   **started** in `[m0, m1)` that succeeded, each into a [`Distribution`]
//!   (`distribution.rs`: moments, numpy-style percentiles, confidence intervals);
//! - [`Throughput`] counts tokens **arriving** in `[m0, m1]` from every request
//!   (`throughput.rs`, whose [`output_tokens_by_bucket`] also feeds the steady-state series
//!   and the [`timeline`]);
//! - [`Concurrency`] is exact from request intervals (`concurrency.rs`), and with the
//!   per-second series decides the [`Steady`] verdict (`steady.rs`);
//! - [`RequestCounts`] counts failures by kind (`errors.rs`), [`Goodput`] checks the SLOs
//!   (`goodput.rs`), [`TokenAgreement`] compares token counts (`agreement.rs`);
//! - [`timeline`] gives the report's per-cell figure its series over the whole cell.
//!
//! Failures are never zeros in an average: they are counted by kind, and a value that does
//! not exist (a TTFT without content, a TPOT of one token) is a missing sample.

mod agreement;
mod concurrency;
mod distribution;
mod errors;
mod goodput;
mod load;
mod request;
mod requested;
mod sessions;
pub mod stationarity;
mod steady;
mod throughput;
mod timeline;
mod turns;
mod wire;

#[cfg(test)]
pub(crate) mod fixtures;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use agreement::{InputAgreement, OutputAgreement, TokenAgreement, USAGE_FACTOR};
pub use concurrency::Concurrency;
pub use distribution::{Distribution, SmallSample, percentile, quantile_ci_ranks};
pub use errors::RequestCounts;
pub use goodput::Goodput;
pub use load::{FromSend, LoadMetrics, LoadMode, MIN_SHORTFALL, SHORTFALL_Z, shortfall};
pub use request::{Gap, us_to_ms};
pub use requested::RequestedTokens;
pub use sessions::{ContextBucket, SessionMetrics, TurnBucket, context_buckets, turn_buckets};
pub use steady::adaptive;
pub use steady::{
    LevelShift, MIN_BLOCKS, MIN_BLOCKS_FOR_SIGNIFICANCE, SHIFT_ALPHA, Series, Steady,
    TREND_SIGNIFICANCE, TrendTest, WARMUP_ALPHA, Warmup,
};
pub use throughput::{Throughput, completions_per_second, output_tokens_by_bucket};
pub use timeline::{TimelinePoint, timeline};
pub use turns::TurnMetrics;
pub use wire::{Connections, Reads};

use crate::config::{SloConfig, SteadyConfig};
use crate::sample::Sample;
pub use concurrency::InFlight;

/// The measure window of a cell and its target concurrency (closed loop).
///
/// `m1_us` must be above `m0_us` (the plan requires a positive `measure_seconds`); a
/// degenerate window is taken as 1 us long for rates, so they stay finite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Window {
    /// Start of Measure (`m0`), us since the cell's start.
    pub m0_us: u64,
    /// End of Measure (`m1`), us since the cell's start.
    pub m1_us: u64,
    /// Target concurrency N; absent for an open loop.
    pub concurrency: Option<u32>,
}

impl Window {
    /// Whether `sample` is measured: started in `[m0, m1)` (sent, or for an open-loop
    /// arrival meant to be sent: [`Sample::t_start_us`]), whatever its phase label or
    /// outcome.
    pub fn measures(&self, sample: &Sample) -> bool {
        (self.m0_us..self.m1_us).contains(&sample.t_start_us())
    }

    /// Whether the instant `t_us` is inside `[m0, m1]` (for arrivals and completions).
    pub fn contains(&self, t_us: u64) -> bool {
        (self.m0_us..=self.m1_us).contains(&t_us)
    }

    /// `m1 - m0` in us, at least 1.
    pub fn duration_us(&self) -> u64 {
        self.m1_us.saturating_sub(self.m0_us).max(1)
    }

    /// `m1 - m0` in seconds, above 0.
    pub fn duration_s(&self) -> f64 {
        self.duration_us() as f64 / 1e6
    }
}

/// What the metrics need from the configuration.
#[derive(Clone, Copy, Debug)]
pub struct Options<'a> {
    /// Service-level objectives for goodput; `None` for no goodput.
    pub slo: Option<&'a SloConfig>,
    /// Thresholds of the steady-state verdict.
    pub steady: &'a SteadyConfig,
    /// Whether responses were streamed (`stream`): without it, TTFT is the time to the
    /// whole response.
    pub stream: bool,
    /// The open loop's target rate, req/s; absent for a closed loop.
    pub target_rps: Option<f64>,
    /// End of Fill, us since the cell's start: the warm-up check runs on the series from
    /// here to the end of Measure; absent: no warm-up check.
    pub fill_end_us: Option<u64>,
}

/// What `ttft_ms` measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TtftBasis {
    /// Time to the first token-bearing read of a streamed response.
    FirstToken,
    /// `stream: false`: time to the whole response, which is all that can be seen.
    WholeResponse,
}

impl TtftBasis {
    fn default_first_token() -> TtftBasis {
        TtftBasis::FirstToken
    }
}

/// Jitter: `p99(ITL) / p50(ITL)`; absent without ITLs or with a median ITL of 0.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Jitter {
    /// From ITL per chunk.
    pub chunk: Option<f64>,
    /// From ITL per token.
    pub token: Option<f64>,
}

/// Every metric of one cell. Distributions are over the measured requests (started in
/// `[m0, m1)`, succeeded); `None` when no such request has the value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Metrics {
    /// Request counts and errors by kind.
    pub requests: RequestCounts,
    /// TTFT, ms (see `ttft_basis` for what it measures).
    pub ttft_ms: Option<Distribution>,
    /// What `ttft_ms` measures: the first token, or (`stream: false`) the whole response.
    #[serde(default = "TtftBasis::default_first_token")]
    pub ttft_basis: TtftBasis,
    /// Time to the first answer token (after any reasoning), ms, over the measured requests
    /// that reasoned first; absent when none did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_to_first_answer_ms: Option<Distribution>,
    /// Reasoning tokens per request, over the measured requests that reasoned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<Distribution>,
    /// E2E, ms.
    pub e2e_ms: Option<Distribution>,
    /// TPOT, ms (requests with at least 2 output tokens).
    pub tpot_ms: Option<Distribution>,
    /// ITL per chunk, ms, pooled over requests.
    pub itl_chunk_ms: Option<Distribution>,
    /// ITL per token, ms, pooled over requests (token-weighted).
    pub itl_token_ms: Option<Distribution>,
    /// `p99 / p50` of the ITL distributions.
    pub jitter: Jitter,
    /// User throughput (`n_out / E2E`), tokens/s.
    pub user_throughput_tps: Option<Distribution>,
    /// Generation throughput (`n_out / (E2E - TTFT)`), tokens/s.
    pub generation_throughput_tps: Option<Distribution>,
    /// Output tokens per request (`n_out`).
    pub output_tokens: Option<Distribution>,
    /// Prompt tokens per request (`n_in`).
    pub input_tokens: Option<Distribution>,
    /// Server, request and input-token throughput over the window.
    pub throughput: Throughput,
    /// Requests meeting the SLOs; absent when no SLO is configured.
    pub goodput: Option<Goodput>,
    /// Offered, sent and achieved load, requests outstanding over time, and for an open
    /// loop the schedule lag, queue, latencies from the send and the overload verdict.
    /// Absent in summaries written before plateau had open loops.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<Box<LoadMetrics>>,
    /// Achieved concurrency over the window.
    pub concurrency: Concurrency,
    /// Steady-state verdict.
    pub steady: Steady,
    /// Agreement of token counts between client and server.
    pub tokens: TokenAgreement,
    /// Metrics that could not be measured, each with the reason (absent, never 0).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unmeasured: BTreeMap<String, String>,
    /// Connections opened, reused and resent on, over every request of the cell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connections: Option<Connections>,
    /// How token-bearing events arrived in socket reads (measured successful requests).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reads: Option<Reads>,
    /// TTFT and prompt length per conversation turn (multi-turn scenarios only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub turns: Vec<TurnMetrics>,
    /// Session results (session scenarios only): sessions active and requests in flight,
    /// sessions completed, their turns and duration, think time, per-turn-bucket latency
    /// and prefix cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sessions: Option<Box<SessionMetrics>>,
}

/// Summarizes one cell: `samples` are all of its requests (every phase and outcome),
/// `window` its measure window.
pub fn summarize(samples: &[Sample], window: &Window, opts: &Options) -> Metrics {
    let measured = || samples.iter().filter(|s| window.measures(s));
    let ok: Vec<&Sample> = measured().filter(|s| s.outcome.is_ok()).collect();
    let ms = |us: u64| us_to_ms(us as f64);
    let ttft_ms = over(&ok, |s| s.ttft_us().map(ms));
    let e2e_ms = over(&ok, |s| s.e2e_us().map(ms));
    let tpot_ms = over(&ok, |s| s.tpot_us().map(us_to_ms));
    let itl_chunk_ms = over(&ok, |s| s.itl_chunk_us().map(us_to_ms));
    let itl_token_ms = over(&ok, |s| s.itl_token_us().map(us_to_ms));
    let user_throughput_tps = over(&ok, Sample::user_throughput_tps);
    let generation_throughput_tps = over(&ok, Sample::generation_throughput_tps);
    let output_tokens = over(&ok, |s| s.n_out.map(f64::from));
    let input_tokens = over(&ok, |s| s.n_in.map(f64::from));

    let time_to_first_answer_ms = over(&ok, |s| {
        s.t_first_answer_us
            .and_then(|t| t.checked_sub(s.t_start_us()))
            .map(ms)
    });
    let reasoning_tokens = over(&ok, |s| s.n_reasoning.map(f64::from));
    let unmeasured = unmeasured(
        !ok.is_empty(),
        opts.stream,
        [
            ("tpot_ms", tpot_ms.is_some()),
            ("itl_chunk_ms", itl_chunk_ms.is_some()),
            ("itl_token_ms", itl_token_ms.is_some()),
            (
                "generation_throughput_tps",
                generation_throughput_tps.is_some(),
            ),
        ],
    );

    let admitted = samples.iter().filter(|s| !s.outcome.is_rejected());
    let concurrency = Concurrency::over(&InFlight::from_samples(admitted), window);
    let mean_user_tps = user_throughput_tps.as_ref().map(|d| d.mean);
    let lifetime_s = e2e_ms.as_ref().map(|d| d.p50 / 1000.0);
    let throughput = Throughput::measure(samples, window, mean_user_tps);
    let load = LoadMetrics::measure(
        samples,
        &ok,
        window,
        opts.target_rps,
        (throughput.request_rps, throughput.output_tokens),
        opts.steady.max_trend,
    );
    let requests = RequestCounts::count(samples, window);
    let sessions = sessions::measure(samples, &ok, window);
    // With think time, a slot holds a session, not always a request: N is the sessions
    // active (requests in flight are reported beside it, in `sessions`).
    let held = match &sessions {
        Some(s) if s.thinking_mean > 0.0 => s.sessions_active_mean,
        _ => concurrency.mean,
    };
    let steady = steady_verdict(samples, window, opts, (held, lifetime_s), &requests, &load);
    Metrics {
        requests,
        jitter: Jitter {
            chunk: itl_chunk_ms.as_ref().and_then(Distribution::p99_over_p50),
            token: itl_token_ms.as_ref().and_then(Distribution::p99_over_p50),
        },
        ttft_ms,
        ttft_basis: if opts.stream {
            TtftBasis::FirstToken
        } else {
            TtftBasis::WholeResponse
        },
        time_to_first_answer_ms,
        reasoning_tokens,
        e2e_ms,
        tpot_ms,
        itl_chunk_ms,
        itl_token_ms,
        user_throughput_tps,
        generation_throughput_tps,
        output_tokens,
        input_tokens,
        throughput,
        load: Some(Box::new(load)),
        goodput: opts
            .slo
            .and_then(|slo| Goodput::judge(measured(), slo, window)),
        steady,
        concurrency,
        tokens: TokenAgreement::check(ok.iter().copied()),
        turns: turns::by_turn(&ok),
        sessions: sessions.map(Box::new),
        unmeasured,
        connections: Some(Connections::count(samples)),
        reads: Reads::count(&ok),
    }
}

/// The steady verdict of a cell: the window's own rules and the stationarity checks
/// (skipped when overloaded), then, placed first, that no measured request succeeded and
/// that the cell is overloaded. `(concurrency, lifetime_s)`: the achieved concurrency and
/// the request lifetime (E2E p50, s).
fn steady_verdict(
    samples: &[Sample],
    window: &Window,
    opts: &Options,
    (concurrency, lifetime_s): (f64, Option<f64>),
    requests: &RequestCounts,
    load: &LoadMetrics,
) -> Steady {
    let mut steady = Steady::judge(samples, window, concurrency, lifetime_s, opts.steady);
    steady.check_stationarity(
        samples,
        window,
        opts.fill_end_us,
        opts.steady,
        load.overloaded.is_none(),
    );
    if requests.measured_ok == 0 && requests.measured > 0 {
        steady.fail_first(format!(
            "no measured request succeeded ({} failed: {})",
            requests.measured_errors,
            requests.measured_error_kinds()
        ));
    }
    if let Some(why) = &load.overloaded {
        steady.overloaded = true;
        steady.fail_first(why.clone());
    }
    steady
}

/// The reason each metric of `present` that is missing could not be measured, when there
/// were successful requests to measure it on.
fn unmeasured<const K: usize>(
    any_ok: bool,
    stream: bool,
    present: [(&str, bool); K],
) -> BTreeMap<String, String> {
    let reason = if stream {
        "every measured response arrived in a single read (a proxy or gateway that buffers \
         the stream, or one-token replies): there is no time between tokens to measure"
    } else {
        "stream: false: the whole response arrives at once, so there is no time between \
         tokens to measure"
    };
    present
        .into_iter()
        .filter(|&(_, is_present)| any_ok && !is_present)
        .map(|(name, _)| (name.to_owned(), reason.to_owned()))
        .collect()
}

/// The distribution of `value` over the requests `ok`, each giving none, one or many
/// values (an `Option` or an iterator).
fn over<'a, I: IntoIterator<Item = f64>>(
    ok: &[&'a Sample],
    value: impl Fn(&'a Sample) -> I,
) -> Option<Distribution> {
    Distribution::from_values(&ok.iter().flat_map(|&s| value(s)).collect::<Vec<_>>())
}
