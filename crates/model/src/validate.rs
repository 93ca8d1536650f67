//! Checks of a cell's summary against what makes its numbers trustworthy: ran to its end,
//! few errors, a steady measure window, a client that kept up, enough samples, token counts
//! that agree; and what the server's own metrics say (saturated at this N). Used by
//! `plateau run` (exit 1 on a failure), `plateau validate` and the report's warnings.
//! [`check_dir`] adds what only a whole results directory shows: missing cells, a run that
//! did not finish, files that cannot be read, records that disagree with their summary.

mod client;
mod dir;
mod gpu;
pub mod registry;
mod server;
#[cfg(test)]
mod tests;
mod tokens;
mod verdict;

use std::fmt;

pub use client::{REMEDY, Shortage, busy_machine, client_bottleneck, client_busy, client_shortage};
pub use dir::{RUN, Records, check_dir, check_records};
pub use gpu::gpu_samples_stale;
pub use server::{
    api_layer_dominates_ttft, server_saturated, server_spans_missing, server_timing_disagrees,
};
pub use verdict::{Verdict, fold_run_wide, verdict};

use crate::phase::DrainSource;
use crate::results::summary::{CellStatus, CellSummary, PhaseBounds};

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Worth knowing; the numbers stand.
    Warn,
    /// The cell's numbers should not be trusted as they are.
    Fail,
}

/// Limits of the checks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// Largest fraction of measured requests that may fail.
    pub max_error_rate: f64,
    /// Largest mean relative difference between client-tokenized and server output counts.
    pub max_output_token_diff: f64,
    /// Largest mean relative difference between target and server prompt lengths.
    pub max_input_token_diff: f64,
    /// Largest p99 of the client's scheduling lag, ms. A client with spare CPU shows about
    /// 1 ms (the timer's resolution); 5 ms is half the 10 ms ITL of a 100 tok/s stream, so
    /// past it the client's own delay is a visible part of every ITL it reports.
    pub max_client_lag_p99_ms: f64,
    /// Largest share of the available cores the plateau process may use: near all of them,
    /// a ready task waits for a thread.
    pub max_client_cpu_share: f64,
    /// Share of the cores past which the client's own queueing shows in tail latencies
    /// before it shows anywhere else (`client_busy`, a warning). Measured against a mock
    /// that reports what it put on the wire (`cargo xtask bench overhead`, one client core):
    /// at 0.36, 0.54 and 0.69 of the core the client added 0.1, 0.3 and 1.4 ms to ITL p99;
    /// at 0.87, 7.6 ms.
    pub warn_client_cpu_share: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            max_error_rate: 0.01,
            max_output_token_diff: 0.05,
            max_input_token_diff: 0.25,
            max_client_lag_p99_ms: 5.0,
            max_client_cpu_share: 0.9,
            warn_client_cpu_share: 0.75,
        }
    }
}

/// A cell whose reads carry more than one event this often sits behind a buffer.
const BUFFERED_READS: f64 = 0.5;

/// One finding about one cell.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// `endpoint/model/scenario/cN`.
    pub cell: String,
    /// Short name of the check (`unsteady`, `error_rate`, ...).
    pub check: &'static str,
    /// Fail or warn.
    pub severity: Severity,
    /// What was found, with its numbers.
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.cell, self.check, self.message)
    }
}

/// The cell's label in findings and tables.
pub fn cell_label(s: &CellSummary) -> String {
    s.rel_path()
}

/// An adaptive Measure that reached its maximum with its intervals wider than the target.
fn imprecise(phases: &crate::results::summary::PhaseBounds) -> Option<String> {
    let end = phases.phase_end.as_ref()?.measure.as_ref()?;
    (end.rule == crate::phase::EndRule::Imprecise).then(|| {
        format!(
            "{}; raise phases.measure.max or loosen phases.precision",
            end.why
        )
    })
}

/// Every finding about one cell.
pub fn check_cell(s: &CellSummary, t: &Thresholds) -> Vec<Finding> {
    let m = &s.metrics;
    let mut out = Vec::new();
    let mut add = |check, severity, message: String| {
        out.push(Finding {
            cell: cell_label(s),
            check,
            severity,
            message,
        });
    };
    if s.status == CellStatus::Interrupted {
        add(
            "interrupted",
            Severity::Fail,
            "the cell was interrupted; rerun with --resume".into(),
        );
    }
    if s.status == CellStatus::Failed {
        add(
            "failed",
            Severity::Fail,
            format!(
                "{}; rerun with --resume once the endpoint works",
                s.failure.as_deref().unwrap_or("its endpoint kept failing")
            ),
        );
    }
    // An overloaded open loop measured what it should: the server cannot take the rate.
    // That is a finding about the server (a rate sweep and a capacity search probe past
    // capacity on purpose), not a failed measurement.
    let server_finding = if m.steady.overloaded {
        Severity::Warn
    } else {
        Severity::Fail
    };
    if let Some(e) = &s.records.write_error {
        add(
            "records",
            Severity::Fail,
            format!("requests file incomplete: {e}"),
        );
    }
    if m.requests.measured_ok == 0 {
        add(
            "no_data",
            server_finding,
            format!(
                "no successful request in the measure window ({} sent)",
                m.requests.measured
            ),
        );
    }
    if let Some(rate) = m.requests.error_rate
        && rate > t.max_error_rate
    {
        add(
            "error_rate",
            server_finding,
            format!(
                "{}% of measured requests failed (> {}%){}: {}",
                crate::threshold::pair(rate * 100.0, t.max_error_rate * 100.0, 1).0,
                crate::threshold::pair(rate * 100.0, t.max_error_rate * 100.0, 1).1,
                m.requests
                    .error_time_fraction
                    .map(|f| format!(", {:.1}% of slot-time", f * 100.0))
                    .unwrap_or_default(),
                m.requests.measured_error_kinds()
            ),
        );
    }
    if m.steady.overloaded {
        add("overloaded", Severity::Warn, m.steady.reasons.join("; "));
    } else if !m.steady.steady {
        add("unsteady", Severity::Fail, m.steady.reasons.join("; "));
    }
    if s.phases.drain_timed_out {
        add(
            "drain_timeout",
            server_finding,
            drain_timeout_message(&s.phases),
        );
    }
    if let Some(c) = &s.client {
        match client_shortage(c, t) {
            Some(Shortage::Own(message)) => add("client_bottleneck", Severity::Fail, message),
            shortage => {
                if let Some(Shortage::Machine(message)) = shortage {
                    add("busy_machine", Severity::Warn, message);
                }
                if let Some(message) = client_busy(c, t) {
                    add("client_busy", Severity::Warn, message);
                }
            }
        }
    }
    if let Some(message) = server_saturated(s) {
        add("server_saturated", Severity::Warn, message);
    }
    if let Some(message) = server_timing_disagrees(s) {
        add("server_timing_disagrees", Severity::Warn, message);
    }
    if let Some(message) = gpu_samples_stale(s) {
        add("gpu_samples_stale", Severity::Warn, message);
    }
    if let Some(message) = server_spans_missing(s) {
        add("server_spans_missing", Severity::Warn, message);
    }
    if let Some(message) = api_layer_dominates_ttft(s) {
        add("api_layer_dominates_ttft", Severity::Warn, message);
    }
    if let Some(d) = &m.ttft_ms
        && d.small_sample.contains("p99")
    {
        add("small_sample", Severity::Warn, small_sample(d.n, &s.phases));
    }
    if let Some(message) = imprecise(&s.phases) {
        add("imprecise", Severity::Warn, message);
    }
    if let Some(o) = &m.tokens.output
        && o.mean_rel_diff > t.max_output_token_diff
    {
        add(
            "token_agreement",
            Severity::Warn,
            format!(
                "the client tokenizer ({}) counts output {:.1}% away from the server's usage (max {:.1}%)",
                s.tokenizer,
                o.mean_rel_diff * 100.0,
                o.max_rel_diff * 100.0
            ),
        );
    }
    if let Some(o) = &m.tokens.output {
        let below_share = o.usage_below_events as f64 / o.n.max(1) as f64;
        let factor = crate::metrics::USAGE_FACTOR;
        if !(1.0 / factor..=factor).contains(&o.mean_usage_ratio) || below_share > 0.01 {
            add(
                "usage_mismatch",
                Severity::Fail,
                format!(
                    "the server's usage does not describe the content received: {:.2} tokens \
                     of usage per token of content (allowed 1/{factor} to {factor}), and {} of {} \
                     requests claim fewer tokens than events that carried text; TPOT and \
                     throughput use usage, so they cannot be trusted",
                    o.mean_usage_ratio, o.usage_below_events, o.n
                ),
            );
        }
    }
    if s.cell.ignore_eos
        && let Some(why) = eos_not_ignored(s)
    {
        add("ignore_eos", Severity::Warn, why);
    }
    if m.ttft_basis == crate::metrics::TtftBasis::WholeResponse {
        add(
            "not_streamed",
            Severity::Warn,
            "stream: false: TTFT is the time to the whole response; TPOT, ITL and jitter \
             cannot be measured"
                .into(),
        );
    }
    if let Some(r) = &m.reads
        && r.multi_event_fraction > BUFFERED_READS
    {
        add(
            "buffered_stream",
            Severity::Warn,
            format!(
                "{:.0}% of reads carried more than one stream event ({:.1} per read): a proxy or \
                 gateway buffers the stream, so ITL is timed per read, not per token as sent",
                r.multi_event_fraction * 100.0,
                r.events_per_read
            ),
        );
    }
    if let Some(i) = &m.tokens.input
        && i.mean_rel_diff.abs() > t.max_input_token_diff
        && !s.token_check.as_ref().is_some_and(|c| c.mismatched())
        && !tokens::explained_by_template(i, s.token_check.as_ref())
    {
        add(
            "input_length",
            Severity::Warn,
            tokens::input_length(i, s.token_check.as_ref(), &s.tokenizer),
        );
    }
    // Lengths met in the server's tokens: a gap between its tokenizer and plateau's is
    // what preparation measured and made up for.
    if let Some(why) = s
        .token_check
        .as_ref()
        .filter(|_| s.tokenizer != crate::results::token_check::SERVER)
        .and_then(|c| tokens::tokenizer_mismatch(c, &s.tokenizer))
    {
        add("tokenizer_mismatch", Severity::Warn, why);
    }
    if s.workload.synthetic {
        add(
            "synthetic_data",
            Severity::Warn,
            format!(
                "built-in text stood in for the dataset ({})",
                s.workload.source
            ),
        );
    }
    out
}

/// Requests a percentile needs behind it for p99: 10 expected beyond it.
const P99_REQUESTS: u64 = 1000;

/// What a p99 from `n` requests is worth and how long to measure for one that holds.
fn small_sample(n: u64, p: &PhaseBounds) -> String {
    let need = (p.measure_s * P99_REQUESTS as f64 / n.max(1) as f64).ceil();
    format!(
        "TTFT p99 from {n} requests (< {P99_REQUESTS}) is indicative (the console table shows \
         p95); for a p99 to rely on, measure about {need:.0} s at this cell's pace \
         (measure_seconds, now {} s)",
        p.measure_s
    )
}

/// Why Drain ended with measured requests running, and what to change.
fn drain_timeout_message(p: &PhaseBounds) -> String {
    match &p.drain_limit {
        DrainSource::Configured => format!(
            "measured requests still ran after drain_seconds ({} s); raise it, or remove it \
             to derive the limit from the cell's requests",
            p.drain_max_s
        ),
        DrainSource::Derived {
            longest_request_ms,
            requests,
        } => format!(
            "measured requests still ran after the derived Drain limit ({} s, from the longest \
             of {requests} requests before m1: {}); requests grew longer during Measure, or \
             request_timeout_seconds bounds the limit; set drain_seconds",
            p.drain_max_s,
            longest_request_ms.map_or("none ended".into(), |ms| format!("{:.1} s", ms / 1e3))
        ),
    }
}

/// Why the replies of a cell that sent `ignore_eos` look cut at EOS: most measured replies
/// shorter than the length each asked for (its own `max_tokens`), or, in summaries from
/// before requested lengths were recorded, a median reply below the cell's `max_tokens`.
fn eos_not_ignored(s: &CellSummary) -> Option<String> {
    let requested = s
        .workload
        .output_tokens
        .as_ref()
        .and_then(|o| o.requested.as_ref())
        .filter(|r| r.replies > 0);
    if let Some(r) = requested {
        return (r.short_replies * 2 > r.replies).then(|| {
            format!(
                "ignore_eos was sent but {} of {} measured replies are shorter than the \
                 max_tokens they asked for: the engine ignored it, so reply lengths vary with \
                 the model",
                r.short_replies, r.replies
            )
        });
    }
    let (out, max_tokens) = (s.metrics.output_tokens.as_ref()?, s.cell.max_tokens?);
    (out.p50 < f64::from(max_tokens)).then(|| {
        format!(
            "ignore_eos was sent but the median reply is {:.0} tokens of max_tokens {}: \
             the engine ignored it, so reply lengths vary with the model",
            out.p50, max_tokens
        )
    })
}
