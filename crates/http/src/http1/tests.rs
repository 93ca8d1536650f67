//! HTTP/1.1 framing without I/O: bodies split at every byte, heads, chunk lines and their limits.

use super::*;

/// Feeds `wire` to a body framed as `body` in pieces of `step` bytes, keeping unused bytes
/// as the connection's buffer does: the body bytes, the bytes left after the body, and
/// the final state.
fn feed(
    mut body: Body,
    wire: &[u8],
    step: usize,
) -> Result<(Vec<u8>, Vec<u8>, Body), FramingError> {
    let mut out = Vec::new();
    let mut pending = Vec::new();
    for piece in wire.chunks(step) {
        pending.extend_from_slice(piece);
        let used = body.decode(&pending, &mut |d| out.extend_from_slice(d))?;
        pending.drain(..used);
    }
    Ok((out, pending, body))
}

const CHUNKED: &[u8] =
    b"5\r\nhello\r\n6;name=value\r\n world\r\n10\r\n, and more text.\r\n0\r\nX-Trailer: 1\r\n\r\nNEXT";

#[test]
fn a_chunked_body_decodes_the_same_whatever_the_reads_split() {
    for step in 1..=CHUNKED.len() {
        let (out, rest, body) = feed(Body::Chunked(Chunk::Size), CHUNKED, step).unwrap();
        assert_eq!(out, b"hello world, and more text.", "reads of {step} bytes");
        assert_eq!(
            rest, b"NEXT",
            "reads of {step} bytes: what follows the body is left"
        );
        assert!(body.is_done());
    }
}

#[test]
fn a_length_body_stops_at_its_length() {
    for step in 1..=8 {
        let (out, rest, body) = feed(Body::Length(5), b"helloHTTP", step).unwrap();
        assert_eq!(
            (out.as_slice(), rest.as_slice()),
            (&b"hello"[..], &b"HTTP"[..])
        );
        assert!(body.is_done());
    }
}

#[test]
fn a_body_read_to_the_close_takes_everything_and_ends_at_the_close() {
    let (out, rest, mut body) = feed(Body::Close, b"all of it", 3).unwrap();
    assert_eq!((out.as_slice(), rest.len()), (&b"all of it"[..], 0));
    assert!(!body.is_done());
    assert_eq!(body.closed(), Ok(()));
    assert!(body.is_done());
}

#[test]
fn a_close_before_the_end_of_a_framed_body_is_an_error() {
    let (_, _, mut body) = feed(Body::Length(10), b"short", 5).unwrap();
    assert!(matches!(body.closed(), Err(FramingError::Incomplete(_))));
    let (out, _, mut body) = feed(Body::Chunked(Chunk::Size), b"5\r\nhello\r\n", 4).unwrap();
    assert_eq!(out, b"hello");
    assert!(matches!(body.closed(), Err(FramingError::Incomplete(_))));
}

#[test]
fn malformed_chunks_are_errors() {
    let bad = |wire: &[u8]| feed(Body::Chunked(Chunk::Size), wire, wire.len()).unwrap_err();
    assert_eq!(bad(b"zz\r\nhello"), FramingError::ChunkSize);
    assert_eq!(bad(b"5\r\nhelloXX"), FramingError::ChunkEnd);
    let long = [b"5;".as_slice(), &[b'x'; MAX_LINE + 1]].concat();
    assert_eq!(bad(&long), FramingError::LineTooLong);
}

fn head(text: &str) -> Head {
    let (head, n) = parse_head(text.as_bytes()).unwrap().expect("complete");
    assert_eq!(n, text.len());
    head
}

#[test]
fn a_head_is_parsed_once_complete_and_interim_responses_are_skipped() {
    let text = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nX-A: 1\r\nx-a: 2\r\n\r\n";
    for cut in 0..text.len() {
        assert!(
            parse_head(&text.as_bytes()[..cut]).unwrap().is_none(),
            "{cut} bytes"
        );
    }
    let with_body = format!("{text}body");
    let (h, n) = parse_head(with_body.as_bytes()).unwrap().unwrap();
    assert_eq!(n, text.len());
    assert_eq!(h.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(h.headers["retry-after"], "3");
    assert_eq!(h.headers.get_all("x-a").iter().count(), 2);
    assert!(h.http11);
}

#[test]
fn a_bad_or_endless_head_is_an_error() {
    assert!(matches!(
        parse_head(b"SMTP ready\r\n\r\n"),
        Err(FramingError::Head(_))
    ));
    let endless = format!(
        "HTTP/1.1 200 OK\r\n{}",
        "X-Pad: 0123456789\r\n".repeat(MAX_HEAD / 10)
    );
    assert!(matches!(
        parse_head(endless.as_bytes()),
        Err(FramingError::HeadTooLarge | FramingError::Head(_))
    ));
}

#[test]
fn the_body_framing_follows_rfc_9112() {
    let post = Method::POST;
    let body = |text: &str| head(text).body(&post);
    assert_eq!(
        body("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n"),
        Ok(Body::Chunked(Chunk::Size)),
        "chunked wins over a length"
    );
    assert_eq!(
        body("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"),
        Ok(Body::Chunked(Chunk::Size))
    );
    assert_eq!(
        body("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n"),
        Ok(Body::Close)
    );
    assert_eq!(
        body("HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n"),
        Ok(Body::Length(12))
    );
    assert_eq!(
        body("HTTP/1.1 200 OK\r\nContent-Length: 12, 12\r\n\r\n"),
        Ok(Body::Length(12))
    );
    assert_eq!(
        body("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"),
        Ok(Body::Done)
    );
    assert_eq!(
        body("HTTP/1.1 200 OK\r\nContent-Length: 12\r\nContent-Length: 13\r\n\r\n"),
        Err(FramingError::ContentLength)
    );
    assert_eq!(
        body("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"),
        Err(FramingError::ContentLength)
    );
    assert_eq!(body("HTTP/1.1 200 OK\r\n\r\n"), Ok(Body::Close));
    assert_eq!(body("HTTP/1.1 204 No Content\r\n\r\n"), Ok(Body::Done));
    assert_eq!(
        body("HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n"),
        Ok(Body::Done)
    );
    assert_eq!(
        head("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n").body(&Method::HEAD),
        Ok(Body::Done)
    );
}

#[test]
fn keep_alive_is_the_default_of_http_1_1_only() {
    assert!(head("HTTP/1.1 200 OK\r\n\r\n").keeps_alive());
    assert!(!head("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n").keeps_alive());
    assert!(!head("HTTP/1.1 200 OK\r\nConnection: Upgrade, Close\r\n\r\n").keeps_alive());
    assert!(!head("HTTP/1.0 200 OK\r\n\r\n").keeps_alive());
    assert!(head("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\n").keeps_alive());
}

fn request(method: Method, uri: &str, headers: &[(&str, &str)], body: &[u8]) -> String {
    let mut req = http::Request::builder().method(method).uri(uri);
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    let (parts, ()) = req.body(()).unwrap().into_parts();
    let mut out = Vec::new();
    write_request(&parts, body, None, &mut out);
    String::from_utf8(out).unwrap()
}

#[test]
fn a_request_is_written_in_origin_form_with_host_and_its_true_length() {
    assert_eq!(
        request(
            Method::POST,
            "http://127.0.0.1:8000/v1/chat/completions?x=1",
            &[
                ("content-type", "application/json"),
                ("content-length", "99")
            ],
            b"{}"
        ),
        "POST /v1/chat/completions?x=1 HTTP/1.1\r\nhost: 127.0.0.1:8000\r\n\
         content-type: application/json\r\ncontent-length: 2\r\n\r\n{}"
    );
    assert_eq!(
        request(
            Method::GET,
            "http://example.com",
            &[("host", "proxy.local")],
            b""
        ),
        "GET / HTTP/1.1\r\nhost: proxy.local\r\n\r\n"
    );
    assert_eq!(
        request(Method::POST, "http://h/tokenize", &[], b""),
        "POST /tokenize HTTP/1.1\r\nhost: h\r\ncontent-length: 0\r\n\r\n"
    );
}

#[test]
fn a_status_line_without_a_reason_phrase_is_accepted() {
    let h = head("HTTP/1.1 200\r\ncontent-length: 2\r\n\r\n");
    assert_eq!(h.status, StatusCode::OK);
    assert_eq!(h.body(&Method::GET), Ok(Body::Length(2)));
}

#[test]
fn to_a_forward_proxy_a_request_is_written_in_absolute_form_with_its_credentials() {
    let (parts, ()) = http::Request::builder()
        .method(Method::POST)
        .uri("http://llm.corp.internal:8000/v1/chat/completions")
        .body(())
        .unwrap()
        .into_parts();
    let auth = http::HeaderValue::from_static("Basic dXNlcjpwdw==");
    let mut out = Vec::new();
    write_request(&parts, b"{}", Some(&Some(auth)), &mut out);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "POST http://llm.corp.internal:8000/v1/chat/completions HTTP/1.1\r\n\
         host: llm.corp.internal:8000\r\nproxy-authorization: Basic dXNlcjpwdw==\r\n\
         content-length: 2\r\n\r\n{}"
    );
}
