//! A pure, incremental Server-Sent Events parser (the WHATWG event-stream grammar): events
//! split across frames at any byte, several events per frame, `\r\n`, `\n` and `\r` line
//! ends, comment (keep-alive) lines, multi-line data, `event:` types. It never reads a clock:
//! the caller stamps each frame before feeding it.

/// One dispatched event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Event {
    /// The `event:` field, if the server set one (e.g. `error`).
    pub event: Option<String>,
    /// The data lines joined with `\n`.
    pub data: String,
}

/// Why a stream cannot be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    /// A single line grew past the limit without a line end.
    #[error("an event-stream line exceeded {limit} bytes without a line end")]
    LineTooLong {
        /// The limit in bytes.
        limit: usize,
    },
}

/// Longest line accepted (a chunk with a huge logprobs payload stays well below this).
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// Incremental parser state: feed it bytes as they arrive. Events are handed out by
/// reference and their buffers reused, and a line that arrives whole in one frame is
/// parsed where it lies: nothing is allocated or copied per event once the buffers have
/// grown to the stream's largest event.
#[derive(Debug, Default)]
pub struct Parser {
    /// A line split across frames, until its end arrives.
    line: Vec<u8>,
    /// The event being built.
    current: Event,
    has_data: bool,
    after_cr: bool,
    /// Whether the first line (which may open with a byte-order mark) has ended.
    started: bool,
}

impl Parser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next bytes; `emit` receives each event completed by them, in order.
    pub fn feed(
        &mut self,
        mut bytes: &[u8],
        emit: &mut impl FnMut(&Event),
    ) -> Result<(), SseError> {
        if self.after_cr && !bytes.is_empty() {
            self.after_cr = false;
            if let Some(rest) = bytes.strip_prefix(b"\n") {
                bytes = rest;
            }
        }
        while let Some(end) = memchr::memchr2(b'\n', b'\r', bytes) {
            if self.line.is_empty() {
                self.end_line(&bytes[..end], emit);
            } else {
                self.line.extend_from_slice(&bytes[..end]);
                let line = std::mem::take(&mut self.line);
                self.end_line(&line, emit);
                // Reuse the allocation for the next split line.
                self.line = line;
                self.line.clear();
            }
            let cr = bytes[end] == b'\r';
            bytes = &bytes[end + 1..];
            if cr {
                match bytes.first() {
                    Some(b'\n') => bytes = &bytes[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        self.line.extend_from_slice(bytes);
        if self.line.len() > MAX_LINE {
            return Err(SseError::LineTooLong { limit: MAX_LINE });
        }
        Ok(())
    }

    /// Ends the stream: a last line without its line end, and an event missing its blank
    /// line, are still delivered (servers that omit the final blank line are common).
    pub fn finish(&mut self, emit: &mut impl FnMut(&Event)) {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.end_line(&line, emit);
        }
        self.dispatch(emit);
    }

    fn end_line(&mut self, mut line: &[u8], emit: &mut impl FnMut(&Event)) {
        if !self.started {
            self.started = true;
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        if line.is_empty() {
            self.dispatch(emit);
        } else if line[0] != b':' {
            let (field, value) = match line.iter().position(|&b| b == b':') {
                Some(i) => {
                    let v = &line[i + 1..];
                    (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
                }
                None => (line, &b""[..]),
            };
            match field {
                b"data" => {
                    if self.has_data {
                        self.current.data.push('\n');
                    }
                    push_lossy(&mut self.current.data, value);
                    self.has_data = true;
                }
                b"event" => {
                    let mut name = String::new();
                    push_lossy(&mut name, value);
                    self.current.event = Some(name);
                }
                _ => {} // id, retry and unknown fields carry nothing we use
            }
        }
    }

    fn dispatch(&mut self, emit: &mut impl FnMut(&Event)) {
        if self.has_data {
            emit(&self.current);
        }
        self.has_data = false;
        self.current.event = None;
        self.current.data.clear();
    }
}

/// Appends `bytes` as text, invalid UTF-8 replaced by U+FFFD (valid text, the usual case,
/// takes the fast check only).
fn push_lossy(out: &mut String, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(text) => out.push_str(text),
        Err(_) => out.push_str(&String::from_utf8_lossy(bytes)),
    }
}

#[cfg(test)]
mod tests;
