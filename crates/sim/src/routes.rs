//! HTTP routing: `/v1/*` completions, `/v1/models`, `/version` and `/tokenize` (vLLM's
//! shape), `/health`, `/metrics`, JSON errors.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use hyper::body::Incoming;
use tokio::time::Instant;

use crate::body::SimBody;
use crate::config::SimConfig;
use crate::engine::EngineHandle;
use crate::metrics::Metrics;
use crate::openai::{Api, error_body};
use crate::{completion, unix_now};

/// The model `/v1/models` lists when `served_models` is empty.
pub(crate) const DEFAULT_MODEL: &str = "plateau-sim";

/// What every request handler shares.
#[derive(Debug)]
pub(crate) struct State {
    /// The configuration the server was started with.
    pub config: SimConfig,
    /// Server counters.
    pub metrics: Arc<Metrics>,
    /// The engine (realistic profile only).
    pub engine: Option<EngineHandle>,
    /// Index of the next completion request (the stream of its RNG).
    pub next_request: AtomicU64,
}

impl State {
    /// The model used when a request names none, and the `/metrics` label.
    pub(crate) fn default_model(&self) -> &str {
        self.config
            .served_models
            .first()
            .map_or(DEFAULT_MODEL, String::as_str)
    }
}

/// Answers one request; never fails (errors are responses).
pub(crate) async fn route(
    state: Arc<State>,
    req: Request<Incoming>,
) -> Result<Response<SimBody>, Infallible> {
    let arrival = Instant::now();
    let path = req.uri().path();
    let response = match (req.method(), path) {
        (&Method::POST, "/v1/chat/completions") => {
            completion::handle(&state, Api::Chat, req, arrival).await
        }
        (&Method::POST, "/v1/completions") => {
            completion::handle(&state, Api::Completions, req, arrival).await
        }
        (&Method::POST, "/tokenize") => crate::tokenize::handle(req).await,
        (&Method::GET, "/v1/models") => models(&state),
        (&Method::GET, "/version") => json(
            StatusCode::OK,
            serde_json::json!({"version": env!("CARGO_PKG_VERSION")}).to_string(),
        ),
        (&Method::GET, "/health") => Response::new(SimBody::full("")),
        (&Method::GET, "/metrics") => {
            let mut r = Response::new(SimBody::full(state.metrics.render(state.default_model())));
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
            );
            r
        }
        (
            _,
            "/v1/chat/completions"
            | "/v1/completions"
            | "/v1/models"
            | "/version"
            | "/tokenize"
            | "/health"
            | "/metrics",
        ) => error(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed"),
        _ => error(StatusCode::NOT_FOUND, &format!("no route for {path}")),
    };
    Ok(response)
}

fn models(state: &State) -> Response<SimBody> {
    let created = unix_now();
    let names: Vec<&str> = if state.config.served_models.is_empty() {
        vec![DEFAULT_MODEL]
    } else {
        state
            .config
            .served_models
            .iter()
            .map(String::as_str)
            .collect()
    };
    let data: Vec<serde_json::Value> = names
        .into_iter()
        .map(|id| {
            let mut m = serde_json::json!({"id": id, "object": "model", "created": created,
                "owned_by": "plateau", "root": id, "parent": null});
            if let Some(len) = state.config.max_model_len {
                m["max_model_len"] = len.into();
            }
            m
        })
        .collect();
    json(
        StatusCode::OK,
        serde_json::json!({"object": "list", "data": data}).to_string(),
    )
}

/// A JSON response.
pub(crate) fn json(status: StatusCode, body: impl Into<bytes::Bytes>) -> Response<SimBody> {
    let mut r = Response::new(SimBody::full(body));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// An OpenAI-style error response; the type follows the status like vLLM's.
pub(crate) fn error(status: StatusCode, message: &str) -> Response<SimBody> {
    let kind = match status {
        StatusCode::BAD_REQUEST => "BadRequestError",
        StatusCode::NOT_FOUND => "NotFoundError",
        StatusCode::METHOD_NOT_ALLOWED => "MethodNotAllowed",
        StatusCode::TOO_MANY_REQUESTS => "RateLimitError",
        _ => "InternalServerError",
    };
    json(status, error_body(message, kind, status.as_u16()))
}
