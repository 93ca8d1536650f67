//! Window throughput: output tokens by arrival time ([`output_tokens_by_bucket`], shared
//! with the steady-state series and the timeline), server throughput direct and derived,
//! request and input-token throughput ([`Throughput`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Window;
use crate::sample::Sample;

/// Throughput over the measure window `[m0, m1]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Throughput {
    /// Window length `m1 - m0`, seconds.
    pub window_s: f64,
    /// Output tokens whose chunk arrived inside `[m0, m1]`, from every successful request
    /// (any phase; tokens of failed, timed-out or cancelled requests are not output).
    pub output_tokens: u64,
    /// Server throughput (direct): `output_tokens / window_s`, tokens/s.
    pub server_direct_tps: f64,
    /// Server throughput (derived): mean user throughput of the measured requests x N,
    /// tokens/s; kept to compare with the original method. Absent without measured
    /// successes.
    pub server_derived_tps: Option<f64>,
    /// Successful requests whose `t_end_us` is inside `[m0, m1]`.
    pub requests_completed: u64,
    /// Request throughput: `requests_completed / window_s`, requests/s.
    pub request_rps: f64,
    /// Prompt tokens of the completed requests; absent when any of them lacks `n_in`.
    pub input_tokens: Option<u64>,
    /// Input token throughput: `input_tokens / window_s`, tokens/s.
    pub input_tps: Option<f64>,
}

impl Throughput {
    /// Throughput of `samples` (all of the cell's requests) over `window`, given the mean
    /// user throughput of the measured requests for the derived server throughput.
    pub(crate) fn measure(
        samples: &[Sample],
        window: &Window,
        mean_user_tps: Option<f64>,
    ) -> Throughput {
        let window_s = window.duration_s();
        let output_tokens =
            output_tokens_by_bucket(samples, window.m0_us, window.m1_us, window.duration_us())
                .iter()
                .sum();
        let completed: Vec<&Sample> = samples
            .iter()
            .filter(|s| s.outcome.is_ok() && window.contains(s.t_end_us))
            .collect();
        let input_tokens = completed
            .iter()
            .map(|s| s.n_in.map(u64::from))
            .sum::<Option<u64>>();
        Throughput {
            window_s,
            output_tokens,
            server_direct_tps: output_tokens as f64 / window_s,
            server_derived_tps: mean_user_tps
                .zip(window.concurrency)
                .map(|(tps, n)| tps * f64::from(n)),
            requests_completed: completed.len() as u64,
            request_rps: completed.len() as f64 / window_s,
            input_tokens,
            input_tps: input_tokens.map(|n| n as f64 / window_s),
        }
    }
}

/// Output tokens by chunk arrival in consecutive buckets of `bucket_us` over the closed
/// span `[from_us, to_us]`: bucket `k` holds arrivals in `[from + k b, from + (k + 1) b)`,
/// the last bucket may be shorter than `b` and also holds arrivals at exactly `to_us`.
/// Every successful request counts, whatever its phase; a failed, timed-out or cancelled
/// request's tokens never do. Empty when `bucket_us` is 0 or the span is empty.
pub fn output_tokens_by_bucket(
    samples: &[Sample],
    from_us: u64,
    to_us: u64,
    bucket_us: u64,
) -> Vec<u64> {
    if bucket_us == 0 || to_us <= from_us {
        return Vec::new();
    }
    let n = (to_us - from_us).div_ceil(bucket_us);
    let mut buckets = vec![0u64; usize::try_from(n).unwrap_or(usize::MAX)];
    let last = buckets.len() - 1;
    let ok = samples.iter().filter(|s| s.outcome.is_ok());
    for chunk in ok.flat_map(|s| &s.chunks) {
        if (from_us..=to_us).contains(&chunk.t_us) {
            let k = usize::try_from((chunk.t_us - from_us) / bucket_us).unwrap_or(last);
            buckets[k.min(last)] += u64::from(chunk.tokens);
        }
    }
    buckets
}

/// Successful requests completing in each whole second of the window (`[m0 + k s, m0 +
/// (k + 1) s)`; a partial last second is left out): the series behind `request_rps`.
pub fn completions_per_second(samples: &[Sample], window: &Window) -> Vec<f64> {
    const SECOND_US: u64 = 1_000_000;
    let k = usize::try_from(window.duration_us() / SECOND_US).unwrap_or(usize::MAX);
    let mut out = vec![0.0; k];
    for s in samples.iter().filter(|s| s.outcome.is_ok()) {
        if let Some(t) = s.t_end_us.checked_sub(window.m0_us)
            && let Some(slot) = usize::try_from(t / SECOND_US)
                .ok()
                .and_then(|i| out.get_mut(i))
        {
            *slot += 1.0;
        }
    }
    out
}

#[cfg(test)]
mod tests;
