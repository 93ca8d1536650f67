//! `POST /tokenize` in vLLM's shape: `{"prompt"}` or `{"messages"}` in, `{"count",
//! "tokens"}` out, counted exactly as a completion's `usage.prompt_tokens` (a chat with the
//! simulator's template, a prompt as it is). Special-token and generation-prompt flags are
//! accepted and ignored: the simulator has no BOS, and always primes the reply.

use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt as _, Limited};
use hyper::body::Incoming;

use crate::body::SimBody;
use crate::openai::{Prompt, parse_tokenize};
use crate::prompt::{bpe, render_chat, render_text};
use crate::reply::{MAX_BODY_BYTES, error, json};

/// Answers one `/tokenize` request.
pub(crate) async fn handle(req: Request<Incoming>) -> Response<SimBody> {
    let body = match Limited::new(req.into_body(), MAX_BODY_BYTES)
        .collect()
        .await
    {
        Ok(body) => body.to_bytes(),
        Err(e) => return error(StatusCode::BAD_REQUEST, &format!("cannot read body: {e}")),
    };
    let tokens = match parse_tokenize(&body) {
        Ok(Prompt::Chat(messages)) => render_chat(bpe(), &messages),
        Ok(Prompt::Text(text)) => render_text(bpe(), &text),
        Ok(Prompt::Tokens(ids)) => ids,
        Err(message) => return error(StatusCode::BAD_REQUEST, &message),
    };
    json(
        StatusCode::OK,
        serde_json::json!({"count": tokens.len(), "tokens": tokens}).to_string(),
    )
}
