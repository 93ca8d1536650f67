//! TTFT and TPOT of a cell's turns by context length: the turn's prompt tokens (the
//! server's count, else the client tokenizer's) in buckets of <1k, 1k-4k, 4k-16k, 16k-64k
//! and 64k+ tokens (k = 1,024), so a long session's late turns are compared with turns of
//! equal context, not only of equal index. [`in_ranges`] groups turns into named ranges of a
//! key, here and for the turn buckets.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::super::distribution::Distribution;
use super::super::{over, us_to_ms};
use crate::sample::Sample;

/// One bucket of prompt lengths.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ContextBucket {
    /// The prompt tokens it holds (k = 1,024): `<1k`, `1k-4k`, `4k-16k`, `16k-64k` or
    /// `64k+`.
    pub tokens: String,
    /// Measured successful turns in it.
    pub requests: u64,
    /// Their TTFT.
    pub ttft_ms: Option<Distribution>,
    /// Their TPOT.
    pub tpot_ms: Option<Distribution>,
}

const K: u32 = 1024;

/// Name, least and most prompt tokens of each bucket.
const BUCKETS: [(&str, u32, u32); 5] = [
    ("<1k", 0, K - 1),
    ("1k-4k", K, 4 * K - 1),
    ("4k-16k", 4 * K, 16 * K - 1),
    ("16k-64k", 16 * K, 64 * K - 1),
    ("64k+", 64 * K, u32::MAX),
];

/// The context buckets' names in order (`<1k` ... `64k+`): what [`ContextBucket::tokens`]
/// holds.
pub fn context_buckets() -> [&'static str; 5] {
    BUCKETS.map(|b| b.0)
}

/// The context buckets of `ok` (the measured successful turns), by each turn's prompt
/// tokens; turns whose prompt length is unknown and empty buckets left out.
pub(super) fn by_context(ok: &[&Sample]) -> Vec<ContextBucket> {
    let tokens = |s: &Sample| s.n_in.filter(|_| s.session_id.is_some());
    in_ranges(ok, &BUCKETS, tokens, |name, group| ContextBucket {
        tokens: name.to_owned(),
        requests: group.len() as u64,
        ttft_ms: over(group, |s| s.ttft_us().map(|us| us_to_ms(us as f64))),
        tpot_ms: over(group, |s| s.tpot_us().map(us_to_ms)),
    })
}

/// One `bucket` per named range `(name, least, most)` of `ranges`, in order, over the
/// samples of `ok` whose `key` falls in it; samples without a key and empty ranges left
/// out.
pub(super) fn in_ranges<B>(
    ok: &[&Sample],
    ranges: &[(&'static str, u32, u32)],
    key: impl Fn(&Sample) -> Option<u32>,
    bucket: impl Fn(&'static str, &[&Sample]) -> B,
) -> Vec<B> {
    ranges
        .iter()
        .filter_map(|&(name, lo, hi)| {
            let group: Vec<&Sample> = ok
                .iter()
                .copied()
                .filter(|s| key(s).is_some_and(|k| (lo..=hi).contains(&k)))
                .collect();
            (!group.is_empty()).then(|| bucket(name, &group))
        })
        .collect()
}
