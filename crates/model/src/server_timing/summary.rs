//! Per cell: the distributions of the server's timings over the measured successful
//! requests, how many of them had one (the match rate, and why the others did not), what
//! the span receiver saw during the cell, and the gap between the client's TTFT and the
//! server's.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::counts::{ReceiverCounts, SpanCounts, SpanJoin, UnmatchedReasons};
use crate::metrics::{Distribution, Metrics, Window, us_to_ms};
use crate::sample::Sample;
use crate::sample::server::{ServerTiming, TimingSource};

/// What the gap is the client's TTFT minus.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GapBasis {
    /// The server's TTFT (spans: from the request's arrival to its first token): the gap
    /// is the network, HTTP and whatever the server does before it stamps the arrival.
    ServerTtft,
    /// The server's prefill (llama.cpp: no arrival stamp): the gap also holds the wait
    /// for a free slot and the server's API layer.
    #[default]
    ServerPrefill,
}

/// The server's own timings over one cell's measured successful requests.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServerTimingSummary {
    /// Where the timings came from.
    pub source: TimingSource,
    /// The span attribute table the spans were read with (`vllm`, `sglang`); absent for
    /// llama.cpp's `timings` and when no span told.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// Measured successful requests (those the distributions below are over).
    pub records: u64,
    /// Of them, with a server timing.
    pub matched: u64,
    /// `matched / records`; absent without records.
    pub match_rate: Option<f64>,
    /// Of the matched, those joined by their span's `gen_ai.request.id` (the engine did not
    /// carry plateau's `traceparent`, but did its `X-Request-Id`).
    #[serde(default)]
    pub matched_by_request_id: u64,
    /// Measured successful requests without a server timing (counted, never guessed).
    pub unmatched_records: u64,
    /// Why they have none (spans only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unmatched_reasons: Option<UnmatchedReasons>,
    /// What the span join saw (spans only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spans: Option<SpanCounts>,
    /// What the span receiver answered during the cell (spans only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver: Option<ReceiverCounts>,
    /// Server queue (waiting for a place in the running batch), ms.
    #[serde(default)]
    pub queue_ms: Option<Distribution>,
    /// Server TTFT, from the request's arrival to its first token, ms.
    #[serde(default)]
    pub ttft_ms: Option<Distribution>,
    /// Server prefill, ms.
    pub prefill_ms: Option<Distribution>,
    /// Server decode, ms.
    pub decode_ms: Option<Distribution>,
    /// Server end to end, ms.
    #[serde(default)]
    pub e2e_ms: Option<Distribution>,
    /// The rest of the server's TTFT, ms: TTFT minus queue minus prefill, per request that
    /// has all three (input processing, tokenizing, the hops between the server's
    /// processes).
    #[serde(default)]
    pub other_ms: Option<Distribution>,
    /// The gap, ms: the client's TTFT from the actual send (`t_first - t_sent`) minus the
    /// server's TTFT or prefill (see `gap_basis`), per matched request. Absent when
    /// `stream` is off (the client's first token is then the whole answer).
    pub gap_ms: Option<Distribution>,
    /// What the gap is the client's TTFT minus.
    #[serde(default)]
    pub gap_basis: GapBasis,
    /// Matched requests whose gap is negative: the server's account disagrees with
    /// plateau's.
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
    /// The summary of `samples` over `window` (`stream`: the requests streamed) from the
    /// timings the responses carried (llama.cpp); `None` when no measured successful
    /// request has one.
    pub fn measure(samples: &[Sample], window: &Window, stream: bool) -> Option<Self> {
        let ok = measured_ok(samples, window);
        let first = ok.iter().find_map(|s| s.server.as_ref())?;
        Some(Self::of(&ok, first.source, stream, None))
    }

    /// The summary of a cell whose records were joined to the server's spans: always
    /// there, a match rate of 0 included, with the join's and the receiver's counts.
    pub fn measure_spans(
        samples: &[Sample],
        window: &Window,
        stream: bool,
        join: &SpanJoin,
    ) -> Self {
        let ok = measured_ok(samples, window);
        Self::of(&ok, TimingSource::Span, stream, Some(join))
    }

    fn of(ok: &[&Sample], source: TimingSource, stream: bool, join: Option<&SpanJoin>) -> Self {
        let matched: Vec<(&Sample, &ServerTiming)> = ok
            .iter()
            .filter_map(|s| s.server.as_ref().map(|t| (*s, t)))
            .collect();
        let dist = |f: &dyn Fn(&Sample, &ServerTiming) -> Option<f64>| {
            let values: Vec<f64> = matched.iter().filter_map(|(s, t)| f(s, t)).collect();
            Distribution::from_values(&values)
        };
        let ms = |us: Option<u64>| us.map(|u| us_to_ms(u as f64));
        let count = |n: Option<u32>| n.map(f64::from);
        let gaps: Vec<f64> = matched.iter().filter_map(|(s, t)| gap_us(s, t)).collect();
        let records = ok.len() as u64;
        let n = matched.len() as u64;
        let spans = join.is_some();
        let summary = ServerTimingSummary {
            source,
            table: join.and_then(|j| j.table).map(str::to_owned),
            records,
            matched: n,
            match_rate: (records > 0).then(|| n as f64 / records as f64),
            matched_by_request_id: join.map_or(0, |j| {
                matched
                    .iter()
                    .filter(|(s, _)| j.by_request_id.contains(&s.seq))
                    .count() as u64
            }),
            unmatched_records: records - n,
            unmatched_reasons: spans.then(|| unmatched_reasons(ok)),
            spans: join.map(|j| j.spans),
            receiver: join.map(|j| j.receiver),
            queue_ms: dist(&|_, t| ms(t.queue_us)),
            ttft_ms: dist(&|_, t| ms(t.ttft_us)),
            prefill_ms: dist(&|_, t| ms(t.prefill_us)),
            decode_ms: dist(&|_, t| ms(t.decode_us)),
            e2e_ms: dist(&|_, t| ms(t.e2e_us)),
            other_ms: dist(&|_, t| other_us(t).map(us_to_ms)),
            gap_ms: stream
                .then(|| {
                    Distribution::from_values(
                        &gaps.iter().map(|g| us_to_ms(*g)).collect::<Vec<_>>(),
                    )
                })
                .flatten(),
            gap_basis: gap_basis(source),
            negative_gaps: gaps.iter().filter(|g| **g < 0.0).count() as u64,
            prompt_tokens: dist(&|_, t| count(t.prompt_tokens)),
            cached_tokens: dist(&|_, t| count(t.cached_tokens)),
            output_tokens: dist(&|_, t| count(t.output_tokens)),
            output_token_mismatches: matched
                .iter()
                .filter(|(s, t)| matches!((t.output_tokens, s.n_out), (Some(a), Some(b)) if a != b))
                .count() as u64,
            unmeasured: BTreeMap::new(),
        };
        summary.with_unmeasured(stream)
    }

    /// Names each quantity absent with its reason.
    fn with_unmeasured(mut self, stream: bool) -> Self {
        let mut absent = |key: &str, why: String| {
            self.unmeasured.insert(key.into(), why);
        };
        if !stream {
            absent(
                "gap_ms",
                "`stream` is off: the client's first token is the whole answer".into(),
            );
        }
        if self.source == TimingSource::Timings {
            absent(
                "queue_ms",
                "llama.cpp's `timings` do not report the wait for a free slot; it is inside gap_ms"
                    .into(),
            );
            return self;
        }
        let engine = self.table.clone().unwrap_or_else(|| "the engine".into());
        let none = |d: &Option<Distribution>| d.is_none();
        let quantities = [
            ("queue_ms", none(&self.queue_ms)),
            ("ttft_ms", none(&self.ttft_ms)),
            ("prefill_ms", none(&self.prefill_ms)),
            ("cached_tokens", none(&self.cached_tokens)),
        ];
        let nothing = self.matched == 0;
        for (key, missing) in quantities {
            if nothing {
                self.unmeasured.insert(
                    key.into(),
                    "no request span matched a measured record".into(),
                );
            } else if missing {
                self.unmeasured.insert(
                    key.into(),
                    format!("{engine}'s request spans do not carry it"),
                );
            }
        }
        self
    }
}

fn measured_ok<'a>(samples: &'a [Sample], window: &Window) -> Vec<&'a Sample> {
    samples
        .iter()
        .filter(|s| window.measures(s) && s.outcome.is_ok())
        .collect()
}

fn unmatched_reasons(ok: &[&Sample]) -> UnmatchedReasons {
    let mut r = UnmatchedReasons::default();
    for s in ok.iter().filter(|s| s.server.is_none()) {
        if s.trace_id.is_none() {
            r.no_trace_id += 1;
        } else {
            r.no_span += 1;
        }
    }
    r
}

/// What the gap of a timing from `source` is the client's TTFT minus.
pub fn gap_basis(source: TimingSource) -> GapBasis {
    match source {
        TimingSource::Span => GapBasis::ServerTtft,
        TimingSource::Timings => GapBasis::ServerPrefill,
    }
}

/// plateau's TTFT from the actual send (`t_first - t_sent`), the distribution the gap is
/// taken from: an open loop's `load.from_send.ttft_ms` (its headline TTFT runs from the
/// intended send), else `ttft_ms`.
pub fn client_ttft_ms(m: &Metrics) -> Option<&Distribution> {
    match m.load.as_ref().and_then(|l| l.from_send.as_ref()) {
        Some(from_send) => from_send.ttft_ms.as_ref(),
        None => m.ttft_ms.as_ref(),
    }
}

/// The server's timing the gap is taken from (`gap_basis`): its TTFT (spans) or its
/// prefill (llama.cpp).
pub fn server_basis_ms(st: &ServerTimingSummary) -> Option<&Distribution> {
    match st.gap_basis {
        GapBasis::ServerTtft => st.ttft_ms.as_ref(),
        GapBasis::ServerPrefill => st.prefill_ms.as_ref(),
    }
}

/// The gap of one request, us: its TTFT from the actual send minus the server's TTFT
/// (spans) or prefill (llama.cpp); negative when the server's is the longer.
pub fn gap_us(s: &Sample, t: &ServerTiming) -> Option<f64> {
    let client = s.t_first_us()?.checked_sub(s.t_sent_us)?;
    let server = match gap_basis(t.source) {
        GapBasis::ServerTtft => t.ttft_us?,
        GapBasis::ServerPrefill => t.prefill_us?,
    };
    Some(client as f64 - server as f64)
}

/// The server's TTFT minus its queue and prefill, us (negative when they overlap).
fn other_us(t: &ServerTiming) -> Option<f64> {
    Some(t.ttft_us? as f64 - t.queue_us? as f64 - t.prefill_us? as f64)
}

#[cfg(test)]
mod tests;
