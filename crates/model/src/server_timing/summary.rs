//! Per cell: the distributions of the server's timings over the measured successful
//! requests, how many of them carried one, and the gap between the client's TTFT and the
//! server's prefill.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::metrics::{Distribution, Window, us_to_ms};
use crate::sample::Sample;
use crate::sample::server::{ServerTiming, TimingSource};

/// The server's own timings over one cell's measured successful requests.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServerTimingSummary {
    /// Where the timings came from.
    pub source: TimingSource,
    /// Measured successful requests (those the distributions below are over).
    pub records: u64,
    /// Of them, with a server timing.
    pub matched: u64,
    /// `matched / records`; absent without records.
    pub match_rate: Option<f64>,
    /// Measured successful requests without a server timing (counted, never guessed).
    pub unmatched_records: u64,
    /// Server prefill, ms.
    pub prefill_ms: Option<Distribution>,
    /// Server decode, ms.
    pub decode_ms: Option<Distribution>,
    /// The gap, ms: the client's TTFT from the actual send (`t_first - t_sent`) minus the
    /// server's prefill, per matched request: the wait for a free slot, the network, HTTP,
    /// tokenizing and the server's API layer. Absent when `stream` is off (the client's
    /// first token is then the whole answer).
    pub gap_ms: Option<Distribution>,
    /// Matched requests whose server prefill is longer than the client's TTFT from the
    /// send (a negative gap): the server's account disagrees with plateau's.
    pub negative_gaps: u64,
    /// Prompt tokens as the server counted them (evaluated plus reused).
    pub prompt_tokens: Option<Distribution>,
    /// Prompt tokens the server reused from its prefix cache.
    pub cached_tokens: Option<Distribution>,
    /// Output tokens as the server counted them.
    pub output_tokens: Option<Distribution>,
    /// Matched requests whose server-counted output tokens differ from the record's `n_out`.
    pub output_token_mismatches: u64,
    /// Quantities the server does not report, each with the reason.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unmeasured: BTreeMap<String, String>,
}

impl ServerTimingSummary {
    /// The summary of `samples` over `window` (`stream`: the requests streamed); `None`
    /// when no measured successful request has a server timing.
    pub fn measure(samples: &[Sample], window: &Window, stream: bool) -> Option<Self> {
        let ok: Vec<&Sample> = samples
            .iter()
            .filter(|s| window.measures(s) && s.outcome.is_ok())
            .collect();
        let matched: Vec<(&Sample, &ServerTiming)> = ok
            .iter()
            .filter_map(|s| s.server.as_ref().map(|t| (*s, t)))
            .collect();
        let source = matched.first()?.1.source;
        let dist = |f: &dyn Fn(&Sample, &ServerTiming) -> Option<f64>| {
            let values: Vec<f64> = matched.iter().filter_map(|(s, t)| f(s, t)).collect();
            Distribution::from_values(&values)
        };
        let ms = |us: Option<u64>| us.map(|u| us_to_ms(u as f64));
        let count = |n: Option<u32>| n.map(f64::from);
        let gaps: Vec<f64> = matched.iter().filter_map(|(s, t)| gap_us(s, t)).collect();
        let records = ok.len() as u64;
        let n = matched.len() as u64;
        let mut unmeasured = BTreeMap::new();
        unmeasured.insert(
            "queue_ms".into(),
            "llama.cpp's `timings` do not report the wait for a free slot; it is inside gap_ms"
                .into(),
        );
        if !stream {
            unmeasured.insert(
                "gap_ms".into(),
                "`stream` is off: the client's first token is the whole answer".into(),
            );
        }
        Some(ServerTimingSummary {
            source,
            records,
            matched: n,
            match_rate: (records > 0).then(|| n as f64 / records as f64),
            unmatched_records: records - n,
            prefill_ms: dist(&|_, t| ms(t.prefill_us)),
            decode_ms: dist(&|_, t| ms(t.decode_us)),
            gap_ms: stream
                .then(|| {
                    Distribution::from_values(
                        &gaps.iter().map(|g| us_to_ms(*g)).collect::<Vec<_>>(),
                    )
                })
                .flatten(),
            negative_gaps: gaps.iter().filter(|g| **g < 0.0).count() as u64,
            prompt_tokens: dist(&|_, t| count(t.prompt_tokens)),
            cached_tokens: dist(&|_, t| count(t.cached_tokens)),
            output_tokens: dist(&|_, t| count(t.output_tokens)),
            output_token_mismatches: matched
                .iter()
                .filter(|(s, t)| matches!((t.output_tokens, s.n_out), (Some(a), Some(b)) if a != b))
                .count() as u64,
            unmeasured,
        })
    }
}

/// The gap of one request, us: its TTFT from the actual send minus the server's prefill
/// (negative when the server's is the longer).
pub fn gap_us(s: &Sample, t: &ServerTiming) -> Option<f64> {
    let client = s.t_first_us()?.checked_sub(s.t_sent_us)?;
    Some(client as f64 - t.prefill_us? as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::fixtures::{ok, sample};

    fn ok_sample(seq: u64, t_sent_us: u64, chunks: &[(u64, u32)]) -> Sample {
        let end = chunks.last().map_or(t_sent_us, |c| c.0);
        Sample {
            seq,
            ..ok(sample(t_sent_us, chunks, end))
        }
    }

    fn timed(seq: u64, prefill_us: u64, first_us: u64) -> Sample {
        let mut s = ok_sample(
            seq,
            1_000_000 + seq * 10,
            &[(first_us, 1), (first_us + 500, 1)],
        );
        s.server = Some(ServerTiming {
            source: TimingSource::Timings,
            prefill_us: Some(prefill_us),
            decode_us: Some(400),
            prompt_tokens: Some(100),
            cached_tokens: Some(60),
            output_tokens: Some(2),
        });
        s
    }

    fn window() -> Window {
        Window {
            m0_us: 1_000_000,
            m1_us: 2_000_000,
            concurrency: Some(2),
        }
    }

    #[test]
    fn the_gap_is_client_ttft_from_the_send_minus_the_servers_prefill() {
        // Sent at 1_000_000, 1_000_010 and 1_000_020; first tokens 8 ms, 10 ms and 3 ms
        // later; the server's prefills 6 ms, 9 ms and 4 ms: gaps 2 ms, 1 ms and -1 ms.
        let mut samples = vec![
            timed(0, 6_000, 1_008_000),
            timed(1, 9_000, 1_010_010),
            timed(2, 4_000, 1_003_020),
        ];
        samples.push(ok_sample(3, 1_000_030, &[(1_005_000, 2)]));
        // Before Measure: not counted.
        samples.push(timed(4, 1_000, 900_000));
        samples[4].t_sent_us = 800_000;
        let s = ServerTimingSummary::measure(&samples, &window(), true).expect("a summary");
        assert_eq!((s.records, s.matched, s.unmatched_records), (4, 3, 1));
        assert_eq!(s.match_rate, Some(0.75));
        let gap = s.gap_ms.expect("gaps");
        assert_eq!((gap.min, gap.p50, gap.max), (-1.0, 1.0, 2.0));
        assert_eq!(s.negative_gaps, 1);
        let prefill = s.prefill_ms.expect("prefill");
        assert_eq!((prefill.n, prefill.min, prefill.max), (3, 4.0, 9.0));
        assert_eq!(s.decode_ms.expect("decode").p50, 0.4);
        assert_eq!(s.cached_tokens.expect("cache").mean, 60.0);
        assert_eq!(s.prompt_tokens.expect("prompt").mean, 100.0);
        assert_eq!(s.output_token_mismatches, 0);
        assert_eq!(s.unmeasured.keys().collect::<Vec<_>>(), ["queue_ms"]);
    }

    #[test]
    fn without_streaming_there_is_no_gap_and_without_timings_no_summary() {
        let samples = vec![timed(0, 6_000, 1_008_000)];
        let s = ServerTimingSummary::measure(&samples, &window(), false).expect("a summary");
        assert_eq!(s.gap_ms, None);
        assert!(s.unmeasured.contains_key("gap_ms"));
        let plain = ok_sample(0, 1_000_000, &[(1_005_000, 1)]);
        assert_eq!(
            ServerTimingSummary::measure(&[plain], &window(), true),
            None
        );
    }
}
