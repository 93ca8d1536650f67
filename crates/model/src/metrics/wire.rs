//! What the wire did in a cell: connections opened, reused and resent on
//! ([`Connections`]), and how stream events arrived in socket reads ([`Reads`]). Neither is
//! a latency; both say whether the latencies can be trusted as measured.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::distribution::Distribution;
use super::us_to_ms;
use crate::sample::Sample;

/// Connections over every request of the cell (all phases, all outcomes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Connections {
    /// Requests that opened a new connection.
    pub opened: u64,
    /// Requests sent on a connection an earlier request had used.
    pub reused: u64,
    /// New connections opened by a slot after its first request: the server (or a proxy)
    /// closed the one before. Close to the request count for a server that closes after
    /// every response (llama.cpp's server); 0 on a keep-alive server.
    pub reconnects: u64,
    /// Requests resent once because the reused connection they went out on had been
    /// closed by the server before a byte of response came back.
    pub resends: u64,
    /// Time to open a connection (TCP and TLS), ms; never part of TTFT.
    pub connect_ms: Option<Distribution>,
}

impl Connections {
    /// Counts over `samples`, all of the cell's requests.
    pub(crate) fn count(samples: &[Sample]) -> Connections {
        let mut first_of_slot = std::collections::HashMap::new();
        for s in samples {
            first_of_slot
                .entry(s.slot)
                .and_modify(|seq: &mut u64| *seq = (*seq).min(s.seq))
                .or_insert(s.seq);
        }
        let opened: Vec<&Sample> = samples.iter().filter(|s| s.connect_us.is_some()).collect();
        let reconnects = opened
            .iter()
            .filter(|s| first_of_slot.get(&s.slot) != Some(&s.seq))
            .count();
        let connect_ms: Vec<f64> = opened
            .iter()
            .filter_map(|s| s.connect_us.map(|us| us_to_ms(us as f64)))
            .collect();
        // A request that failed to connect has no connection at all.
        let connected = samples
            .iter()
            .filter(|s| s.outcome != crate::sample::Outcome::Connect)
            .count();
        Connections {
            opened: opened.len() as u64,
            reused: (connected - opened.len().min(connected)) as u64,
            reconnects: reconnects as u64,
            resends: samples.iter().map(|s| u64::from(s.resends)).sum(),
            connect_ms: Distribution::from_values(&connect_ms),
        }
    }
}

/// How token-bearing stream events arrived, over the measured successful requests.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reads {
    /// Socket reads that carried tokens (observed chunks).
    pub reads: u64,
    /// Token-bearing events in them.
    pub events: u64,
    /// Mean events per read.
    pub events_per_read: f64,
    /// Fraction of reads that carried more than one event: near 1 behind a proxy or
    /// gateway that buffers the stream, where only whole reads can be timed.
    pub multi_event_fraction: f64,
}

impl Reads {
    /// Over `ok`, the measured successful requests; `None` without a read.
    pub(crate) fn count(ok: &[&Sample]) -> Option<Reads> {
        let reads: u64 = ok.iter().map(|s| s.chunks.len() as u64).sum();
        // Records from before events were counted have none: count a read as one event.
        let events: u64 = ok
            .iter()
            .map(|s| u64::from(s.events).max(s.chunks.len() as u64))
            .sum();
        let multi: u64 = ok.iter().map(|s| u64::from(s.multi_event_reads)).sum();
        (reads > 0).then(|| Reads {
            reads,
            events,
            events_per_read: events as f64 / reads as f64,
            multi_event_fraction: multi as f64 / reads as f64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::fixtures::{ok, sample};
    use crate::sample::Outcome;

    #[test]
    fn connections_by_hand() {
        let req = |seq, slot, connect_us, resends, outcome| Sample {
            seq,
            slot,
            connect_us,
            resends,
            outcome,
            ..sample(seq * 10, &[], seq * 10 + 5)
        };
        let samples = [
            // slot 0: its first connection, then reuse, then a reconnect after a resend
            req(0, 0, Some(1_000), 0, Outcome::Ok),
            req(2, 0, None, 0, Outcome::Ok),
            req(4, 0, Some(3_000), 1, Outcome::Ok),
            // slot 1: its first connection, then a refused one
            req(1, 1, Some(2_000), 0, Outcome::Ok),
            req(3, 1, None, 0, Outcome::Connect),
        ];
        let c = Connections::count(&samples);
        assert_eq!((c.opened, c.reused, c.reconnects, c.resends), (3, 1, 1, 1));
        let ms = c.connect_ms.unwrap();
        assert_eq!((ms.n, ms.p50, ms.max), (3, 2.0, 3.0));
    }

    #[test]
    fn reads_by_hand() {
        let with = |chunks: &[(u64, u32)], events, multi| Sample {
            events,
            multi_event_reads: multi,
            ..ok(sample(0, chunks, 100))
        };
        // 2 reads of 3 events each, then 4 reads of one event each.
        let a = with(&[(10, 3), (20, 3)], 6, 2);
        let b = with(&[(10, 1), (20, 1), (30, 1), (40, 1)], 4, 0);
        let r = Reads::count(&[&a, &b]).unwrap();
        assert_eq!((r.reads, r.events), (6, 10));
        assert!((r.events_per_read - 10.0 / 6.0).abs() < 1e-12);
        assert!((r.multi_event_fraction - 2.0 / 6.0).abs() < 1e-12);
        assert_eq!(Reads::count(&[]), None);
    }
}
