//! E: agent sessions, synthetic. Every session starts from one long system prompt shared by
//! the whole cell, with the tool definitions sent as the request's `tools`; then a task of
//! its own. Each turn but the last ends in a tool call: the server's reply text is kept as
//! the assistant message (live), with the server's call attached when it made one, else the
//! turn's synthetic call; then a tool result of a seeded size is appended as a
//! `tool` message and the agent waits the think time (the tool's run) before the next turn.
//! One turn may fan out ([`AgentShape::fan_out`]): the call is `spawn_agent` k times, and k
//! child sessions start at once from the parent's prompt (the prefix the server just
//! cached) plus a sub-task of their own, each running `child_turns` turns; the slot runs them
//! beside the parent and sends the parent's next turn only when all have ended (join), with
//! each child's last reply as the result of its `spawn_agent` call.
//!
//! No public agent-trace dataset is reachable here, so the shape is parameters
//! ([`AgentShape`]), and the workload is marked synthetic.

mod session;

use std::sync::Arc;

use plateau_core::workload::{Message, Role, Session, Workload, WorkloadInfo};
use serde_json::{Value, json};

use crate::rng::stream_rng;
use crate::text::Corpus;
use crate::workload::think::ThinkTimes;

use session::AgentSession;

/// The shape of the agent sessions (all lengths in tokens of the run's tokenizer).
#[derive(Clone, Debug, PartialEq)]
pub struct AgentShape {
    /// The system prompt every session shares.
    pub system_tokens: u32,
    /// Each session's task (its first user message).
    pub task_tokens: u32,
    /// A parent session's turns (requests).
    pub turns: u32,
    /// Each tool result, drawn uniformly from this range (inclusive).
    pub tool_result_tokens: (u32, u32),
    /// Every turn's `max_tokens` (the text before the call).
    pub reply_tokens: u32,
    /// Sub-agents spawned by the fan-out turn (0: none).
    pub fan_out: u32,
    /// The parent turn (from 0) whose call spawns them; it must not be the last.
    pub fan_out_turn: u32,
    /// Each sub-agent's turns.
    pub child_turns: u32,
    /// A sub-agent's task.
    pub child_task_tokens: u32,
}

impl Default for AgentShape {
    /// The documented defaults of scenario E.
    fn default() -> AgentShape {
        AgentShape {
            system_tokens: 3000,
            task_tokens: 200,
            turns: 6,
            tool_result_tokens: (200, 2000),
            reply_tokens: 128,
            fan_out: 3,
            fan_out_turn: 1,
            child_turns: 3,
            child_task_tokens: 150,
        }
    }
}

/// The tools every agent request offers (OpenAI function definitions); calls cycle through
/// the first three, the fan-out turn calls the last.
pub const TOOLS: [&str; 4] = ["read_file", "search_code", "run_command", "spawn_agent"];

/// The `tools` array of every request.
fn tool_definitions() -> Value {
    let string = |what: &str| json!({"type": "string", "description": what});
    let tool = |name: &str, what: &str, arg: &str, arg_what: &str| {
        json!({"type": "function", "function": {"name": name, "description": what,
            "parameters": {"type": "object", "properties": {arg: string(arg_what)}, "required": [arg]}}})
    };
    json!([
        tool(
            "read_file",
            "Read a file of the repository.",
            "path",
            "Path from the repository root."
        ),
        tool(
            "search_code",
            "Search the repository for a regular expression.",
            "pattern",
            "The regular expression."
        ),
        tool(
            "run_command",
            "Run a shell command in the repository and return its output.",
            "command",
            "The command line."
        ),
        tool(
            "spawn_agent",
            "Start a sub-agent on a task; returns its final answer.",
            "task",
            "What the sub-agent must do."
        ),
    ])
}

/// What every session of a cell shares.
pub(crate) struct Common {
    pub(crate) corpus: Arc<Corpus>,
    pub(crate) shape: AgentShape,
    pub(crate) system: Message,
    pub(crate) system_tokens: u32,
    pub(crate) tools: Arc<Value>,
    pub(crate) think: ThinkTimes,
    pub(crate) seed: u64,
}

impl Common {
    /// About `tokens` tokens of built-in text chosen by `purpose` under the seed, and its
    /// length (windows of at most 512 tokens joined).
    pub(crate) fn text(&self, tokens: u32, purpose: &str) -> (String, u32) {
        let mut rng = stream_rng(self.seed, purpose);
        let (mut out, mut got) = (String::new(), 0);
        while got < tokens {
            let Some(w) = self.corpus.pick((tokens - got).min(512), &mut rng) else {
                break;
            };
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&self.corpus.text(w));
            got += self.corpus.tokens(w).max(1);
        }
        (out, got)
    }
}

/// Agent sessions (scenario E).
pub struct Agent {
    info: WorkloadInfo,
    common: Arc<Common>,
}

impl Agent {
    /// Agent sessions of `shape` cut from `corpus`, think times from `think`, seeded by
    /// `seed`. `info` gets the shape as notes and is marked synthetic.
    pub fn new(
        mut info: WorkloadInfo,
        corpus: Arc<Corpus>,
        shape: AgentShape,
        think: ThinkTimes,
        seed: u64,
    ) -> Agent {
        info.synthetic = true;
        info.notes.push(format!(
            "synthetic agent sessions (no public agent trace reachable): system prompt {} tokens shared by every session plus {} tool definitions sent as `tools`; task {} tokens; {} turns, each but the last ending in a tool call whose result ({}-{} tokens) is appended as a `tool` message; turn {} fans out to {} sub-agents of {} turns (task {} tokens) sharing the parent's prefix, joined before the parent's next turn; max_tokens {} per turn",
            shape.system_tokens,
            TOOLS.len(),
            shape.task_tokens,
            shape.turns,
            shape.tool_result_tokens.0,
            shape.tool_result_tokens.1,
            shape.fan_out_turn,
            shape.fan_out,
            shape.child_turns,
            shape.child_task_tokens,
            shape.reply_tokens,
        ));
        let mut common = Common {
            corpus,
            system: Message::new(Role::System, String::new()),
            system_tokens: 0,
            tools: Arc::new(tool_definitions()),
            think,
            seed,
            shape,
        };
        let (system, tokens) = common.text(common.shape.system_tokens, "agent system");
        common.system = Message::new(Role::System, system);
        common.system_tokens = tokens;
        Agent {
            info,
            common: Arc::new(common),
        }
    }
}

impl Workload for Agent {
    fn info(&self) -> WorkloadInfo {
        self.info.clone()
    }

    fn session(&self, slot: u32) -> Box<dyn Session> {
        Box::new(AgentSession::parent(self.common.clone(), slot))
    }
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("shape", &self.common.shape)
            .finish()
    }
}

/// The last replies of one fan-out's children, by child (`None`: none yet, or failed).
pub(crate) type Results = Arc<std::sync::Mutex<Vec<Option<String>>>>;
