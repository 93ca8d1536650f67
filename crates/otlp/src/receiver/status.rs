//! The body of a refused request: OTLP/HTTP answers every 4xx and 5xx with a
//! `google.rpc.Status` (`code`, `message`; no `details`), protobuf- or JSON-encoded as the
//! request was, protobuf when the request named neither (what the specification requires
//! of every failure), with the matching `Content-Type`.

use bytes::Bytes;
use http::StatusCode;

use crate::decode::Encoding;

/// The gRPC code of `status` (the specification does not use it; clients may log it).
pub(super) fn code(status: StatusCode) -> i32 {
    match status {
        StatusCode::NOT_FOUND => 5,
        StatusCode::METHOD_NOT_ALLOWED => 12,
        StatusCode::REQUEST_TIMEOUT => 4,
        StatusCode::SERVICE_UNAVAILABLE => 14,
        StatusCode::TOO_MANY_REQUESTS => 8,
        s if s.is_server_error() => 13,
        // 400, 413, 415: the request itself is wrong.
        _ => 3,
    }
}

/// The `Status` of a refusal with `status` and `message`, in `encoding`.
pub(super) fn body(status: StatusCode, message: &str, encoding: Encoding) -> Bytes {
    let code = code(status);
    match encoding {
        Encoding::Json => Bytes::from(
            serde_json::json!({"code": code, "message": message})
                .to_string()
                .into_bytes(),
        ),
        Encoding::Protobuf => {
            // field 1 (`code`, varint), field 2 (`message`, length-delimited).
            let mut out = Vec::with_capacity(message.len() + 12);
            out.push(0x08);
            varint(&mut out, u64::from(code.unsigned_abs()));
            out.push(0x12);
            varint(&mut out, message.len() as u64);
            out.extend_from_slice(message.as_bytes());
            Bytes::from(out)
        }
    }
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_is_encoded_as_protobuf_and_json() {
        let b = body(StatusCode::BAD_REQUEST, "bad", Encoding::Protobuf);
        assert_eq!(&b[..], b"\x08\x03\x12\x03bad");
        // A message of 200 bytes: its length is a two-byte varint (200 = 0xc8 0x01).
        let long = "x".repeat(200);
        let b = body(StatusCode::NOT_FOUND, &long, Encoding::Protobuf);
        assert_eq!(&b[..5], b"\x08\x05\x12\xc8\x01");
        assert_eq!(b.len(), 205);
        let b = body(StatusCode::PAYLOAD_TOO_LARGE, "too \"big\"", Encoding::Json);
        assert_eq!(&b[..], br#"{"code":3,"message":"too \"big\""}"#);
    }
}
