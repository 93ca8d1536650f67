//! The OpenAI wire format ([`OpenAi`]): paths, request bodies for chat and completions
//! (with engine extras and `extra_body`), bearer auth, decoding of stream chunks, whole
//! responses and error bodies, and the `[DONE]` end of stream. Pure: no I/O, no clock.

use std::borrow::Cow;

use http::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{Decoded, Text, Timings, Usage, Wire};
use crate::plan::{Endpoint, RequestOptions};
use crate::sse;
use crate::workload::{Prompt, Role};
use plateau_model::config::{Api, Engine};

/// OpenAI's HTTP API, as vLLM, SGLang, NIM, TGI, llama.cpp and hosted providers serve it.
#[derive(Clone, Copy, Debug, Default)]
pub struct OpenAi;

impl Wire for OpenAi {
    fn path(&self, api: Api) -> &'static str {
        path(api)
    }

    fn body(
        &self,
        endpoint: &Endpoint,
        model: &str,
        prompt: &Prompt,
        opts: &RequestOptions,
    ) -> Vec<u8> {
        request_body(endpoint, model, prompt, opts)
    }

    fn auth_headers(&self, endpoint: &Endpoint) -> HeaderMap {
        auth_headers(endpoint)
    }

    fn decode(&self, data: &[u8], text: &mut Text) -> Result<Decoded, serde_json::Error> {
        decode(data, text)
    }

    fn is_end(&self, event: &sse::Event) -> bool {
        // A chunk opens with `{`: looked at first, it is never scanned from the end.
        let data = event.data.trim_start();
        data.starts_with("[DONE]") && data.trim_end() == "[DONE]"
    }

    fn error_message(&self, body: &[u8]) -> String {
        error_message(body)
    }
}

/// The endpoint's extra headers and bearer token, values marked sensitive where secret;
/// an Authorization header among the extras replaces the bearer token.
pub fn auth_headers(endpoint: &Endpoint) -> HeaderMap {
    let mut h = HeaderMap::new();
    let named = endpoint.headers.iter().any(|(n, _)| n == AUTHORIZATION);
    if let Some(key) = &endpoint.api_key
        && !named
        && let Ok(mut v) = HeaderValue::from_str(&format!("Bearer {}", key.expose()))
    {
        v.set_sensitive(true);
        h.insert(AUTHORIZATION, v);
    }
    for (name, value) in &endpoint.headers {
        h.append(name.clone(), value.clone());
    }
    h
}

/// The path under the endpoint's base URL for `api`.
pub fn path(api: Api) -> &'static str {
    match api {
        Api::Chat => "chat/completions",
        Api::Completions => "completions",
    }
}

/// The JSON body of one request.
pub fn request_body(
    endpoint: &Endpoint,
    model: &str,
    prompt: &Prompt,
    opts: &RequestOptions,
) -> Vec<u8> {
    let mut body = Map::new();
    body.insert("model".into(), model.into());
    match endpoint.api {
        Api::Chat => {
            let messages: Vec<Value> = prompt.messages.iter().map(chat_message).collect();
            body.insert("messages".into(), messages.into());
            if let Some(tools) = &prompt.tools {
                body.insert("tools".into(), tools.as_ref().clone());
            }
        }
        Api::Completions => {
            body.insert("prompt".into(), completion_prompt(prompt).into());
        }
    }
    body.insert("max_tokens".into(), opts.max_tokens_for(prompt).into());
    body.insert("stream".into(), opts.stream.into());
    if opts.stream {
        let mut so = Map::new();
        so.insert("include_usage".into(), true.into());
        if endpoint.engine.supports_continuous_usage() {
            so.insert("continuous_usage_stats".into(), true.into());
        }
        body.insert("stream_options".into(), so.into());
    }
    if endpoint.ignore_eos {
        body.insert("ignore_eos".into(), true.into());
        if endpoint.engine == Engine::Vllm {
            body.insert("min_tokens".into(), opts.max_tokens_for(prompt).into());
        }
    }
    for (k, v) in &endpoint.extra_body {
        body.insert(k.clone(), v.clone());
    }
    serde_json::to_vec(&Value::Object(body)).unwrap_or_default()
}

/// One chat message on the wire: role and content, an assistant's `tool_calls` (OpenAI's
/// `{id, type: "function", function: {name, arguments}}`) and a tool result's
/// `tool_call_id`.
fn chat_message(m: &crate::workload::Message) -> Value {
    let mut out = json!({"role": m.role.as_str(), "content": m.content});
    if !m.tool_calls.is_empty() {
        let calls: Vec<Value> = m
            .tool_calls
            .iter()
            .map(|c| {
                json!({"id": c.id, "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments}})
            })
            .collect();
        out["tool_calls"] = calls.into();
    }
    if let Some(id) = &m.tool_call_id {
        out["tool_call_id"] = id.as_str().into();
    }
    out
}

/// Renders messages as one completions prompt: a lone user message as is; a system prompt
/// as a prefix; a dialog as `User:`/`Assistant:` turns ending with `Assistant:`.
pub fn completion_prompt(prompt: &Prompt) -> String {
    let (system, rest): (Vec<_>, Vec<_>) =
        prompt.messages.iter().partition(|m| m.role == Role::System);
    let mut out = String::new();
    for s in system {
        out.push_str(&s.content);
        out.push_str("\n\n");
    }
    match rest.as_slice() {
        [only] if only.role == Role::User => out.push_str(&only.content),
        turns => {
            for m in turns {
                out.push_str(match m.role {
                    Role::User => "User: ",
                    Role::Tool => "Tool: ",
                    Role::System | Role::Assistant => "Assistant: ",
                });
                out.push_str(&m.content);
                out.push('\n');
            }
            out.push_str("Assistant:");
        }
    }
    out
}

#[derive(Deserialize)]
struct WireChunk<'a> {
    #[serde(default, borrow)]
    choices: Vec<WireChoice<'a>>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default, borrow)]
    object: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    message: Option<Cow<'a, str>>,
    /// llama.cpp's; read apart so that a `timings` of another shape drops only itself.
    #[serde(default)]
    timings: Option<Value>,
}

#[derive(Deserialize)]
struct WireChoice<'a> {
    #[serde(default, borrow)]
    delta: Option<WireText<'a>>,
    #[serde(default, borrow)]
    message: Option<WireText<'a>>,
    #[serde(default, borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct WireText<'a> {
    #[serde(default, borrow)]
    content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    reasoning_content: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    reasoning: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    tool_calls: Option<Vec<WireToolCall<'a>>>,
}

#[derive(Deserialize)]
struct WireToolCall<'a> {
    #[serde(default)]
    index: Option<usize>,
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    function: Option<WireFunction<'a>>,
}

#[derive(Deserialize)]
struct WireFunction<'a> {
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    arguments: Option<Cow<'a, str>>,
}

/// Decodes one stream event's data (or a whole non-streaming body), appending what it
/// generated to `text`: answer (`content`, `text`), reasoning (`reasoning_content`,
/// `reasoning`) and tool-call names and arguments all count as output.
pub fn decode(data: &[u8], text: &mut Text) -> Result<Decoded, serde_json::Error> {
    let chunk: WireChunk<'_> = serde_json::from_slice(data)?;
    let mut d = Decoded {
        usage: chunk.usage,
        timings: chunk
            .timings
            .and_then(|t| serde_json::from_value::<Timings>(t).ok()),
        ..Decoded::default()
    };
    let before = text.all.len();
    for choice in &chunk.choices {
        for part in [&choice.delta, &choice.message].into_iter().flatten() {
            for piece in [&part.reasoning_content, &part.reasoning]
                .into_iter()
                .flatten()
            {
                text.reasoning.push_str(piece);
                text.all.push_str(piece);
                d.reasoning_len += piece.len();
            }
            if let Some(piece) = &part.content {
                text.answer.push_str(piece);
                text.all.push_str(piece);
                d.answer_len += piece.len();
            }
            for (position, call) in part.tool_calls.iter().flatten().enumerate() {
                d.tool_call = true;
                join_call(&mut text.tool_calls, call.index.unwrap_or(position), call);
                let f = call.function.as_ref();
                for piece in f
                    .into_iter()
                    .flat_map(|f| [&f.name, &f.arguments])
                    .flatten()
                {
                    text.all.push_str(piece);
                }
            }
        }
        if let Some(piece) = &choice.text {
            text.answer.push_str(piece);
            text.all.push_str(piece);
            d.answer_len += piece.len();
        }
        d.finished |= choice.finish_reason.is_some();
    }
    d.content_len = text.all.len() - before;
    d.error = match (&chunk.error, chunk.object.as_deref()) {
        (Some(e), _) => Some(error_text(e)),
        (None, Some("error")) => Some(chunk.message.as_deref().unwrap_or("error").to_owned()),
        _ => None,
    };
    Ok(d)
}

/// The most tool calls of one reply kept (a delta with a higher index is dropped).
const MAX_TOOL_CALLS: usize = 64;

/// Adds a tool-call delta to call `index` of `calls`: its id and name when given, its
/// arguments appended (a stream sends them in pieces; a whole body in one).
fn join_call(calls: &mut Vec<crate::workload::ToolCall>, index: usize, delta: &WireToolCall<'_>) {
    // A server numbers its calls from 0; a wild index is not a reason to allocate.
    if index >= MAX_TOOL_CALLS {
        return;
    }
    if calls.len() <= index {
        calls.resize_with(index + 1, Default::default);
    }
    let Some(call) = calls.get_mut(index) else {
        return;
    };
    if let Some(id) = &delta.id {
        call.id = id.to_string();
    }
    if let Some(f) = &delta.function {
        if let Some(name) = &f.name {
            call.name.push_str(name);
        }
        if let Some(arguments) = &f.arguments {
            call.arguments.push_str(arguments);
        }
    }
}

fn error_text(e: &Value) -> String {
    match e {
        Value::String(s) => s.clone(),
        Value::Object(o) => o
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| e.to_string()),
        other => other.to_string(),
    }
}

/// A readable message from an error response body: the JSON error's message, else the text.
pub fn error_message(body: &[u8]) -> String {
    let mut sink = Text::default();
    if let Ok(Decoded {
        error: Some(msg), ..
    }) = decode(body, &mut sink)
    {
        return truncate(&msg, 500);
    }
    truncate(String::from_utf8_lossy(body).trim(), 500)
}

fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests;
