//! A custom scenario's prompts: a JSONL file whose every line is `{"prompt": "text"}` (one
//! user message) or `{"messages": [{"role": "system"|"user"|"assistant", "content": "..."}]}`
//! (a chat, ending with the user's message).

use std::path::Path;

use plateau_core::workload::{Message, Role};
use serde::Deserialize;

use crate::error::ScenarioError;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    #[serde(default)]
    prompt: Option<String>,
    #[serde(default)]
    messages: Option<Vec<LineMessage>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LineMessage {
    role: Role,
    content: String,
}

const EXPECTED: &str = r#"{"prompt": "..."} or {"messages": [{"role": "user", "content": "..."}]}"#;

/// Reads the prompts of `path`, one message list per line, into `each(line, messages)`,
/// streaming: at most `max_line` bytes of a line are read (a longer line is the error
/// `too_long` gives), and no line is kept beyond what `each` keeps. An error names the
/// file and line.
pub fn stream(
    path: &Path,
    max_line: usize,
    too_long: impl Fn(usize) -> String,
    mut each: impl FnMut(usize, Vec<Message>) -> Result<(), ScenarioError>,
) -> Result<(), ScenarioError> {
    let mut any = false;
    super::read_jsonl_capped(path, EXPECTED, max_line, too_long, |n, line: Line| {
        let err = |m: &str| ScenarioError::data(path, Some(n), format!("{m}; expected {EXPECTED}"));
        let messages = match (line.prompt, line.messages) {
            (Some(p), None) => vec![Message::new(Role::User, p)],
            (None, Some(ms)) => ms
                .into_iter()
                .map(|m| Message::new(m.role, m.content))
                .collect(),
            (Some(_), Some(_)) => return Err(err("both `prompt` and `messages`")),
            (None, None) => return Err(err("neither `prompt` nor `messages`")),
        };
        match messages.last() {
            None => return Err(err("`messages` is empty")),
            Some(m) if m.role != Role::User => {
                return Err(err("the last message must be the user's"));
            }
            Some(m) if m.content.trim().is_empty() => return Err(err("the prompt is empty")),
            Some(_) => {}
        }
        any = true;
        each(n, messages)
    })?;
    if !any {
        return Err(ScenarioError::data(
            path,
            None,
            format!("no prompts; expected one per line: {EXPECTED}"),
        ));
    }
    Ok(())
}

/// Every prompt of `path` with its line (for tests and small files).
#[cfg(test)]
fn read(path: &Path) -> Result<Vec<Vec<Message>>, ScenarioError> {
    let mut out = Vec::new();
    stream(
        path,
        usize::MAX,
        |_| String::new(),
        |_, m| {
            out.push(m);
            Ok(())
        },
    )?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use plateau_testkit::plan::temp_dir;

    #[test]
    fn reads_both_forms_and_names_bad_lines() {
        let tmp = temp_dir("custom");
        let dir = tmp.path();
        let file = dir.join("p.jsonl");
        std::fs::write(&file, "{\"prompt\": \"hello\"}\n\n{\"messages\": [{\"role\": \"system\", \"content\": \"be brief\"}, {\"role\": \"user\", \"content\": \"hi\"}]}\n").unwrap();
        let p = read(&file).unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[1][0], Message::new(Role::System, "be brief"));
        for (text, expected) in [
            (
                "{\"prompt\": \"a\"}\n{\"prompt\": 3}\n",
                ":2: invalid type: integer `3`, expected a string",
            ),
            ("{\"promt\": \"a\"}\n", ":1: unknown field `promt`"),
            (
                "{\"messages\": [{\"role\": \"user\", \"content\": \"a\"}, {\"role\": \"assistant\", \"content\": \"b\"}]}\n",
                ":1: the last message must be the user's",
            ),
            (
                "{\"messages\": [{\"role\": \"robot\", \"content\": \"a\"}]}\n",
                ":1: unknown variant `robot`",
            ),
            ("not json\n", ":1: expected ident"),
            ("\n\n", ": no prompts"),
        ] {
            std::fs::write(&file, text).unwrap();
            let err = read(&file).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("{}{expected}", file.display())),
                "{err}"
            );
        }
    }
}
