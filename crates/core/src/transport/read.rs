//! One request through the HTTP client ([`plateau_http`]) read into an [`Exchange`]: an
//! event stream's events decoded by the API's [`Wire`] as they arrive (`stream`), any
//! other body read whole and decoded at its end, and every failure an [`Outcome`].

use std::time::Duration;

use bytes::Bytes;
use http::Request;
use http::header::{CONTENT_ENCODING, CONTENT_TYPE, LOCATION, RETRY_AFTER};
use plateau_http::{Bounds, Client, Clock, Failure, FailureKind, Stamps};
use tokio_util::sync::CancellationToken;

use super::stream::SseState;
use crate::exchange::Exchange;
use crate::wire::Wire;
use plateau_model::sample::Outcome;

/// Why reading stopped early: the outcome and its message.
pub(super) struct Stop {
    pub(super) outcome: Outcome,
    pub(super) message: Option<String>,
}

impl Stop {
    pub(super) fn new(outcome: Outcome, message: Option<String>) -> Stop {
        Stop { outcome, message }
    }
}

impl From<Failure> for Stop {
    fn from(f: Failure) -> Stop {
        let outcome = match f.kind {
            FailureKind::Connect => Outcome::Connect,
            FailureKind::Stream => Outcome::Stream,
            FailureKind::Timeout => Outcome::Timeout,
            FailureKind::Cancelled => Outcome::Cancelled,
            FailureKind::TooLarge => Outcome::Decode,
        };
        Stop::new(outcome, f.message)
    }
}

enum Reader {
    Sse(SseState),
    Whole(Vec<u8>),
}

/// Sends `req` with `client` and reads the whole response, its body decoded by `wire`.
/// Never fails: every failure is an [`Outcome`] in the returned exchange. `cancel` ends it
/// early with [`Outcome::Cancelled`], keeping what arrived.
pub async fn exchange(
    client: &Client,
    req: Request<Bytes>,
    wire: &dyn Wire,
    clock: &Clock,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Exchange {
    let mut ex = Exchange::new(clock.now_us());
    let bounds = Bounds::new(timeout, cancel);
    let asked = req.uri().clone();
    let mut stamps = Stamps {
        t_sent_us: ex.t_sent_us,
        ..Stamps::default()
    };
    let sent = client.send(req, clock, &bounds, &mut stamps).await;
    ex.t_sent_us = stamps.t_sent_us;
    ex.connect_us = stamps.connect_us;
    ex.resends = stamps.resends;
    let response = match sent {
        Ok(response) => response,
        Err(f) => return end(ex, clock, f.into()),
    };
    let status = response.status();
    if let Some(stop) = unasked(status, response.headers(), &asked) {
        return end(ex, clock, stop);
    }
    if !status.is_success() {
        ex.retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| crate::backoff::parse_retry_after(v, std::time::SystemTime::now()));
    }
    let is_sse = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let mut reader = if is_sse && status.is_success() {
        Reader::Sse(SseState::default())
    } else {
        Reader::Whole(Vec::new())
    };
    let ended = response
        .read(clock, &bounds, &mut |data, t_us, read| match &mut reader {
            Reader::Sse(state) => {
                state
                    .feed(wire, data, t_us, read, &mut ex)
                    .map_err(|e| Stop::new(Outcome::Decode, Some(e)))?;
                match state.failure.take() {
                    Some((outcome, msg)) => Err(Stop::new(outcome, Some(msg))),
                    None => Ok(()),
                }
            }
            Reader::Whole(buf) => plateau_http::whole(buf, data).map_err(Stop::from),
        })
        .await;
    if let Err(stop) = ended {
        return end(ex, clock, stop);
    }
    let t_end = clock.now_us();
    let stop = match reader {
        Reader::Sse(state) => finish_stream(state, wire, t_end, &mut ex),
        Reader::Whole(buf) => finish_whole(&buf, status, wire, t_end, &mut ex),
    };
    if let Some(stop) = stop {
        return end(ex, clock, stop);
    }
    let outcome = if ex.chunks.is_empty() {
        Outcome::Empty
    } else {
        Outcome::Ok
    };
    let msg = (outcome == Outcome::Empty).then(|| "the response carried no content".to_owned());
    end(ex, clock, Stop::new(outcome, msg))
}

/// A response plateau cannot read as the answer it asked for, in words: a redirect (never
/// followed: the endpoint's URL is what is measured) with where it points, or a body
/// compressed although plateau sent no `Accept-Encoding`.
fn unasked(status: http::StatusCode, headers: &http::HeaderMap, asked: &http::Uri) -> Option<Stop> {
    if status.is_redirection() {
        let location = headers
            .get(LOCATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("(no Location header)");
        return Some(Stop::new(
            Outcome::HttpStatus {
                status: status.as_u16(),
            },
            Some(format!(
                "HTTP {} {} to {location}: plateau does not follow redirects; point the \
                 endpoint at {}",
                status.as_u16(),
                status.canonical_reason().unwrap_or(""),
                redirect_base(location, asked.path())
            )),
        ));
    }
    let encoding = headers
        .get(CONTENT_ENCODING)?
        .to_str()
        .unwrap_or("?")
        .trim();
    (!encoding.eq_ignore_ascii_case("identity")).then(|| {
        Stop::new(
            Outcome::Decode,
            Some(format!(
                "the server sent Content-Encoding: {encoding} although plateau did not ask \
                 for it (it sends no Accept-Encoding): turn compression off on the server, or \
                 on the proxy in front of it, for this API"
            )),
        )
    })
}

/// The base URL a redirect to `location` suggests for a request to `path`: the location
/// without the API's tail (`/chat/completions`, `/completions`) when it ends with it.
fn redirect_base(location: &str, path: &str) -> String {
    let tail = ["/chat/completions", "/completions"]
        .into_iter()
        .find(|t| path.ends_with(t));
    let bare = location.split(['?', '#']).next().unwrap_or(location);
    match tail.and_then(|t| bare.strip_suffix(t)) {
        Some(base) => base.to_owned(),
        None => format!("the URL {location} names (without the API's path)"),
    }
}

/// Ends an event stream at `t_end`: the failure it ends in, if any.
fn finish_stream(
    mut state: SseState,
    wire: &dyn Wire,
    t_end: u64,
    ex: &mut Exchange,
) -> Option<Stop> {
    state.finish(wire, t_end, ex);
    if let Some((outcome, msg)) = state.failure.take() {
        return Some(Stop::new(outcome, Some(msg)));
    }
    (!state.done && !state.finished)
        .then(|| Stop::new(Outcome::Stream, Some("stream ended before [DONE]".into())))
}

/// Decodes a whole body `buf` answered with `status` at `t_end`: the failure it is, if
/// any.
fn finish_whole(
    buf: &[u8],
    status: http::StatusCode,
    wire: &dyn Wire,
    t_end: u64,
    ex: &mut Exchange,
) -> Option<Stop> {
    if !status.is_success() {
        let msg = wire.error_message(buf);
        return Some(Stop::new(
            Outcome::HttpStatus {
                status: status.as_u16(),
            },
            Some(msg),
        ));
    }
    match wire.decode(buf, &mut ex.text) {
        Err(e) => Some(Stop::new(
            Outcome::Decode,
            Some(format!("response body: {e}")),
        )),
        Ok(d) if d.error.is_some() => Some(Stop::new(Outcome::ServerError, d.error)),
        Ok(d) => {
            ex.usage = d.usage.or(ex.usage);
            ex.timings = d.timings.or(ex.timings);
            if d.carries_output() {
                ex.record(t_end, 0, &d);
            }
            None
        }
    }
}

fn end(mut ex: Exchange, clock: &Clock, stop: Stop) -> Exchange {
    ex.t_end_us = clock.now_us();
    ex.outcome = stop.outcome;
    ex.error = stop.message;
    ex
}

#[cfg(test)]
mod tests;
