//! The seam between the runner and the scenarios: a [`Workload`] hands each slot a
//! [`Session`] that produces the next [`Prompt`] and hears the reply. The scenarios crate
//! implements it; [`FixedPrompt`] is the one built-in workload (calibration and tests).
//! A trace replayed on its own clock is also a [`Replay`]: the open loop then sends arrival
//! `k` at the trace's instant `k` with its prompt (or starts session `k` there, when the
//! trace names sessions), instead of drawing arrivals.
//! A session workload tags each prompt with its [`Turn`] and, after each reply, tells the
//! slot what comes next ([`After`]: think, or start a new session). An agent session may
//! also spawn sub-agents after a turn ([`Session::children`]): the slot runs them at once,
//! each to its end, and sends the parent's next turn after the last one ends (join).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use plateau_model::results::workload::WorkloadInfo;

use crate::plan::{Cell, Plan};

/// Who speaks a chat message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// System prompt.
    System,
    /// The user.
    User,
    /// The model.
    Assistant,
    /// A tool's result, answering the assistant's call `tool_call_id`.
    Tool,
}

impl Role {
    /// The OpenAI wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// One chat message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Message {
    /// Speaker.
    pub role: Role,
    /// Text.
    pub content: String,
    /// The tools an assistant message calls (OpenAI `tool_calls`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The call a `tool` message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

/// One function call of an assistant message.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    /// The call's id, which the `tool` message with its result names.
    pub id: String,
    /// The function called.
    pub name: String,
    /// Its arguments, a JSON object as text (as the API carries them).
    pub arguments: String,
}

impl Message {
    /// A message from `role` saying `content`.
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Message {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }
}

/// What one request asks. The client renders it for the chat or completions API.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prompt {
    /// The conversation so far, oldest first; the last message is the user's.
    pub messages: Vec<Message>,
    /// The intended prompt length in tokens of the client tokenizer, if the workload has one.
    pub target_tokens: Option<u32>,
    /// Turn index within a conversation (multi-turn workloads), from 0.
    pub turn: Option<u32>,
    /// This request's `max_tokens`; `None` takes the plan's
    /// ([`crate::plan::RequestOptions::max_tokens_for`]).
    pub max_tokens: Option<u32>,
    /// The length in tokens of the dataset's reply to this prompt, where the dataset has
    /// one (output lengths `{"dist": "dataset"}` are drawn from it).
    pub reply_tokens: Option<u32>,
    /// The session this prompt is a turn of (session workloads).
    pub session: Option<Turn>,
    /// Tool definitions sent as the chat request's `tools` (a JSON array; agent workloads).
    pub tools: Option<std::sync::Arc<serde_json::Value>>,
}

/// Where a prompt sits in its session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turn {
    /// The session's id, unique within the cell (`<slot>-<n>`: the slot's n-th session).
    pub id: String,
    /// Tokens (client tokenizer) of the history before this turn's new user text: what an
    /// ideal prefix cache could reuse.
    pub prior_tokens: u32,
}

/// What a session does after a turn's reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum After {
    /// Send the next prompt at once (a workload without sessions).
    Now,
    /// The session goes on: its user thinks this long before the next turn.
    Think(std::time::Duration),
    /// The session ended with this turn; the next prompt starts a new one.
    End,
}

/// Builds the workload of each cell (the scenarios crate's catalog implements this).
pub trait WorkloadFactory: Send + Sync {
    /// The workload for `cell` of `plan`, seeded so the same plan gives the same prompts;
    /// an error says what is wrong (unknown scenario, unreadable dataset, ...).
    fn workload(&self, plan: &Plan, cell: &Cell) -> Result<std::sync::Arc<dyn Workload>, String>;
}

/// Produces prompts for the slots of one cell. Built fresh for every cell.
pub trait Workload: Send + Sync {
    /// Id, name and provenance.
    fn info(&self) -> WorkloadInfo;

    /// The prompt source for slot `slot`. Called once per slot when the slot starts.
    fn session(&self, slot: u32) -> Box<dyn Session>;

    /// The trace this workload replays on its own clock in the open loop, if it is one.
    fn replay(&self) -> Option<std::sync::Arc<dyn Replay>> {
        None
    }
}

/// A timed trace replay: when each arrival is due and what it sends: one request, or, when
/// the trace's records name sessions, one whole session ([`Replay::session`]).
pub trait Replay: Send + Sync {
    /// Arrival instants since the cell's start, in order (never decreasing): each record's,
    /// or each session's start where the replay has sessions.
    fn instants(&self) -> std::sync::Arc<[std::time::Duration]>;

    /// The prompt of arrival `k` (an index into [`Replay::instants`]) of a replay without
    /// sessions.
    fn prompt(&self, k: usize) -> Prompt;

    /// The session arrival `k` starts, where the replay has sessions: its first turn goes
    /// out at the arrival, each later one after the previous reply and its think time
    /// ([`Session::after`]), until [`After::End`]. `None`: arrival `k` is one request.
    fn session(&self, _k: usize) -> Option<Box<dyn Session>> {
        None
    }
}

/// One slot's stream of prompts.
///
/// `next` runs between one request's end and the next one's send, so it must be cheap
/// (microseconds): do tokenizing and dataset reading when the workload is built.
pub trait Session: Send {
    /// The next request to send.
    fn next(&mut self) -> Prompt;

    /// The reply to the prompt last returned by `next`: the response text when the request
    /// succeeded, `None` when it failed. Multi-turn workloads grow their history from it.
    fn reply(&mut self, _text: Option<&str>) {}

    /// The tool calls the server made in the reply to the prompt last returned by `next`:
    /// called before [`Session::reply`] when the request succeeded with any.
    fn tool_calls(&mut self, _calls: &[ToolCall]) {}

    /// What comes after the reply just heard: called once after each [`Session::reply`].
    fn after(&mut self) -> After {
        After::Now
    }

    /// The sub-agents the turn just answered spawns: called once after [`Session::after`].
    /// The closed-loop slot runs every child at once, each turn after turn until its
    /// [`After::End`], as requests of the same slot (so the slot has up to `1 + k` requests
    /// in flight meanwhile), and sends this session's next turn after the last child ends.
    /// The open loop of sessions runs them the same way, on the arrival's own task.
    fn children(&mut self) -> Vec<Box<dyn Session>> {
        Vec::new()
    }
}

/// The built-in workload: every request sends the same single user message.
///
/// As a [`WorkloadFactory`] it serves every scenario with the same prompt (calibration).
#[derive(Clone, Debug)]
pub struct FixedPrompt {
    text: String,
    target_tokens: Option<u32>,
}

impl FixedPrompt {
    /// A workload that always sends `text` as one user message.
    pub fn new(text: impl Into<String>, target_tokens: Option<u32>) -> Self {
        FixedPrompt {
            text: text.into(),
            target_tokens,
        }
    }
}

impl Workload for FixedPrompt {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            id: "fixed".into(),
            name: "Fixed prompt".into(),
            synthetic: true,
            source: "built-in".into(),
            notes: Vec::new(),
            output_tokens: None,
        }
    }

    fn session(&self, _slot: u32) -> Box<dyn Session> {
        Box::new(self.clone())
    }
}

impl Session for FixedPrompt {
    fn next(&mut self) -> Prompt {
        Prompt {
            messages: vec![Message::new(Role::User, self.text.clone())],
            target_tokens: self.target_tokens,
            ..Prompt::default()
        }
    }
}

impl WorkloadFactory for FixedPrompt {
    fn workload(&self, _plan: &Plan, _cell: &Cell) -> Result<std::sync::Arc<dyn Workload>, String> {
        Ok(std::sync::Arc::new(self.clone()))
    }
}
