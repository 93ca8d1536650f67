//! OpenAI request bodies: decoding, the fields the simulator honours, and error bodies.

use serde::Deserialize;

use crate::prompt::Message;

/// Which completion endpoint a request came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Api {
    /// `POST /v1/chat/completions`.
    Chat,
    /// `POST /v1/completions`.
    Completions,
}

/// The prompt of a request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Prompt {
    /// Chat messages.
    Chat(Vec<Message>),
    /// A completions prompt string.
    Text(String),
    /// A completions prompt given as token ids.
    Tokens(Vec<u32>),
}

/// A decoded, checked completion request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CompletionRequest {
    /// Requested model (None: the default served model).
    pub model: Option<String>,
    /// The prompt.
    pub prompt: Prompt,
    /// `max_tokens` or `max_completion_tokens` (default 16).
    pub max_tokens: u32,
    /// `min_tokens` (default 0).
    pub min_tokens: u32,
    /// `stream` (default false).
    pub stream: bool,
    /// `stream_options.include_usage`: a final usage chunk.
    pub include_usage: bool,
    /// `stream_options.continuous_usage_stats` (vLLM): usage on every chunk.
    pub continuous_usage: bool,
    /// `ignore_eos` (default false): generate exactly `max_tokens`.
    pub ignore_eos: bool,
}

/// Default `max_tokens` when the request sets none.
pub(crate) const DEFAULT_MAX_TOKENS: u32 = 16;

#[derive(Deserialize)]
struct Raw {
    model: Option<String>,
    messages: Option<Vec<RawMessage>>,
    prompt: Option<RawPrompt>,
    max_tokens: Option<u32>,
    max_completion_tokens: Option<u32>,
    stream: Option<bool>,
    stream_options: Option<StreamOptions>,
    ignore_eos: Option<bool>,
    min_tokens: Option<u32>,
}

#[derive(Deserialize)]
struct StreamOptions {
    include_usage: Option<bool>,
    continuous_usage_stats: Option<bool>,
}

#[derive(Deserialize)]
struct RawMessage {
    role: String,
    content: Option<Content>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Content {
    Text(String),
    Parts(Vec<Part>),
}

#[derive(Deserialize)]
struct Part {
    text: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawPrompt {
    Text(String),
    Tokens(Vec<u32>),
}

/// Decodes a request body for `api`; the error message names the offending field.
pub(crate) fn parse(api: Api, body: &[u8]) -> Result<CompletionRequest, String> {
    let de = &mut serde_json::Deserializer::from_slice(body);
    let raw: Raw = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        if e.inner().is_data() && path != "." {
            format!("invalid field `{path}`: {}", e.inner())
        } else {
            format!("invalid JSON body: {}", e.inner())
        }
    })?;
    let prompt = match api {
        Api::Chat => {
            let messages = raw.messages.ok_or("missing field `messages`")?;
            Prompt::Chat(messages.into_iter().map(message).collect())
        }
        Api::Completions => match raw.prompt.ok_or("missing field `prompt`")? {
            RawPrompt::Text(text) => Prompt::Text(text),
            RawPrompt::Tokens(ids) => Prompt::Tokens(ids),
        },
    };
    let max_tokens = raw
        .max_tokens
        .or(raw.max_completion_tokens)
        .unwrap_or(DEFAULT_MAX_TOKENS);
    if max_tokens == 0 {
        return Err("invalid field `max_tokens`: must be at least 1".to_owned());
    }
    let min_tokens = raw.min_tokens.unwrap_or(0);
    if min_tokens > max_tokens {
        return Err(format!(
            "invalid field `min_tokens`: {min_tokens} is greater than max_tokens {max_tokens}"
        ));
    }
    let options = raw.stream_options;
    let option = |f: fn(&StreamOptions) -> Option<bool>| options.as_ref().and_then(f) == Some(true);
    Ok(CompletionRequest {
        model: raw.model,
        prompt,
        max_tokens,
        min_tokens,
        stream: raw.stream.unwrap_or(false),
        include_usage: option(|o| o.include_usage),
        continuous_usage: option(|o| o.continuous_usage_stats),
        ignore_eos: raw.ignore_eos.unwrap_or(false),
    })
}

#[derive(Deserialize)]
struct RawTokenize {
    prompt: Option<String>,
    messages: Option<Vec<RawMessage>>,
}

/// Decodes a `/tokenize` body (vLLM's shape): `{"prompt": "..."}` or `{"messages": [...]}`.
pub(crate) fn parse_tokenize(body: &[u8]) -> Result<Prompt, String> {
    let raw: RawTokenize =
        serde_json::from_slice(body).map_err(|e| format!("invalid JSON body: {e}"))?;
    match (raw.prompt, raw.messages) {
        (Some(text), None) => Ok(Prompt::Text(text)),
        (None, Some(messages)) => Ok(Prompt::Chat(messages.into_iter().map(message).collect())),
        _ => Err("expected exactly one of `prompt` and `messages`".to_owned()),
    }
}

fn message(raw: RawMessage) -> Message {
    let content = match raw.content {
        None => String::new(),
        Some(Content::Text(text)) => text,
        Some(Content::Parts(parts)) => parts.into_iter().filter_map(|p| p.text).collect(),
    };
    Message {
        role: raw.role,
        content,
    }
}

/// An OpenAI-style error body: `{"error": {"message", "type", "param", "code"}}`.
pub(crate) fn error_body(message: &str, kind: &str, code: u16) -> String {
    serde_json::json!({
        "error": {"message": message, "type": kind, "param": null, "code": code}
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_defaults() {
        let req = parse(
            Api::Chat,
            br#"{"model": "m", "messages": [{"role": "user", "content": "hi"}]}"#,
        )
        .unwrap();
        assert_eq!(req.model.as_deref(), Some("m"));
        assert_eq!(req.max_tokens, 16);
        assert!(!req.stream && !req.include_usage && !req.continuous_usage && !req.ignore_eos);
        let Prompt::Chat(messages) = req.prompt else {
            panic!()
        };
        assert_eq!(messages[0].content, "hi");
    }

    #[test]
    fn honoured_fields_and_ignored_unknown_ones() {
        let body = br#"{"prompt": [1, 2, 3], "max_completion_tokens": 7, "stream": true,
            "stream_options": {"include_usage": true, "continuous_usage_stats": true},
            "ignore_eos": true, "min_tokens": 2, "temperature": 0.5, "top_p": null}"#;
        let req = parse(Api::Completions, body).unwrap();
        assert_eq!(req.prompt, Prompt::Tokens(vec![1, 2, 3]));
        assert_eq!((req.max_tokens, req.min_tokens), (7, 2));
        assert!(req.stream && req.include_usage && req.continuous_usage && req.ignore_eos);
        assert_eq!(req.model, None);
    }

    #[test]
    fn content_parts_and_null_content() {
        let body = br#"{"messages": [{"role": "user", "content": [{"type": "text", "text": "a"},
            {"type": "text", "text": "b"}]}, {"role": "assistant", "content": null}]}"#;
        let Prompt::Chat(m) = parse(Api::Chat, body).unwrap().prompt else {
            panic!()
        };
        assert_eq!((m[0].content.as_str(), m[1].content.as_str()), ("ab", ""));
    }

    #[test]
    fn errors_name_the_field() {
        let cases: [(Api, &[u8], &str); 7] = [
            (Api::Chat, b"{not json", "invalid JSON body"),
            (Api::Chat, br#"{"model": "m"}"#, "`messages`"),
            (Api::Completions, br#"{"messages": []}"#, "`prompt`"),
            (
                Api::Chat,
                br#"{"messages": [], "max_tokens": "x"}"#,
                "`max_tokens`",
            ),
            (Api::Chat, br#"{"messages": [{"content": "x"}]}"#, "`role`"),
            (
                Api::Chat,
                br#"{"messages": [], "max_tokens": 0}"#,
                "`max_tokens`",
            ),
            (
                Api::Chat,
                br#"{"messages": [], "max_tokens": 2, "min_tokens": 3}"#,
                "`min_tokens`",
            ),
        ];
        for (api, body, field) in cases {
            let err = parse(api, body).unwrap_err();
            assert!(
                err.contains(field),
                "{}: {err}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn error_body_shape() {
        let v: serde_json::Value =
            serde_json::from_str(&error_body("bad", "BadRequestError", 400)).unwrap();
        assert_eq!(v["error"]["message"], "bad");
        assert_eq!(v["error"]["type"], "BadRequestError");
        assert_eq!(v["error"]["code"], 400);
    }
}
