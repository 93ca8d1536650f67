//! plateau's side of OpenTelemetry: the spans an inference server exports about its requests.
//! It knows OTLP and nothing of cells, records or engines.
//!
//! - [`Span`]: what plateau keeps of one span (ids, name, times, scalar attributes);
//! - [`decode`](mod@decode): an OTLP/HTTP trace export body (protobuf or JSON, gzip or not) into spans,
//!   with `opentelemetry-proto`'s generated messages (prost) doing the decoding;
//! - [`encode`](mod@encode): spans into an export request (the simulator's exporter, tests);
//! - [`receiver`]: the collector's `/v1/traces` endpoint on its own thread and runtime, so
//!   a flood of spans never takes time from the requests being measured; bounded in body
//!   size, connections and spans held, every refusal counted.

pub mod decode;
pub mod encode;
pub mod receiver;

pub use decode::{DecodeError, Encoding, decode};
pub use encode::{Resource, encode};
pub use receiver::{Counts, Keep, Limits, Receiver};

/// The path OTLP/HTTP exporters post traces to.
pub const TRACES_PATH: &str = "/v1/traces";

/// A 16-byte W3C / OpenTelemetry trace id.
pub type TraceId = [u8; 16];

/// An 8-byte span id.
pub type SpanId = [u8; 8];

/// One span as plateau keeps it.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    /// The trace it belongs to.
    pub trace_id: TraceId,
    /// Its own id.
    pub span_id: SpanId,
    /// Its parent's id; `None` for a root span (or a parent id that was not 8 bytes).
    pub parent_span_id: Option<SpanId>,
    /// Its name (`llm_request`, `Req 1a2b3c4d`, `prefill_waiting`).
    pub name: String,
    /// Start, ns since the Unix epoch (the server's wall clock).
    pub start_unix_ns: u64,
    /// End, ns since the Unix epoch.
    pub end_unix_ns: u64,
    /// Its scalar attributes (arrays and maps are left out), in the order sent.
    pub attributes: Vec<(String, Value)>,
}

impl Span {
    /// The attribute `key`, if the span carries it.
    pub fn attr(&self, key: &str) -> Option<&Value> {
        self.attributes
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// End minus start, ns (0 when the end is before the start).
    pub fn duration_ns(&self) -> u64 {
        self.end_unix_ns.saturating_sub(self.start_unix_ns)
    }
}

/// A scalar attribute value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A string.
    Str(String),
    /// A boolean.
    Bool(bool),
    /// A 64-bit integer.
    Int(i64),
    /// A double.
    Double(f64),
}

impl Value {
    /// The value as a number: a double, an integer, or a string that parses as one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Double(d) => Some(*d),
            Value::Int(i) => Some(*i as f64),
            Value::Str(s) => s.trim().parse().ok(),
            Value::Bool(_) => None,
        }
    }
}

/// Lower-case hex of `bytes` (trace ids as `traceparent` and OTLP/JSON write them).
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    out
}

/// The bytes of lower- or upper-case hex `s` of exactly `N` bytes.
pub fn unhex<const N: usize>(s: &str) -> Option<[u8; N]> {
    let s = s.as_bytes();
    if s.len() != 2 * N {
        return None;
    }
    let digit = |c: u8| char::from(c).to_digit(16);
    let mut out = [0u8; N];
    for (i, pair) in s.chunks_exact(2).enumerate() {
        out[i] = u8::try_from(digit(pair[0])? * 16 + digit(pair[1])?).ok()?;
    }
    Some(out)
}

/// The trace and parent ids of a W3C `traceparent` value; `None` unless it is a valid one
/// (four fields, hex ids of the right length, neither all zeros, version not `ff`; a later
/// version may add fields).
pub fn parse_traceparent(value: &str) -> Option<(TraceId, SpanId)> {
    let mut parts = value.trim().split('-');
    let version: [u8; 1] = unhex(parts.next()?)?;
    let trace: TraceId = unhex(parts.next()?)?;
    let parent: SpanId = unhex(parts.next()?)?;
    let _flags: [u8; 1] = unhex(parts.next()?)?;
    let valid = version != [0xff]
        && trace != [0; 16]
        && parent != [0; 8]
        && (version != [0] || parts.next().is_none());
    valid.then_some((trace, parent))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_refuses_what_is_not_hex_of_the_length() {
        let id: TraceId = [
            0x0a, 0xf7, 0x65, 0x19, 0x16, 0xcd, 0x43, 0xdd, 0x84, 0x48, 0xeb, 0x21, 0x1c, 0x80,
            0x31, 0x9c,
        ];
        assert_eq!(hex(&id), "0af7651916cd43dd8448eb211c80319c");
        assert_eq!(unhex::<16>("0AF7651916CD43DD8448EB211C80319C"), Some(id));
        assert_eq!(unhex::<16>("0af7651916cd43dd8448eb211c80319"), None);
        assert_eq!(unhex::<8>("0af765191zcd43dd"), None);
    }

    #[test]
    fn only_valid_traceparents_are_read() {
        let good = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        assert!(parse_traceparent(good).is_some());
        for bad in [
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
            "00-0af7651916cd43dd8448eb211c8031-b7ad6b7169203331-01",
            "hello",
        ] {
            assert_eq!(parse_traceparent(bad), None, "{bad}");
        }
        // A later version may add fields.
        assert!(
            parse_traceparent("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-x")
                .is_some()
        );
    }

    #[test]
    fn numbers_are_read_from_any_numeric_form() {
        assert_eq!(Value::Double(0.25).as_f64(), Some(0.25));
        assert_eq!(Value::Int(7).as_f64(), Some(7.0));
        assert_eq!(Value::Str(" 1.5".into()).as_f64(), Some(1.5));
        assert_eq!(Value::Bool(true).as_f64(), None);
    }
}
