//! HTTP/1.1 framing, with no I/O: a request written out, a response head parsed
//! (`httparse`), and a response body decoded where it lies in the read buffer (content
//! length, chunked with `httparse`'s chunk-size lines, or read to the close), per RFC 9112.
//!
//! The client reads each connection in the request's own task and decodes each read
//! in place, so a body byte is handed on in the poll that read it: no connection task, no
//! channel, no copy per frame.

use http::header::{
    CONNECTION, CONTENT_LENGTH, HOST, HeaderMap, HeaderName, HeaderValue, PROXY_AUTHORIZATION,
};
use http::request::Parts;
use http::{Method, StatusCode};

/// Largest response head accepted.
pub(crate) const MAX_HEAD: usize = 256 * 1024;

/// Most header lines in a response head.
const MAX_HEADERS: usize = 128;

/// Longest chunk-size line (with its extensions) or trailer line accepted.
const MAX_LINE: usize = 16 * 1024;

/// Why a response could not be read as HTTP/1.1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FramingError {
    /// The head did not parse.
    #[error("malformed response head: {0}")]
    Head(String),
    /// The head grew past [`MAX_HEAD`] without ending.
    #[error("response head larger than {MAX_HEAD} bytes")]
    HeadTooLarge,
    /// A chunk-size line did not parse.
    #[error("malformed chunk size line")]
    ChunkSize,
    /// A chunk's data was not followed by its line end.
    #[error("chunk data not followed by CRLF")]
    ChunkEnd,
    /// A chunk-size or trailer line grew past [`MAX_LINE`].
    #[error("chunk line longer than {MAX_LINE} bytes")]
    LineTooLong,
    /// `Content-Length` was not one number.
    #[error("invalid Content-Length")]
    ContentLength,
    /// The connection closed before the body's end.
    #[error("the connection closed before the response was complete ({0})")]
    Incomplete(&'static str),
}

/// Writes `parts` and `body` as an HTTP/1.1 request: origin-form target (absolute form to a
/// forward proxy: `forward` holds its `Proxy-Authorization`, if any), a `Host` header from
/// the URI's authority unless one is set, and `Content-Length` for any body.
pub(crate) fn write_request(
    parts: &Parts,
    body: &[u8],
    forward: Option<&Option<HeaderValue>>,
    out: &mut Vec<u8>,
) {
    out.extend_from_slice(parts.method.as_str().as_bytes());
    out.push(b' ');
    if forward.is_some()
        && let (Some(scheme), Some(authority)) = (parts.uri.scheme_str(), parts.uri.authority())
    {
        out.extend_from_slice(scheme.as_bytes());
        out.extend_from_slice(b"://");
        out.extend_from_slice(authority.as_str().as_bytes());
    }
    let target = parts
        .uri
        .path_and_query()
        .map_or("/", http::uri::PathAndQuery::as_str);
    out.extend_from_slice(if target.is_empty() {
        b"/"
    } else {
        target.as_bytes()
    });
    out.extend_from_slice(b" HTTP/1.1\r\n");
    if !parts.headers.contains_key(HOST)
        && let Some(authority) = parts.uri.authority()
    {
        header(out, HOST.as_str(), authority.as_str().as_bytes());
    }
    if let Some(Some(auth)) = forward {
        header(out, PROXY_AUTHORIZATION.as_str(), auth.as_bytes());
    }
    let sends_length = !body.is_empty() || !matches!(parts.method, Method::GET | Method::HEAD);
    for (name, value) in &parts.headers {
        if name == CONTENT_LENGTH {
            continue;
        }
        header(out, name.as_str(), value.as_bytes());
    }
    if sends_length {
        header(
            out,
            CONTENT_LENGTH.as_str(),
            body.len().to_string().as_bytes(),
        );
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body);
}

fn header(out: &mut Vec<u8>, name: &str, value: &[u8]) {
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b": ");
    out.extend_from_slice(value);
    out.extend_from_slice(b"\r\n");
}

/// A parsed response head.
#[derive(Debug)]
pub(crate) struct Head {
    pub(crate) status: StatusCode,
    /// HTTP/1.1 (else 1.0).
    pub(crate) http11: bool,
    pub(crate) headers: HeaderMap,
}

impl Head {
    /// Whether the connection may carry another request once this response is read:
    /// HTTP/1.1 unless `Connection: close`, HTTP/1.0 only with `Connection: keep-alive`.
    pub(crate) fn keeps_alive(&self) -> bool {
        let has = |token: &str| {
            self.headers.get_all(CONNECTION).iter().any(|v| {
                v.to_str()
                    .is_ok_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
            })
        };
        if self.http11 {
            !has("close")
        } else {
            has("keep-alive")
        }
    }

    /// How the body is delimited (RFC 9112, section 6.3), for a request with `method`.
    pub(crate) fn body(&self, method: &Method) -> Result<Body, FramingError> {
        let s = self.status.as_u16();
        if *method == Method::HEAD || s == 204 || s == 304 || (100..200).contains(&s) {
            return Ok(Body::Done);
        }
        if let Some(te) = self
            .headers
            .get_all(http::header::TRANSFER_ENCODING)
            .iter()
            .next_back()
        {
            let last = te
                .to_str()
                .ok()
                .and_then(|v| v.rsplit(',').next())
                .map(str::trim);
            return Ok(match last {
                Some(c) if c.eq_ignore_ascii_case("chunked") => Body::Chunked(Chunk::Size),
                _ => Body::Close,
            });
        }
        let mut length = None;
        for v in self.headers.get_all(CONTENT_LENGTH) {
            for part in v
                .to_str()
                .map_err(|_| FramingError::ContentLength)?
                .split(',')
            {
                let n: u64 = part
                    .trim()
                    .parse()
                    .map_err(|_| FramingError::ContentLength)?;
                if length.is_some_and(|l| l != n) {
                    return Err(FramingError::ContentLength);
                }
                length = Some(n);
            }
        }
        Ok(match length {
            Some(0) => Body::Done,
            Some(n) => Body::Length(n),
            None => Body::Close,
        })
    }
}

/// Parses a response head at the start of `buf`, skipping interim (1xx) responses: the
/// head and the bytes it took, `None` until it is complete.
pub(crate) fn parse_head(buf: &[u8]) -> Result<Option<(Head, usize)>, FramingError> {
    let mut at = 0;
    loop {
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut resp = httparse::Response::new(&mut headers);
        let n = match resp.parse(&buf[at..]) {
            Ok(httparse::Status::Complete(n)) => n,
            Ok(httparse::Status::Partial) if buf.len() - at > MAX_HEAD => {
                return Err(FramingError::HeadTooLarge);
            }
            Ok(httparse::Status::Partial) => return Ok(None),
            Err(e) => return Err(FramingError::Head(e.to_string())),
        };
        let code = resp.code.unwrap_or_default();
        let status = StatusCode::from_u16(code).map_err(|e| FramingError::Head(e.to_string()))?;
        at += n;
        // 101 would switch protocols, which no request here asks for: read as final.
        if status.is_informational() && code != 101 {
            continue;
        }
        let mut map = HeaderMap::with_capacity(resp.headers.len());
        for h in resp.headers.iter() {
            let name = HeaderName::from_bytes(h.name.as_bytes())
                .map_err(|e| FramingError::Head(e.to_string()))?;
            let value =
                HeaderValue::from_bytes(h.value).map_err(|e| FramingError::Head(e.to_string()))?;
            map.append(name, value);
        }
        let head = Head {
            status,
            http11: resp.version == Some(1),
            headers: map,
        };
        return Ok(Some((head, at)));
    }
}

/// Where a chunked body is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Chunk {
    /// At a chunk-size line.
    Size,
    /// Inside a chunk's data, this many bytes to go.
    Data(u64),
    /// After a chunk's data, at its CRLF.
    DataEnd,
    /// After the last chunk, at the trailer lines and the final blank line.
    Trailers,
}

/// A response body being decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Body {
    /// This many bytes to go.
    Length(u64),
    /// Chunked.
    Chunked(Chunk),
    /// Until the server closes the connection.
    Close,
    /// Complete.
    Done,
}

impl Body {
    /// Whether the body is complete.
    pub(crate) fn is_done(&self) -> bool {
        *self == Body::Done
    }

    /// Decodes what it can of `input`, handing each run of body bytes to `sink`, and
    /// returns how many bytes of `input` it used (the rest waits for more input; a
    /// complete body leaves what follows it unused).
    pub(crate) fn decode(
        &mut self,
        input: &[u8],
        sink: &mut impl FnMut(&[u8]),
    ) -> Result<usize, FramingError> {
        let mut at = 0;
        loop {
            let rest = &input[at..];
            match self {
                Body::Done => return Ok(at),
                Body::Close => {
                    if !rest.is_empty() {
                        sink(rest);
                    }
                    return Ok(input.len());
                }
                Body::Length(left) | Body::Chunked(Chunk::Data(left)) => {
                    if rest.is_empty() {
                        return Ok(at);
                    }
                    let n = rest.len().min(usize::try_from(*left).unwrap_or(usize::MAX));
                    sink(&rest[..n]);
                    at += n;
                    *left -= n as u64;
                    if *left == 0 {
                        *self = match self {
                            Body::Length(_) => Body::Done,
                            _ => Body::Chunked(Chunk::DataEnd),
                        };
                    }
                }
                Body::Chunked(Chunk::Size) => match httparse::parse_chunk_size(rest) {
                    Ok(httparse::Status::Complete((n, size))) => {
                        at += n;
                        *self = Body::Chunked(if size == 0 {
                            Chunk::Trailers
                        } else {
                            Chunk::Data(size)
                        });
                    }
                    Ok(httparse::Status::Partial) if rest.len() > MAX_LINE => {
                        return Err(FramingError::LineTooLong);
                    }
                    Ok(httparse::Status::Partial) => return Ok(at),
                    Err(_) => return Err(FramingError::ChunkSize),
                },
                Body::Chunked(Chunk::DataEnd) => match rest {
                    [b'\r', b'\n', ..] => {
                        at += 2;
                        *self = Body::Chunked(Chunk::Size);
                    }
                    [] | [b'\r'] => return Ok(at),
                    _ => return Err(FramingError::ChunkEnd),
                },
                Body::Chunked(Chunk::Trailers) => {
                    let Some(end) = rest.iter().position(|&b| b == b'\n') else {
                        if rest.len() > MAX_LINE {
                            return Err(FramingError::LineTooLong);
                        }
                        return Ok(at);
                    };
                    at += end + 1;
                    let line = &rest[..end];
                    if line.is_empty() || line == b"\r" {
                        *self = Body::Done;
                    }
                }
            }
        }
    }

    /// The connection closed: fine for a body read to the close, an error for one
    /// still short of its end.
    pub(crate) fn closed(&mut self) -> Result<(), FramingError> {
        match self {
            Body::Done => Ok(()),
            Body::Close => {
                *self = Body::Done;
                Ok(())
            }
            Body::Length(_) => Err(FramingError::Incomplete("Content-Length not reached")),
            Body::Chunked(_) => Err(FramingError::Incomplete("no last chunk")),
        }
    }
}

#[cfg(test)]
mod tests;
