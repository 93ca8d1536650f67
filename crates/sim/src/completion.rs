//! One completion request: decode, count prompt tokens, draw output length and fault, then
//! stream or wait for the tokens of the configured timing model.

use std::future::pending;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use http::{HeaderValue, Request, Response, StatusCode, header};
use http_body_util::{BodyExt as _, Limited};
use hyper::body::Incoming;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokio::time::Instant;

use crate::body::{SimBody, StreamParts, TokenStream};
use crate::config::Profile;
use crate::faults::Fault;
use crate::metrics::RunningGuard;
use crate::openai::{self, Api, CompletionRequest, Prompt};
use crate::otlp::{Exporter, Pending};
use crate::prefix_cache::block_hashes;
use crate::prompt::{bpe, render_chat, render_text};
use crate::reply::{MAX_BODY_BYTES, error, json};
use crate::source::Source;
use crate::sse::{Shape, Writer};
use crate::state::State;
use crate::unix_now;

/// Output length: `max_tokens` with `ignore_eos`, else a simulated EOS uniform in
/// [max(min_tokens, 1), max_tokens]. Returns (length, ended on EOS).
pub(crate) fn output_len(req: &CompletionRequest, rng: &mut impl Rng) -> (u32, bool) {
    if req.ignore_eos {
        return (req.max_tokens, false);
    }
    let n = rng.random_range(req.min_tokens.clamp(1, req.max_tokens)..=req.max_tokens);
    (n, n < req.max_tokens)
}

/// Serves `POST /v1/chat/completions` or `/v1/completions`; `arrival` starts the clock.
pub(crate) async fn handle(
    state: &Arc<State>,
    api: Api,
    req: Request<Incoming>,
    arrival: Instant,
) -> Response<SimBody> {
    let traced = state.exporter.as_ref().map(|_| req.headers().clone());
    let request = match parse(api, req).await {
        Ok(request) => request,
        Err(message) => return error(StatusCode::BAD_REQUEST, &message),
    };
    let model = match model(state, &request) {
        Ok(model) => model,
        Err(message) => return error(StatusCode::NOT_FOUND, &message),
    };
    let config = &state.config;
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    rng.set_stream(state.next_request.fetch_add(1, Relaxed));
    let ids = match &request.prompt {
        Prompt::Chat(messages) => render_chat(bpe(), messages),
        Prompt::Text(text) => render_text(bpe(), text),
        Prompt::Tokens(ids) => ids.clone(),
    };
    let prompt_len = u32::try_from(ids.len()).unwrap_or(u32::MAX);
    let (total, stopped) = output_len(&request, &mut rng);
    let fault = Fault::draw(&config.faults, &mut rng, total);
    if let Some(response) = refusal(fault) {
        return response;
    }
    state
        .metrics
        .prompt_tokens
        .fetch_add(u64::from(prompt_len), Relaxed);
    let (source, running) = token_source(state, fault, arrival, &ids, total);
    let span = traced
        .zip(state.exporter.clone())
        .map(|(headers, exporter)| {
            let queue = (config.profile == Profile::Fixed)
                .then(|| Duration::from_secs_f64(config.fixed.queue_ms / 1000.0));
            let pending = Pending::new(&headers, api, arrival, queue, prompt_len, &mut rng);
            (pending, exporter)
        });
    let usage = (request.include_usage, request.continuous_usage);
    let shape = Shape::new(api, &config.wire);
    let writer = Writer::new(api, &model, prompt_len, usage, shape, unix_now(), rng);

    if request.stream {
        let keepalive =
            (config.keepalive_ms > 0).then(|| Duration::from_millis(config.keepalive_ms));
        let stream = TokenStream::new(StreamParts {
            source,
            writer,
            total,
            stopped,
            per_chunk: config.tokens_per_chunk,
            grouping: config.wire.grouping(),
            fault,
            keepalive,
            metrics: Arc::clone(&state.metrics),
            running,
            span,
        });
        let mut r = Response::new(SimBody::Stream(Box::new(stream)));
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/event-stream; charset=utf-8"),
        );
        return r;
    }
    let parts = Whole {
        source,
        writer,
        fault,
        total,
        stopped,
        _running: running,
        span,
    };
    whole(state, parts).await
}

/// The request's body, read (at most [`MAX_BODY_BYTES`]) and parsed; else why not (a 400).
async fn parse(api: Api, req: Request<Incoming>) -> Result<CompletionRequest, String> {
    let body = Limited::new(req.into_body(), MAX_BODY_BYTES)
        .collect()
        .await
        .map_err(|e| format!("cannot read body: {e}"))?
        .to_bytes();
    openai::parse(api, &body)
}

/// The model the request names, else the default; why not (a 404) when the server does
/// not serve it.
fn model(state: &State, request: &CompletionRequest) -> Result<String, String> {
    let served = &state.config.served_models;
    match &request.model {
        Some(m) if !served.is_empty() && !served.contains(m) => {
            Err(format!("The model `{m}` does not exist."))
        }
        Some(m) => Ok(m.clone()),
        None => Ok(state.default_model().to_owned()),
    }
}

/// The error response of a fault that refuses the request before any token.
fn refusal(fault: Fault) -> Option<Response<SimBody>> {
    match fault {
        Fault::Http500 => Some(error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "simulated server error",
        )),
        Fault::Http429 => {
            let mut r = error(StatusCode::TOO_MANY_REQUESTS, "simulated rate limit");
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            Some(r)
        }
        _ => None,
    }
}

/// Where the request's tokens come from: nowhere (a stall), the engine (realistic
/// profile), or the fixed clock, which holds a running slot for the request's life.
fn token_source(
    state: &State,
    fault: Fault,
    arrival: Instant,
    ids: &[u32],
    total: u32,
) -> (Source, Option<RunningGuard>) {
    let config = &state.config;
    match (fault, config.profile, &state.engine) {
        (Fault::Stall, ..) => (Source::Never, None),
        (_, Profile::Realistic, Some(engine)) => {
            let hashes = if config.engine.prefix_caching {
                block_hashes(ids, config.engine.block_size as usize)
            } else {
                Vec::new()
            };
            let prompt_len = u32::try_from(ids.len()).unwrap_or(u32::MAX);
            (
                Source::engine(engine.submit(prompt_len, hashes, total)),
                None,
            )
        }
        _ => {
            let ms = |v: f64| Duration::from_secs_f64(v / 1000.0);
            let first = arrival + ms(config.fixed.ttft_ms);
            let guard = RunningGuard::new(&state.metrics);
            (Source::fixed(first, ms(config.fixed.itl_ms)), Some(guard))
        }
    }
}

/// What a non-streaming answer is made of.
struct Whole {
    source: Source,
    writer: Writer,
    fault: Fault,
    total: u32,
    stopped: bool,
    _running: Option<RunningGuard>,
    /// The request's span and where it goes (`otlp`).
    span: Option<(Pending, Exporter)>,
}

/// Non-streaming: wait for every token (or the fault), then send one JSON body.
async fn whole(state: &State, parts: Whole) -> Response<SimBody> {
    let Whole {
        mut source,
        writer,
        fault,
        total,
        stopped,
        span,
        ..
    } = parts;
    let target = match fault {
        Fault::Stall => pending().await, // until hyper drops us with the connection
        Fault::Disconnect { after } | Fault::ErrorEvent { after } => after,
        _ => total,
    };
    if !source.reach(target.min(1)).await {
        return error(StatusCode::INTERNAL_SERVER_ERROR, "engine stopped");
    }
    let first = Instant::now();
    if !source.reach(target).await {
        return error(StatusCode::INTERNAL_SERVER_ERROR, "engine stopped");
    }
    match fault {
        Fault::Disconnect { .. } => {
            let mut r = Response::new(SimBody::Abort);
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            r
        }
        Fault::ErrorEvent { .. } => {
            error(StatusCode::INTERNAL_SERVER_ERROR, "simulated engine error")
        }
        _ => {
            state
                .metrics
                .generation_tokens
                .fetch_add(u64::from(total), Relaxed);
            state.metrics.record_success(stopped);
            if let Some((p, exporter)) = span {
                exporter.send(p.finish(first, Instant::now(), total, stopped));
            }
            json(StatusCode::OK, writer.full_body(total, stopped))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(max_tokens: u32, min_tokens: u32, ignore_eos: bool) -> CompletionRequest {
        CompletionRequest {
            model: None,
            prompt: Prompt::Text(String::new()),
            max_tokens,
            min_tokens,
            stream: false,
            include_usage: false,
            continuous_usage: false,
            ignore_eos,
        }
    }

    #[test]
    fn output_length_rules() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(output_len(&req(50, 0, true), &mut rng), (50, false));
        assert_eq!(output_len(&req(1, 0, false), &mut rng), (1, false));
        assert_eq!(output_len(&req(9, 9, false), &mut rng), (9, false));
        let mut seen_stop = false;
        for _ in 0..200 {
            let (n, stopped) = output_len(&req(10, 4, false), &mut rng);
            assert!((4..=10).contains(&n));
            assert_eq!(stopped, n < 10);
            seen_stop |= stopped;
        }
        assert!(seen_stop);
    }
}
