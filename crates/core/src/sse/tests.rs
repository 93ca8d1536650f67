//! SSE fixtures split at every byte boundary, and a chunking-invariance property test.

use proptest::prelude::*;

use super::*;

fn parse_chunks(chunks: &[&[u8]]) -> Vec<Event> {
    let mut p = Parser::new();
    let mut out = Vec::new();
    for c in chunks {
        p.feed(c, &mut |e| out.push(e.clone())).unwrap();
    }
    p.finish(&mut |e| out.push(e.clone()));
    out
}

fn ev(data: &str) -> Event {
    Event {
        event: None,
        data: data.into(),
    }
}

/// (name, stream, expected events)
fn fixtures() -> Vec<(&'static str, &'static [u8], Vec<Event>)> {
    vec![
        (
            "openai chat stream with usage and done",
            b"data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n\
data: {\"choices\":[{\"delta\":{\"content\":\" the\"}}]}\n\n\
data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1}}\n\n\
data: [DONE]\n\n",
            vec![
                ev("{\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}"),
                ev("{\"choices\":[{\"delta\":{\"content\":\" the\"}}]}"),
                ev("{\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1}}"),
                ev("[DONE]"),
            ],
        ),
        (
            "crlf line ends",
            b"data: a\r\n\r\ndata: b\r\n\r\n",
            vec![ev("a"), ev("b")],
        ),
        (
            "crlf multi-line data",
            b"data: a\r\ndata: b\r\n\r\n",
            vec![ev("a\nb")],
        ),
        (
            "lone cr line ends",
            b"data: a\r\rdata: b\r\r",
            vec![ev("a"), ev("b")],
        ),
        (
            "comments and keep-alives are skipped",
            b": keep-alive\n\n: ping\ndata: x\n\n:\n\n",
            vec![ev("x")],
        ),
        (
            "multi-line data joins with newline",
            b"data: a\ndata: b\ndata\n\n",
            vec![ev("a\nb\n")],
        ),
        (
            "event type and error payload",
            b"event: error\ndata: {\"error\":{\"message\":\"boom\"}}\n\ndata: y\n\n",
            vec![
                Event {
                    event: Some("error".into()),
                    data: "{\"error\":{\"message\":\"boom\"}}".into(),
                },
                ev("y"),
            ],
        ),
        ("no space after colon", b"data:tight\n\n", vec![ev("tight")]),
        (
            "id and retry are ignored",
            b"id: 7\nretry: 100\ndata: z\n\n",
            vec![ev("z")],
        ),
        ("missing final blank line", b"data: last", vec![ev("last")]),
        (
            "bom at start",
            b"\xEF\xBB\xBFdata: bom\n\n",
            vec![ev("bom")],
        ),
        (
            "utf8 content",
            "data: héllo ✓\n\n".as_bytes(),
            vec![ev("héllo ✓")],
        ),
        (
            "invalid utf8 becomes the replacement character",
            b"data: a\xFFb\n\ndata: c\n\n",
            vec![ev("a\u{FFFD}b"), ev("c")],
        ),
        ("blank lines alone dispatch nothing", b"\n\n\r\n", vec![]),
    ]
}

#[test]
fn fixtures_parse_whole() {
    for (name, stream, want) in fixtures() {
        assert_eq!(parse_chunks(&[stream]), want, "{name}");
    }
}

#[test]
fn fixtures_split_at_every_byte_boundary() {
    for (name, stream, want) in fixtures() {
        for cut in 0..=stream.len() {
            let got = parse_chunks(&[&stream[..cut], &stream[cut..]]);
            assert_eq!(got, want, "{name} cut at {cut}");
        }
        for cut1 in 0..=stream.len() {
            for cut2 in cut1..=stream.len() {
                let got = parse_chunks(&[&stream[..cut1], &stream[cut1..cut2], &stream[cut2..]]);
                assert_eq!(got, want, "{name} cut at {cut1},{cut2}");
            }
        }
    }
}

#[test]
fn byte_at_a_time() {
    for (name, stream, want) in fixtures() {
        let chunks: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(parse_chunks(&chunks), want, "{name}");
    }
}

#[test]
fn overlong_line_is_an_error() {
    let mut p = Parser::new();
    let big = vec![b'a'; MAX_LINE + 1];
    let err = p.feed(&big, &mut |_| {}).unwrap_err();
    assert_eq!(err, SseError::LineTooLong { limit: MAX_LINE });
}

fn stream_strategy() -> impl Strategy<Value = Vec<u8>> {
    // Streams built from realistic pieces, including CR/LF mixes and comments.
    let piece = prop_oneof![
        "[a-z {}\":,0-9]{0,12}".prop_map(|s| format!("data: {s}\n\n")),
        "[a-z]{0,6}".prop_map(|s| format!("data: {s}\r\n\r\n")),
        "[a-z]{0,6}".prop_map(|s| format!("data: {s}\r\r")),
        "[a-z]{0,6}".prop_map(|s| format!("data: {s}\ndata: {s}\n\n")),
        "[a-z]{0,6}".prop_map(|s| format!(": {s}\n")),
        "[a-z]{1,6}".prop_map(|s| format!("event: {s}\n")),
        Just("data: [DONE]\n\n".to_owned()),
        Just("\n".to_owned()),
    ];
    prop::collection::vec(piece, 0..12).prop_map(|v| v.concat().into_bytes())
}

proptest! {
    #[test]
    fn parsing_is_chunking_invariant(stream in stream_strategy(), cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..8)) {
        let whole = parse_chunks(&[&stream]);
        let mut points: Vec<usize> = cuts.iter().map(|i| i.index(stream.len() + 1)).collect();
        points.sort_unstable();
        let mut chunks = Vec::new();
        let mut start = 0;
        for p in points {
            chunks.push(&stream[start..p]);
            start = p;
        }
        chunks.push(&stream[start..]);
        prop_assert_eq!(parse_chunks(&chunks), whole);
    }
}
