//! The receiver over real sockets: both encodings and gzip, every refusal counted with its
//! status, and its bounds held under abuse (a body past the limit announced or not, garbage,
//! a flood of spans past what it holds).

#![allow(clippy::unwrap_used, missing_docs)]

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use plateau_otlp::{Counts, Limits, Receiver, Resource, Span, Value, encode};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
    )
    .unwrap()
}

/// Keeps the names of spans that carry a TTFT.
fn receiver(limits: Limits) -> Receiver<String> {
    let keep = Arc::new(|s: Span| {
        s.attr("gen_ai.latency.time_to_first_token")
            .is_some()
            .then_some(s.name)
    });
    Receiver::start("127.0.0.1:0".parse().unwrap(), limits, keep).unwrap()
}

/// One raw HTTP/1.1 POST; the status and body of the answer.
fn post(addr: SocketAddr, path: &str, headers: &[(&str, String)], body: &[u8]) -> (u16, String) {
    let (status, _, body) = exchange(addr, "POST", path, headers, body);
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// One raw HTTP/1.1 request: the answer's status, `Content-Type` and body bytes.
fn exchange(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, String)],
    body: &[u8],
) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).unwrap();
    let _ = s.write_all(body);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let end = out.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&out[..end]).to_ascii_lowercase();
    let status = head.get(9..12).and_then(|c| c.parse().ok()).unwrap_or(0);
    let kind = head
        .lines()
        .find_map(|l| l.strip_prefix("content-type: "))
        .unwrap_or("")
        .to_owned();
    (status, kind, out[end + 4..].to_vec())
}

/// A `google.rpc.Status` in protobuf read back: `(code, message)`; fields 1 and 2 in order,
/// lengths below 128 (one-byte varints), nothing after.
fn status_of(body: &[u8]) -> (u8, String) {
    match body {
        [0x08, code, 0x12, len, message @ ..] if message.len() == usize::from(*len) => {
            (*code, String::from_utf8(message.to_vec()).unwrap())
        }
        _ => panic!("not a Status: {body:?}"),
    }
}

fn typed(kind: &str, len: usize) -> Vec<(&'static str, String)> {
    vec![
        ("content-type", kind.into()),
        ("content-length", len.to_string()),
    ]
}

/// POSTs `body` as protobuf to `/v1/traces`; the status.
fn post_protobuf(addr: SocketAddr, body: &[u8]) -> u16 {
    let headers = typed("application/x-protobuf", body.len());
    post(addr, "/v1/traces", &headers, body).0
}

#[test]
fn both_encodings_and_gzip_are_received_and_only_the_kept_spans_held() {
    let r = receiver(Limits::default());
    let bin = fixture("vllm.bin");
    assert_eq!(post_protobuf(r.addr(), &bin), 200);
    let json = fixture("sglang.json");
    let (status, body) = post(
        r.addr(),
        "/v1/traces",
        &typed("application/json", json.len()),
        &json,
    );
    assert_eq!((status, body.as_str()), (200, "{}"));
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&bin).unwrap();
    let gz = gz.finish().unwrap();
    let mut h = typed("application/x-protobuf", gz.len());
    h.push(("content-encoding", "gzip".into()));
    assert_eq!(post(r.addr(), "/v1/traces", &h, &gz).0, 200);
    assert_eq!(
        r.take(),
        [
            "llm_request",
            "llm_request",
            " Req 9f86d081",
            "llm_request",
            "llm_request"
        ]
    );
    assert!(r.take().is_empty(), "taken once");
    assert_eq!(
        r.counts(),
        Counts {
            requests: 3,
            accepted: 3,
            spans: 9,
            kept: 5,
            ignored: 4,
            ..Counts::default()
        }
    );
}

#[test]
fn what_is_not_an_export_request_is_refused_and_counted() {
    let r = receiver(Limits::default());
    let a = r.addr();
    let bin = fixture("vllm.bin");
    assert_eq!(
        post(a, "/v1/metrics", &typed("application/x-protobuf", 0), b"").0,
        404
    );
    assert_eq!(
        post(a, "/v1/traces", &typed("text/plain", 3), b"abc").0,
        415
    );
    let mut h = typed("application/x-protobuf", bin.len());
    h.push(("content-encoding", "br".into()));
    assert_eq!(post(a, "/v1/traces", &h, &bin).0, 415);
    let garbage = [0xffu8, 0xff, 0xff, 0xff, 0x0f, 0x0a, 0x80];
    let (status, body) = post(
        a,
        "/v1/traces",
        &typed("application/x-protobuf", 7),
        &garbage,
    );
    assert_eq!(status, 400);
    let (code, message) = status_of(body.as_bytes());
    assert_eq!(code, 3);
    assert!(
        message.starts_with("not an OTLP trace export request in protobuf"),
        "{message}"
    );
    assert_eq!(
        post(a, "/v1/traces", &typed("application/json", 5), b"{\"a\":").0,
        400
    );
    // Garbage never takes the receiver down: a good request still goes through.
    assert_eq!(
        post(
            a,
            "/v1/traces",
            &typed("application/x-protobuf", bin.len()),
            &bin
        )
        .0,
        200
    );
    let c = r.counts();
    assert_eq!(
        (
            c.requests,
            c.wrong_path,
            c.unsupported,
            c.malformed,
            c.accepted
        ),
        (6, 1, 2, 2, 1)
    );
}

#[test]
fn an_exporter_left_on_grpc_is_counted_and_closed() {
    let r = receiver(Limits::default());
    let mut s = TcpStream::connect(r.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0")
        .unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    assert!(out.is_empty(), "closed without an answer: {out:?}");
    let c = r.counts();
    assert_eq!((c.grpc_connections, c.requests), (1, 0));
    // An HTTP/1 exporter on the same receiver is still served.
    let bin = fixture("vllm.bin");
    assert_eq!(post_protobuf(r.addr(), &bin), 200);
    assert_eq!(r.counts().grpc_connections, 1);
}

#[test]
fn a_100_mb_body_is_refused_without_holding_it() {
    let r = receiver(Limits {
        max_body_bytes: 1 << 20,
        ..Limits::default()
    });
    // Announced: refused from the head, before a byte of the body is read.
    let h = typed("application/x-protobuf", 100 << 20);
    let (status, body) = post(r.addr(), "/v1/traces", &h, &[]);
    assert_eq!(
        (status, status_of(body.as_bytes())),
        (413, (3, "body larger than 1048576 bytes".into()))
    );
    // Not announced (chunked): refused once the limit is crossed, 2 MiB into it.
    let mut s = TcpStream::connect(r.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(b"POST /v1/traces HTTP/1.1\r\nhost: x\r\ncontent-type: application/x-protobuf\r\ntransfer-encoding: chunked\r\n\r\n").unwrap();
    let chunk = vec![0x0au8; 64 << 10];
    let mut sent = 0usize;
    while sent < 100 << 20 {
        let framed = [format!("{:x}\r\n", chunk.len()).as_bytes(), &chunk, b"\r\n"].concat();
        if s.write_all(&framed).is_err() {
            break;
        }
        sent += chunk.len();
    }
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    assert!(
        String::from_utf8_lossy(&out).starts_with("HTTP/1.1 413"),
        "{sent}"
    );
    assert!(
        sent < 100 << 20,
        "the receiver stopped reading: {sent} bytes sent"
    );
    assert_eq!(r.counts().too_large, 2);
}

#[test]
fn a_flood_of_spans_past_the_limit_is_dropped_counted_and_told() {
    let r = receiver(Limits {
        max_spans: 1000,
        ..Limits::default()
    });
    let span = |i: u64| Span {
        trace_id: [0; 16],
        span_id: i.to_be_bytes(),
        parent_span_id: None,
        name: format!("s{i}"),
        start_unix_ns: 0,
        end_unix_ns: 1,
        attributes: vec![(
            "gen_ai.latency.time_to_first_token".into(),
            Value::Double(0.1),
        )],
    };
    let batch: Vec<Span> = (0..600).map(span).collect();
    let body = encode(
        &batch,
        Resource {
            service: "flood",
            scope: "x",
        },
    );
    let h = typed("application/x-protobuf", body.len());
    assert_eq!(post(r.addr(), "/v1/traces", &h, &body).0, 200);
    let (status, answer) = post(r.addr(), "/v1/traces", &h, &body);
    assert_eq!(status, 200);
    assert!(
        answer.contains("server_traces.max_spans"),
        "partial success said: {answer:?}"
    );
    let c = r.counts();
    assert_eq!((c.spans, c.kept, c.dropped), (1200, 1000, 200));
    assert_eq!(r.take().len(), 1000);
    // Room again once taken.
    assert_eq!(post(r.addr(), "/v1/traces", &h, &body).0, 200);
    assert_eq!(r.take().len(), 600);
}

#[test]
fn a_refusal_answers_with_a_status_in_the_requests_encoding() {
    let r = receiver(Limits::default());
    let a = r.addr();
    let no_route = "no route; traces go to /v1/traces";
    // Protobuf asked, protobuf answered: code 5 (NOT_FOUND) and the message.
    let (status, kind, body) = exchange(
        a,
        "POST",
        "/v1/metrics",
        &typed("application/x-protobuf", 0),
        b"",
    );
    assert_eq!((status, kind.as_str()), (404, "application/x-protobuf"));
    assert_eq!(status_of(&body), (5, no_route.into()));
    // JSON asked, JSON answered: the same Status in proto3's JSON mapping.
    let (status, kind, body) = exchange(
        a,
        "POST",
        "/v1/traces",
        &typed("application/json", 5),
        b"{\"a\":",
    );
    assert_eq!((status, kind.as_str()), (400, "application/json"));
    let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(json["code"], 3);
    assert!(
        json["message"]
            .as_str()
            .unwrap()
            .starts_with("not an OTLP trace export request in JSON"),
        "{json}"
    );
    // Neither named (a GET, a text body): protobuf, as the specification requires.
    let (status, kind, body) = exchange(a, "GET", "/v1/traces", &[], b"");
    assert_eq!((status, kind.as_str()), (405, "application/x-protobuf"));
    assert_eq!(status_of(&body), (12, "traces are POSTed".into()));
    let (status, kind, body) = exchange(a, "POST", "/v1/traces", &typed("text/plain", 3), b"abc");
    assert_eq!((status, kind.as_str()), (415, "application/x-protobuf"));
    assert_eq!(
        status_of(&body),
        (
            3,
            "expected application/x-protobuf or application/json".into()
        )
    );
    assert_eq!(r.counts().requests, 4);
}
