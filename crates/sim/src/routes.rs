//! HTTP routing: `/v1/*` completions, `/v1/models`, `/version` and `/tokenize` (vLLM's
//! shape), `/health`, `/metrics`; anything else a JSON error.

use std::convert::Infallible;
use std::sync::Arc;

use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use hyper::body::Incoming;
use tokio::time::Instant;

use crate::body::SimBody;
use crate::openai::Api;
use crate::reply::{error, json};
use crate::state::{DEFAULT_MODEL, State};
use crate::{completion, unix_now};

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
