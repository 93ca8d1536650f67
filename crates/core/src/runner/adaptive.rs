//! Stabilize and Measure of a running cell: each waits out its fixed length, or, with
//! adaptive phases, checks the records so far once a second from its minimum on
//! ([`plateau_model::metrics::adaptive`]: the transient rule, then the precision rule) and
//! ends at the first check that says so, or at its maximum, noting why ([`PhaseEnd`]).
//! The rules run on a blocking thread, off the request tasks.

use std::time::Duration;

use super::{Ending, Shared, wait_until};
use crate::recorder::{self, SoFar};
use plateau_http::clock::micros;
use plateau_model::metrics::adaptive;
use plateau_model::phase::{EndRule, PhaseEnd, PhaseEnds, Precision};
use plateau_model::sample::Sample;

/// How often an adaptive phase is checked.
pub(super) const CHECK_EVERY: Duration = Duration::from_secs(1);

/// Waits until Stabilize ends and starts Measure; `Err` when the cell ended first.
pub(super) async fn stabilize<T>(
    shared: &Shared<T>,
    so_far: &SoFar,
    ends: &mut Option<PhaseEnds>,
) -> Result<(), Ending> {
    let s = shared.schedule;
    let Some((a, min)) = s.adaptive.and_then(|a| Some((a, a.stabilize_min?))) else {
        return wait_until(shared, s.m0()).await;
    };
    let fixed_measure = a.measure_min.is_none().then_some(s.measure);
    let (fill_end_us, max) = (micros(s.fill), s.fill + s.stabilize);
    let mut at = (s.fill + min).min(max);
    loop {
        wait_until(shared, at).await?;
        let now_us = shared.clock.now_us();
        let verdict = judge(so_far, move |x| {
            adaptive::transient_over(x, fill_end_us, now_us)
        })
        .await
        .unwrap_or_else(|| Err("the rule could not be run".to_owned()));
        if verdict.is_ok() || at >= max {
            let m0 = shared.bounds.start_measure(&shared.clock, fixed_measure);
            let after_s = (m0 - s.fill).as_secs_f64();
            let (rule, why) = match verdict {
                Ok(cut) => (
                    EndRule::TransientOver,
                    format!("transient over at {after_s:.1} s: {cut}"),
                ),
                Err(why) => (
                    EndRule::MaxReached,
                    format!(
                        "max {} s reached, transient not judged over: {why}",
                        s.stabilize.as_secs_f64()
                    ),
                ),
            };
            ends.get_or_insert_default().stabilize = Some(PhaseEnd {
                rule,
                after_s,
                why,
                precision: None,
            });
            return Ok(());
        }
        at = (at + CHECK_EVERY).min(max);
    }
}

/// Waits until Measure ends (the caller then marks Drain); `Err` when the cell ended first.
pub(super) async fn measure<T>(
    shared: &Shared<T>,
    so_far: &SoFar,
    ends: &mut Option<PhaseEnds>,
) -> Result<(), Ending> {
    let s = shared.schedule;
    let m0 = shared.bounds.m0().unwrap_or(s.m0());
    let adaptive = s.adaptive.and_then(|a| Some((a.measure_min?, a.precision)));
    let Some((min, target)) = adaptive else {
        return wait_until(shared, shared.bounds.m1().unwrap_or(s.m1())).await;
    };
    let max = m0 + s.measure;
    let mut at = (m0 + min).min(max);
    loop {
        wait_until(shared, at).await?;
        let (m0_us, now_us) = (micros(m0), shared.clock.now_us());
        let precision = judge(so_far, move |x| {
            adaptive::precision(x, m0_us, now_us, target)
        })
        .await
        .unwrap_or(Precision {
            target,
            output_tps: None,
            ttft_p50: None,
            ttft_p50_interval: None,
        });
        if precision.met() || at >= max {
            let m1 = shared.bounds.end_measure(&shared.clock);
            let after_s = (m1 - m0).as_secs_f64();
            let (rule, why) = if precision.met() {
                (
                    EndRule::PrecisionMet,
                    format!("precision met: {} at {after_s:.1} s", precision.describe()),
                )
            } else {
                (
                    EndRule::Imprecise,
                    format!(
                        "max {after_s:.1} s reached with {}, target ±{}%",
                        precision.describe(),
                        percent(target)
                    ),
                )
            };
            ends.get_or_insert_default().measure = Some(PhaseEnd {
                rule,
                after_s,
                why,
                precision: Some(precision),
            });
            return Ok(());
        }
        at = (at + CHECK_EVERY).min(max);
    }
}

/// `fraction` in per cent with at most 4 decimals, trailing zeros dropped (0.02 -> `2`).
fn percent(fraction: f64) -> String {
    let text = format!("{:.4}", fraction * 100.0);
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// Runs `rule` on the records so far on a blocking thread; `None` if it panicked.
async fn judge<R: Send + 'static>(
    so_far: &SoFar,
    rule: impl FnOnce(&[Sample]) -> R + Send + 'static,
) -> Option<R> {
    let so_far = so_far.clone();
    tokio::task::spawn_blocking(move || rule(&recorder::lock(&so_far)))
        .await
        .ok()
}
