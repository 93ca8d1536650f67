//! The join key every request carries: a W3C `traceparent` (version 00, sampled) with a
//! trace id of its own, and an `X-Request-Id` of the same 32 hex digits, added where the
//! request's headers are built (once per request, never per token). The trace id goes into
//! the request's record, so the server's span for it (vLLM and SGLang take the caller's
//! trace from `traceparent`) can be joined to it. A header the user configured wins: their
//! `traceparent` is sent as is and its trace id recorded (none when it is not a valid one);
//! their `X-Request-Id` is sent as is.

use std::sync::atomic::{AtomicU64, Ordering};

use http::header::{HeaderMap, HeaderName, HeaderValue};

pub use plateau_otlp::{SpanId, TraceId, hex};

/// `traceparent`.
pub const TRACEPARENT: HeaderName = HeaderName::from_static("traceparent");
/// `x-request-id`.
pub const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Hands out trace ids that never repeat within one generator: the counter goes through
/// splitmix64's finalizer, a bijection of 64-bit words, under a random seed per generator.
#[derive(Debug)]
pub struct TraceIds {
    seed: [u64; 2],
    next: AtomicU64,
}

impl TraceIds {
    /// A generator seeded by `seed` (two generators with one seed give the same ids).
    pub fn new(seed: u64) -> TraceIds {
        TraceIds {
            seed: [mix(seed), mix(seed ^ 0x5851_F42D_4C95_7F2D)],
            next: AtomicU64::new(0),
        }
    }

    /// A generator with a seed from the clock and the process id.
    pub fn random() -> TraceIds {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        TraceIds::new(nanos ^ u64::from(std::process::id()).rotate_left(32))
    }

    /// The next trace id and the id of the client's span (the `traceparent`'s parent id).
    pub fn next(&self) -> (TraceId, SpanId) {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let hi = mix(self.seed[0].wrapping_add(n));
        let lo = mix(self.seed[1] ^ n.rotate_left(17));
        let mut trace = [0u8; 16];
        trace[..8].copy_from_slice(&hi.to_be_bytes());
        trace[8..].copy_from_slice(&lo.to_be_bytes());
        // W3C: neither id may be all zeros.
        let parent = mix(hi ^ lo).max(1).to_be_bytes();
        if trace == [0; 16] {
            trace[15] = 1;
        }
        (trace, parent)
    }
}

/// splitmix64's finalizer.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The W3C `traceparent` of `trace` with parent `parent`, sampled.
pub fn traceparent(trace: &TraceId, parent: &SpanId) -> String {
    format!("00-{}-{}-01", hex(trace), hex(parent))
}

/// The trace id of a `traceparent` value; `None` unless it is a valid one
/// ([`plateau_otlp::parse_traceparent`]).
pub fn parse_traceparent(value: &str) -> Option<TraceId> {
    plateau_otlp::parse_traceparent(value).map(|(trace, _)| trace)
}

/// How an endpoint's requests get their join key: plateau's own ids, unless the user's
/// headers name them.
#[derive(Debug)]
pub struct Join {
    ids: TraceIds,
    /// The user set `traceparent`: its trace id (`None` inside when it is not valid).
    user_trace: Option<Option<TraceId>>,
    /// The user set `X-Request-Id`.
    user_request_id: bool,
}

impl Join {
    /// The join of an endpoint whose configured headers are `user` (name, value).
    pub fn new<'a>(
        ids: TraceIds,
        user: impl IntoIterator<Item = (&'a HeaderName, &'a HeaderValue)>,
    ) -> Join {
        let mut join = Join {
            ids,
            user_trace: None,
            user_request_id: false,
        };
        for (name, value) in user {
            if *name == TRACEPARENT {
                join.user_trace = Some(value.to_str().ok().and_then(parse_traceparent));
            } else if *name == X_REQUEST_ID {
                join.user_request_id = true;
            }
        }
        join
    }

    /// Adds the join headers the user did not set to `headers`; the trace id the request
    /// carries. Without the user's `X-Request-Id`, it is plateau's trace id for the request
    /// in hex, also when the user's own `traceparent` is sent.
    pub fn stamp(&self, headers: &mut HeaderMap) -> Option<TraceId> {
        let (trace, parent) = self.ids.next();
        if !self.user_request_id
            && let Ok(v) = HeaderValue::from_str(&hex(&trace))
        {
            headers.insert(X_REQUEST_ID, v);
        }
        if let Some(user) = self.user_trace {
            return user;
        }
        if let Ok(v) = HeaderValue::from_str(&traceparent(&trace, &parent)) {
            headers.insert(TRACEPARENT, v);
        }
        Some(trace)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_do_not_repeat_and_make_valid_traceparents() {
        let ids = TraceIds::new(7);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..100_000 {
            let (trace, parent) = ids.next();
            assert!(seen.insert(trace));
            let header = traceparent(&trace, &parent);
            assert_eq!(header.len(), 55);
            assert_eq!(parse_traceparent(&header), Some(trace));
        }
        assert_eq!(TraceIds::new(7).next(), TraceIds::new(7).next());
        assert_ne!(TraceIds::new(7).next().0, TraceIds::new(8).next().0);
    }

    #[test]
    fn headers_the_user_set_win() {
        let plain = Join::new(TraceIds::new(1), []);
        let mut h = HeaderMap::new();
        let trace = plain.stamp(&mut h).expect("an id");
        let tp = h[TRACEPARENT].to_str().unwrap();
        assert_eq!(parse_traceparent(tp), Some(trace));
        assert_eq!(h[X_REQUEST_ID].to_str().unwrap(), hex(&trace));

        let theirs =
            HeaderValue::from_static("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        let rid = HeaderValue::from_static("mine");
        let user = [(TRACEPARENT, theirs.clone()), (X_REQUEST_ID, rid)];
        let join = Join::new(TraceIds::new(1), user.iter().map(|(n, v)| (n, v)));
        let mut h = HeaderMap::new();
        assert_eq!(
            join.stamp(&mut h),
            parse_traceparent(theirs.to_str().unwrap())
        );
        assert!(
            h.is_empty(),
            "the user's own headers are added with the endpoint's"
        );

        let only_rid = [(X_REQUEST_ID, HeaderValue::from_static("mine"))];
        let join = Join::new(TraceIds::new(1), only_rid.iter().map(|(n, v)| (n, v)));
        let mut h = HeaderMap::new();
        assert!(join.stamp(&mut h).is_some());
        assert!(h.contains_key(TRACEPARENT) && !h.contains_key(X_REQUEST_ID));

        // Their traceparent alone: a request id of plateau's still goes with it.
        let only_tp = [(TRACEPARENT, theirs.clone())];
        let join = Join::new(TraceIds::new(1), only_tp.iter().map(|(n, v)| (n, v)));
        let mut h = HeaderMap::new();
        assert_eq!(
            join.stamp(&mut h),
            parse_traceparent(theirs.to_str().unwrap())
        );
        assert!(!h.contains_key(TRACEPARENT));
        assert_eq!(h[X_REQUEST_ID].len(), 32);

        let invalid = [(TRACEPARENT, HeaderValue::from_static("nonsense"))];
        let join = Join::new(TraceIds::new(1), invalid.iter().map(|(n, v)| (n, v)));
        assert_eq!(join.stamp(&mut HeaderMap::new()), None);
    }
}
