//! The load a cell put on the server and what came of it ([`LoadMetrics`]): target, offered,
//! sent and achieved request rates, requests outstanding over time, and for an open loop the
//! schedule lag, the client-side queue, latencies from the actual send beside those from
//! the intended one, and the overload verdict: above capacity the queue grows without bound,
//! so requests outstanding and TTFT both climb through the window and a p99 says only how
//! long the window was.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::concurrency::InFlight;
use super::distribution::Distribution;
use super::stationarity::batch_means;
use super::steady::{TREND_SIGNIFICANCE, fit};
use super::throughput::completions_per_second;
use super::{Window, over, us_to_ms};
use crate::sample::Sample;

/// One second, us.
const SECOND_US: u64 = 1_000_000;

/// Closed or open loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LoadMode {
    /// N requests in flight; each sent when the previous one of its slot ends.
    Closed,
    /// Arrivals at a request rate, whatever the server does.
    Open,
}

/// Latencies of open-loop requests from their actual send: the server's share, without the
/// client's queue and lag.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FromSend {
    /// TTFT from the send, ms.
    pub ttft_ms: Option<Distribution>,
    /// E2E from the send, ms.
    pub e2e_ms: Option<Distribution>,
}

/// What load the cell offered and what the server took.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoadMetrics {
    /// Closed or open loop.
    pub mode: LoadMode,
    /// Closed loop: the target concurrency N.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_concurrency: Option<u32>,
    /// Open loop: the target arrival rate, req/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_rps: Option<f64>,
    /// Requests that started in the window (open loop: whose intended send fell in it),
    /// per second: the load the schedule offered.
    pub offered_rps: f64,
    /// Requests actually sent in the window, per second.
    pub sent_rps: f64,
    /// Requests that succeeded with their end in the window, per second (the
    /// throughput's `request_rps`): what the server delivered.
    pub achieved_rps: f64,
    /// 95% interval of `achieved_rps` from batch means over the completions in each whole
    /// second of the window (block size doubled until the block means are close to
    /// uncorrelated); absent with fewer than 8 seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub achieved_rps_ci95: Option<[f64; 2]>,
    /// Mean requests outstanding in each second of the window: sent and not ended (closed
    /// loop), or due and not ended, queued ones included (open loop).
    pub in_flight_per_second: Vec<f64>,
    /// Relative change of requests outstanding across the window (least-squares slope x
    /// window / mean); absent with fewer than 2 seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_flight_trend: Option<f64>,
    /// Open loop: relative change of TTFT across the window, fitted over the measured
    /// requests by start; absent with fewer than 3 of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_trend: Option<f64>,
    /// Open loop: how late measured requests went out for the client's own reasons
    /// (`t_sent - t_intended - queue`), ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_lag_ms: Option<Distribution>,
    /// Open loop with `max_concurrency`: time measured requests waited client-side for a
    /// place, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_ms: Option<Distribution>,
    /// Open loop: TTFT and E2E from the actual send (the headline ones run from the
    /// intended send).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_send: Option<FromSend>,
    /// Open loop: why the cell is overloaded (requests outstanding rising significantly,
    /// with TTFT rising or completions falling short of arrivals), with the achieved rate;
    /// absent when it is not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overloaded: Option<String>,
}

impl LoadMetrics {
    /// The load of a cell: `samples` are all its requests, `ok` the measured successes,
    /// `target_rps` the open loop's rate (absent: closed loop at `window.concurrency`),
    /// `achieved_rps` the throughput's request rate, `output_tokens` the window's output
    /// (none: the server delivered nothing, which is a failure, not an overload),
    /// `max_trend` the steady threshold a rise must exceed to count.
    pub(super) fn measure(
        samples: &[Sample],
        ok: &[&Sample],
        window: &Window,
        target_rps: Option<f64>,
        (achieved_rps, output_tokens): (f64, u64),
        max_trend: f64,
    ) -> LoadMetrics {
        let open = target_rps.is_some();
        let w = window.duration_s();
        let count = |t: fn(&Sample) -> u64| {
            samples
                .iter()
                .filter(|s| (window.m0_us..window.m1_us).contains(&t(s)))
                .count() as f64
                / w
        };
        let spans = samples.iter().filter(|s| open || !s.outcome.is_rejected());
        let outstanding = InFlight::from_spans(spans.map(|s| {
            let from = if open { s.t_start_us() } else { s.t_sent_us };
            (from, s.t_end_us)
        }));
        let series = per_second(&outstanding, window);
        let in_flight = relative_trend(&series);
        let in_flight_trend = in_flight.map(|t| t.0);
        let level = series.iter().map(|p| p.1).sum::<f64>() / series.len().max(1) as f64;
        let offered_rps = count(Sample::t_start_us);
        let in_flight_rising = in_flight
            .filter(|t| rising(*t, max_trend) && queue_grows(t.0 * level, offered_rps * w));
        let ttft_points: Vec<(f64, f64)> = ok
            .iter()
            .filter_map(|s| {
                let at = s.t_start_us().saturating_sub(window.m0_us) as f64 / 1e6;
                Some((at, us_to_ms(s.ttft_us()? as f64)))
            })
            .collect();
        let ttft = if open {
            relative_trend(&ttft_points)
        } else {
            None
        };
        let overloaded = open
            .then(|| {
                Overload {
                    in_flight: in_flight_rising?,
                    ttft: ttft.filter(|t| rising(*t, max_trend)),
                    offered_rps,
                    achieved_rps,
                    window_s: w,
                    delivered: output_tokens > 0,
                }
                .verdict()
            })
            .flatten();
        let ms = |us: u64| us_to_ms(us as f64);
        LoadMetrics {
            mode: if open {
                LoadMode::Open
            } else {
                LoadMode::Closed
            },
            target_concurrency: window.concurrency,
            target_rps,
            offered_rps,
            sent_rps: count(|s| s.t_sent_us),
            achieved_rps,
            achieved_rps_ci95: batch_means(&completions_per_second(samples, window), 1)
                .map(|b| [achieved_rps - b.half_width, achieved_rps + b.half_width]),
            in_flight_per_second: series.iter().map(|p| p.1).collect(),
            in_flight_trend,
            ttft_trend: ttft.map(|t| t.0),
            schedule_lag_ms: open
                .then(|| over(ok, |s| s.schedule_lag_us().map(ms)))
                .flatten(),
            queue_ms: over(ok, |s| s.queue_us.map(ms)),
            from_send: open.then(|| FromSend {
                ttft_ms: over(ok, |s| s.ttft_from_send_us().map(ms)),
                e2e_ms: over(ok, |s| s.e2e_from_send_us().map(ms)),
            }),
            overloaded,
        }
    }
}

/// Mean level of `in_flight` in each whole second of the window (a last partial second of
/// at least 0.5 s included), as `(centre s since m0, level)`.
fn per_second(in_flight: &InFlight, window: &Window) -> Vec<(f64, f64)> {
    let span = window.m1_us.saturating_sub(window.m0_us);
    (0..span.div_ceil(SECOND_US))
        .filter_map(|k| {
            let from = window.m0_us + k * SECOND_US;
            let to = (from + SECOND_US).min(window.m1_us);
            ((to - from) * 2 >= SECOND_US).then(|| {
                let centre = (from + to - 2 * window.m0_us) as f64 / 2e6;
                (centre, in_flight.mean(from, to).unwrap_or(0.0))
            })
        })
        .collect()
}

/// `(slope x span / mean, p-value)` of the least-squares line through `points`; `None`
/// with fewer than 2 distinct x or a mean of 0.
fn relative_trend(points: &[(f64, f64)]) -> Option<(f64, Option<f64>)> {
    let f = fit(points)?;
    let mean = points.iter().map(|p| p.1).sum::<f64>() / points.len() as f64;
    let (lo, hi) = points.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
        (lo.min(p.0), hi.max(p.0))
    });
    (mean > 0.0).then(|| (f.slope * (hi - lo) / mean, f.p_value))
}

/// The share of a window's arrivals by which requests outstanding must grow across it to
/// count as a queue that grows: the server fell behind by at least one arrival in 40.
pub const MIN_QUEUE_GROWTH: f64 = 0.025;

/// Whether requests outstanding rose by at least [`MIN_QUEUE_GROWTH`] of the window's
/// `arrivals` (`rise`, requests across the window, from the fitted line). Arrivals the
/// server keeps up with leave the count in flight where it was, whatever it swells by on
/// the way; a server that falls behind gains `(offered - carried) x window` requests. A
/// swell of 1.65 requests among 300 arrivals (50 req/s for 6 s against llama.cpp on a
/// machine busy at that moment, TTFT +124%) is not a queue that grows; 3.1 among 32 (8 req/s
/// offered, 7 carried) is.
fn queue_grows(rise: f64, arrivals: f64) -> bool {
    rise >= MIN_QUEUE_GROWTH * arrivals
}

/// A shortfall of the achieved rate below the offered one counts when it is at least this
/// share of the offered rate ...
pub const MIN_SHORTFALL: f64 = 0.05;

/// ... and this many standard errors: the two counts over the window are each about
/// Poisson, so `(offered - achieved) / sqrt(offered + achieved)`, in requests, is a z-score
/// (conservative: in a server that keeps up the two counts are correlated).
pub const SHORTFALL_Z: f64 = 3.0;

/// Whether `achieved` completions fell short of `offered` arrivals over a window (both
/// counts, not rates) by at least [`MIN_SHORTFALL`] of the arrivals and [`SHORTFALL_Z`]
/// standard errors: the server did not carry the load.
pub fn shortfall(offered: f64, achieved: f64) -> bool {
    let short = offered - achieved;
    offered > 0.0
        && short >= MIN_SHORTFALL * offered
        && short / (offered + achieved).sqrt() >= SHORTFALL_Z
}

/// The signs an open loop's queue grows: requests outstanding rising (the queue itself,
/// client-side places included) is required, and at least one other sign must agree, so a
/// random swell of outstanding requests at a low rate is not called an overload.
struct Overload {
    /// `(relative rise, p)` of requests outstanding across the window.
    in_flight: (f64, Option<f64>),
    /// `(relative rise, p)` of TTFT by send, when it rises.
    ttft: Option<(f64, Option<f64>)>,
    offered_rps: f64,
    achieved_rps: f64,
    window_s: f64,
    /// Whether any output arrived in the window: a server that sends nothing is not
    /// answering, which is a failure, not an overload.
    delivered: bool,
}

impl Overload {
    /// The verdict's reason, naming every sign that agreed and the achieved rate.
    fn verdict(&self) -> Option<String> {
        if !self.delivered {
            return None;
        }
        let (offered, achieved) = (
            self.offered_rps * self.window_s,
            self.achieved_rps * self.window_s,
        );
        let short = offered - achieved;
        let shortfall = shortfall(offered, achieved);
        if self.ttft.is_none() && !shortfall {
            return None;
        }
        let mut signs = vec![format!(
            "requests outstanding {:+.0}% across the window (p = {:.3})",
            self.in_flight.0 * 100.0,
            self.in_flight.1.unwrap_or(0.0)
        )];
        if let Some((t, p)) = self.ttft {
            signs.push(format!(
                "TTFT {:+.0}% (p = {:.3})",
                t * 100.0,
                p.unwrap_or(0.0)
            ));
        }
        if shortfall {
            signs.push(format!(
                "completions {:.1}% below arrivals",
                short / offered * 100.0
            ));
        }
        Some(format!(
            "overloaded: the server completed {:.1} req/s of the {:.1} offered; {}: arrivals \
             outpace the server, the queue grows without bound and the latency percentiles \
             depend on the window's length",
            self.achieved_rps,
            self.offered_rps,
            signs.join(", ")
        ))
    }
}

/// A rise above `max_trend`, significant at the 5% level.
fn rising((trend, p): (f64, Option<f64>), max_trend: f64) -> bool {
    trend > max_trend && p.is_some_and(|p| p < TREND_SIGNIFICANCE)
}

#[cfg(test)]
mod tests;
