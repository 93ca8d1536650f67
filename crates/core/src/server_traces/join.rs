//! The join of one cell: waiting for its requests' spans, then each record's
//! [`ServerTiming`] from its trace's parts by the engine's table (by trace id, else by the
//! engine's request id), and the counts of what matched nothing.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use plateau_model::sample::Sample;
use plateau_model::sample::server::{ServerTiming, TimingSource, seconds_to_us};
use plateau_model::server_timing::engines::{self, Queue, SpanTable};
use plateau_model::server_timing::{SpanCounts, SpanJoin};
use plateau_otlp::{TraceId, unhex};

use super::{Attributes, Part, PartKind, Spans};

/// How often the receiver is looked at while waiting.
const POLL: Duration = Duration::from_millis(50);

/// The records' trace ids: each id to its record, `None` when several records carry it.
struct Index {
    by_trace: HashMap<TraceId, Option<usize>>,
    ambiguous_records: u64,
}

impl Index {
    fn of(samples: &[Sample]) -> Index {
        let mut by_trace: HashMap<TraceId, Option<usize>> = HashMap::new();
        let mut ambiguous_records = 0;
        for (i, s) in samples.iter().enumerate() {
            let Some(id) = s.trace_id.as_deref().and_then(unhex::<16>) else {
                continue;
            };
            by_trace
                .entry(id)
                .and_modify(|e| {
                    ambiguous_records += if e.is_some() { 2 } else { 1 };
                    *e = None;
                })
                .or_insert(Some(i));
        }
        Index {
            by_trace,
            ambiguous_records,
        }
    }

    /// The record a request span belongs to: by its trace id, else by its request id
    /// (`chatcmpl-<trace id>`, `cmpl-<trace id>`, or the bare id); `true` when by request id.
    fn record_of(&self, trace: &TraceId, attrs: Option<&Attributes>) -> Option<(usize, bool)> {
        if let Some(found) = self.by_trace.get(trace) {
            return found.map(|i| (i, false));
        }
        let id = attrs?.request_id.as_deref()?;
        let bare = id
            .strip_prefix("chatcmpl-")
            .or_else(|| id.strip_prefix("cmpl-"))
            .unwrap_or(id);
        let trace = unhex::<16>(bare)?;
        self.by_trace
            .get(&trace)
            .copied()
            .flatten()
            .map(|i| (i, true))
    }
}

/// The first request span of `parts`, if any.
fn timing(parts: &[Part]) -> Option<&Attributes> {
    parts.iter().find_map(|p| match &p.kind {
        PartKind::Timing(a) => Some(a.as_ref()),
        PartKind::Queue(_) => None,
    })
}

impl Spans {
    /// Puts on each of `samples` the server's timing from its trace's spans (read with
    /// `table`, or the table the spans name when `None`), waiting up to the configured time
    /// for the spans of the successful ones. Returns the join's counts for the summary.
    pub async fn join(
        &mut self,
        samples: &mut [Sample],
        table: Option<&'static SpanTable>,
    ) -> SpanJoin {
        let index = Index::of(samples);
        let wanted: HashSet<usize> = index
            .by_trace
            .values()
            .filter_map(|i| i.filter(|&i| samples[i].outcome.is_ok()))
            .collect();
        let traces = self.wait_for(&index, &wanted).await;
        let mut join = SpanJoin {
            spans: SpanCounts {
                ambiguous_records: index.ambiguous_records,
                ..SpanCounts::default()
            },
            ..SpanJoin::default()
        };
        for (id, parts) in traces {
            let Some(attrs) = timing(&parts) else {
                continue; // Context alone (a queue span whose request span is elsewhere).
            };
            let timings = parts
                .iter()
                .filter(|p| matches!(p.kind, PartKind::Timing(_)))
                .count() as u64;
            let counts = &mut join.spans;
            match index.record_of(&id, Some(attrs)) {
                Some((i, by_request_id)) if samples[i].server.is_none() => {
                    counts.kept += 1;
                    counts.duplicate += timings - 1;
                    let read_with = table.or(attrs.detected).unwrap_or(&engines::VLLM);
                    join.table = join.table.or(Some(read_with.name));
                    samples[i].server = combine(&parts, read_with);
                    if by_request_id {
                        join.by_request_id.insert(samples[i].seq);
                    }
                }
                Some(_) => counts.duplicate += timings,
                // Ambiguous records stay unmatched.
                None if index.by_trace.contains_key(&id) => {}
                None if self.earlier.contains(&id) => counts.late += timings,
                None => counts.unmatched += timings,
            }
        }
        self.earlier.extend(index.by_trace.keys().copied());
        join.table = join.table.or(table.map(|t| t.name));
        join.receiver = self.receiver_counts();
        join
    }

    /// Takes parts until every wanted record has its request span (and, for an engine
    /// whose queue is a span of its own, that span too), or the wait is over; returns them
    /// by trace.
    async fn wait_for(
        &mut self,
        index: &Index,
        wanted: &HashSet<usize>,
    ) -> HashMap<TraceId, Vec<Part>> {
        let deadline = tokio::time::Instant::now() + self.wait;
        loop {
            self.held.extend(self.receiver.take());
            let traces = by_trace(&self.held);
            let complete: HashSet<usize> = traces
                .iter()
                .filter(|(_, parts)| whole(parts))
                .filter_map(|(id, parts)| index.record_of(id, timing(parts)).map(|(i, _)| i))
                .collect();
            if wanted.is_subset(&complete) || tokio::time::Instant::now() >= deadline {
                self.held.clear();
                return traces;
            }
            tokio::time::sleep(POLL).await;
        }
    }
}

/// Whether a trace's parts hold its request span and, where the span's engine keeps the
/// queue in a span of its own, that span.
fn whole(parts: &[Part]) -> bool {
    let Some(a) = timing(parts) else {
        return false;
    };
    match a.detected.map(|t| t.queue) {
        Some(Queue::Span(_)) => parts.iter().any(|p| matches!(p.kind, PartKind::Queue(_))),
        _ => true,
    }
}

fn by_trace(parts: &[Part]) -> HashMap<TraceId, Vec<Part>> {
    let mut traces: HashMap<TraceId, Vec<Part>> = HashMap::new();
    for p in parts {
        traces.entry(p.trace_id).or_default().push(p.clone());
    }
    traces
}

/// A request's server timing from the parts of its trace, read by `table`: its timing
/// span's attributes (the first, when there are several), its queue from the attribute or
/// the queue span the table names, its prefill without the queue where the table's
/// prefill includes it. `None` without a timing span.
pub fn combine(parts: &[Part], table: &SpanTable) -> Option<ServerTiming> {
    let a = timing(parts)?;
    let us = |s: Option<f64>| s.and_then(seconds_to_us);
    let queue_us = match table.queue {
        Queue::Attribute(_) => us(a.queue_s),
        Queue::Span(_) => parts
            .iter()
            .filter_map(|p| match p.kind {
                PartKind::Queue(ns) => Some(ns / 1_000),
                PartKind::Timing(_) => None,
            })
            .reduce(u64::saturating_add),
    };
    let prefill_us = match (us(a.prefill_s), queue_us) {
        (Some(p), Some(q)) if table.prefill_includes_queue => Some(p.saturating_sub(q)),
        // A prefill that includes an unknown queue is not the prefill.
        (_, None) if table.prefill_includes_queue => None,
        (p, _) => p,
    };
    let count = |n: Option<f64>| {
        n.filter(|n| n.is_finite() && *n >= 0.0)
            .map(|n| n.round().min(f64::from(u32::MAX)) as u32)
    };
    Some(ServerTiming {
        queue_us,
        ttft_us: us(a.ttft_s),
        prefill_us,
        decode_us: us(a.decode_s),
        e2e_us: us(a.e2e_s),
        prompt_tokens: count(a.prompt_tokens),
        cached_tokens: count(a.cached_tokens),
        output_tokens: count(a.output_tokens),
        ..ServerTiming::new(TimingSource::Span)
    })
}

#[cfg(test)]
mod tests;
