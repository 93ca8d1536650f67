//! An OTLP/HTTP trace export body into [`Span`]s: protobuf (`application/x-protobuf`) or
//! JSON (`application/json`, OTLP's JSON mapping: hex ids, string int64s), optionally
//! gzip-compressed, decoded by `opentelemetry-proto`'s generated messages. Decompression is
//! bounded, so a small compressed body cannot expand past the receiver's limit.

use std::io::Read as _;

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value;
use prost::Message as _;

use crate::{Span, Value};

/// How a body is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// `application/x-protobuf`.
    Protobuf,
    /// `application/json`.
    Json,
}

impl Encoding {
    /// The encoding a `Content-Type` names, `None` for any other type.
    pub fn of_content_type(value: &str) -> Option<Encoding> {
        let essence = value.split(';').next().unwrap_or("").trim();
        if essence.eq_ignore_ascii_case("application/x-protobuf")
            || essence.eq_ignore_ascii_case("application/protobuf")
        {
            Some(Encoding::Protobuf)
        } else if essence.eq_ignore_ascii_case("application/json") {
            Some(Encoding::Json)
        } else {
            None
        }
    }
}

/// Why a body could not be decoded.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// Not an export request in protobuf.
    #[error("not an OTLP trace export request in protobuf: {0}")]
    Protobuf(#[from] prost::DecodeError),
    /// Not an export request in OTLP's JSON.
    #[error("not an OTLP trace export request in JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// Not gzip, or it expands past the limit.
    #[error("gzip body: {0}")]
    Gzip(String),
}

/// The spans of an export request `body` in `encoding`.
pub fn decode(body: &[u8], encoding: Encoding) -> Result<Vec<Span>, DecodeError> {
    let request = match encoding {
        Encoding::Protobuf => ExportTraceServiceRequest::decode(body)?,
        Encoding::Json => serde_json::from_slice(body)?,
    };
    Ok(spans(request))
}

/// `body` gunzipped, failing past `limit` bytes.
pub fn gunzip(body: &[u8], limit: usize) -> Result<Vec<u8>, DecodeError> {
    let mut out = Vec::new();
    let mut reader = flate2::read::GzDecoder::new(body).take(limit as u64 + 1);
    reader
        .read_to_end(&mut out)
        .map_err(|e| DecodeError::Gzip(e.to_string()))?;
    if out.len() > limit {
        return Err(DecodeError::Gzip(format!("it expands past {limit} bytes")));
    }
    Ok(out)
}

fn spans(request: ExportTraceServiceRequest) -> Vec<Span> {
    request
        .resource_spans
        .into_iter()
        .flat_map(|r| r.scope_spans)
        .flat_map(|s| s.spans)
        .filter_map(|s| {
            let trace_id = s.trace_id.as_slice().try_into().ok()?;
            let span_id = s.span_id.as_slice().try_into().unwrap_or_default();
            Some(Span {
                trace_id,
                span_id,
                parent_span_id: s.parent_span_id.as_slice().try_into().ok(),
                name: s.name,
                start_unix_ns: s.start_time_unix_nano,
                end_unix_ns: s.end_time_unix_nano,
                attributes: s
                    .attributes
                    .into_iter()
                    .filter_map(|kv| Some((kv.key, scalar(kv.value?.value?)?)))
                    .collect(),
            })
        })
        .collect()
}

fn scalar(v: any_value::Value) -> Option<Value> {
    Some(match v {
        any_value::Value::StringValue(s) => Value::Str(s),
        any_value::Value::BoolValue(b) => Value::Bool(b),
        any_value::Value::IntValue(i) => Value::Int(i),
        any_value::Value::DoubleValue(d) => Value::Double(d),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_name_their_encoding() {
        assert_eq!(
            Encoding::of_content_type("application/x-protobuf"),
            Some(Encoding::Protobuf)
        );
        assert_eq!(
            Encoding::of_content_type("Application/JSON; charset=utf-8"),
            Some(Encoding::Json)
        );
        assert_eq!(Encoding::of_content_type("text/plain"), None);
    }

    #[test]
    fn a_gzip_bomb_stops_at_the_limit() {
        use std::io::Write as _;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(&vec![0u8; 1 << 20]).unwrap();
        let small = gz.finish().unwrap();
        assert!(small.len() < 4096, "{}", small.len());
        let err = gunzip(&small, 1000).unwrap_err().to_string();
        assert_eq!(err, "gzip body: it expands past 1000 bytes");
        assert_eq!(gunzip(&small, 1 << 20).unwrap().len(), 1 << 20);
        assert!(gunzip(b"not gzip", 1000).is_err());
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(decode(&[0xff, 0xff, 0xff, 0x0f, 0x01], Encoding::Protobuf).is_err());
        assert!(decode(b"{\"resourceSpans\": 3}", Encoding::Json).is_err());
        assert_eq!(decode(b"", Encoding::Protobuf).unwrap(), vec![]);
    }
}
