//! The byte frames of the mock's replies, built once: the response head, one content chunk
//! per word, and the last chunk with the usage and `[DONE]`.

use crate::words::Words;

/// The byte frames replies are made of, built once.
pub(crate) struct Frames {
    pub(crate) head: Vec<u8>,
    /// One content chunk per word of `words`.
    tokens: Vec<Vec<u8>>,
    words: Words,
    /// The last content chunk, the usage chunk, `[DONE]` and the end of the body.
    pub(crate) last: Vec<u8>,
}

impl Frames {
    pub(crate) fn new(tokens: u32, words: Words) -> Frames {
        let chunk = |text: &str, finish: &str| {
            format!(
                "data: {{\"id\":\"chatcmpl-0123456789abcdef\",\"object\":\"chat.completion.chunk\",\
                 \"created\":1700000000,\"model\":\"mock\",\"choices\":[{{\"index\":0,\
                 \"delta\":{{\"content\":\"{text}\"}},\"logprobs\":null,\"finish_reason\":{finish}}}]}}\n\n"
            )
        };
        let usage = format!(
            "data: {{\"id\":\"chatcmpl-0123456789abcdef\",\"object\":\"chat.completion.chunk\",\
             \"created\":1700000000,\"model\":\"mock\",\"choices\":[],\"usage\":{{\
             \"prompt_tokens\":50,\"completion_tokens\":{tokens},\"total_tokens\":{}}}}}\n\n\
             data: [DONE]\n\n",
            tokens + 50
        );
        let http_chunk = |s: &str| format!("{:x}\r\n{s}\r\n", s.len()).into_bytes();
        let mut last = http_chunk(&(chunk(" hello", "\"length\"") + &usage));
        last.extend_from_slice(b"0\r\n\r\n");
        Frames {
            head: b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                    cache-control: no-cache\r\ntransfer-encoding: chunked\r\n\r\n"
                .to_vec(),
            tokens: words
                .texts
                .iter()
                .map(|w| http_chunk(&chunk(w, "null")))
                .collect(),
            words,
            last,
        }
    }

    /// The frame of token `i` of the reply that starts at place `start` of the draws.
    pub(crate) fn token(&self, start: usize, i: u32) -> &[u8] {
        &self.tokens[self.words.at(start + i as usize)]
    }
}
