//! One agent session's walk ([`AgentSession`]): a parent (the slot's sessions one after
//! another) or a sub-agent (one session from a given history), growing its history turn by
//! turn with the live reply, the turn's tool call and the tool's result.

use std::sync::Arc;

use plateau_core::tokens::TokenCounter;
use plateau_core::workload::{After, Message, Prompt, Role, Session, ToolCall, Turn};
use rand::Rng;
use serde_json::json;

use super::{Common, Results, TOOLS};
use crate::rng::stream_rng;

/// Where a session is.
struct Walk {
    id: String,
    history: Vec<Message>,
    /// Tokens of `history` (client tokenizer; tool calls and `tools` not counted).
    tokens: u32,
    /// Tokens of the next prompt an ideal prefix cache holds already.
    prior: u32,
    /// The turn last sent; `None` before the first.
    turn: Option<u32>,
    turns: u32,
    done: bool,
    /// A fan-out's calls waiting for their children's results.
    join: Option<(Vec<String>, Results)>,
}

/// A sub-agent's place in its parent's fan-out.
struct Child {
    results: Results,
    k: usize,
}

/// An agent session: a parent, or a child of a fan-out.
pub(crate) struct AgentSession {
    common: Arc<Common>,
    slot: u32,
    /// Sessions this parent started (a child: always 1).
    sessions: u64,
    walk: Option<Walk>,
    child: Option<Child>,
    /// Children spawned by the turn just answered, until the slot takes them.
    spawned: Vec<Box<dyn Session>>,
    /// Requests sent (think-time draws).
    index: u64,
    /// The call the server made in the reply just heard, if any.
    server_call: Option<ToolCall>,
}

impl AgentSession {
    /// Slot `slot`'s parent sessions.
    pub(crate) fn parent(common: Arc<Common>, slot: u32) -> AgentSession {
        AgentSession {
            common,
            slot,
            sessions: 0,
            walk: None,
            child: None,
            spawned: Vec::new(),
            index: 0,
            server_call: None,
        }
    }

    /// A new parent session's walk: the shared system prompt and a task of its own.
    fn start(&mut self) -> Walk {
        let id = format!("{}-{}", self.slot, self.sessions);
        self.sessions += 1;
        let c = &self.common;
        let (task, task_tokens) = c.text(c.shape.task_tokens, &format!("agent task {id}"));
        Walk {
            history: vec![c.system.clone(), Message::new(Role::User, task)],
            tokens: c.system_tokens + task_tokens,
            // The system prompt is every session's: an ideal cache holds it.
            prior: c.system_tokens,
            turn: None,
            turns: c.shape.turns.max(1),
            done: false,
            join: None,
            id,
        }
    }

    /// The children of `walk`'s fan-out turn, each from the prompt just sent plus a
    /// sub-task, and the calls that spawn them.
    fn fan_out(&self, walk: &Walk, turn: u32) -> (Vec<ToolCall>, Vec<Box<dyn Session>>, Results) {
        let c = &self.common;
        let k = c.shape.fan_out as usize;
        let results: Results = Arc::new(std::sync::Mutex::new(vec![None; k]));
        let (mut calls, mut children) = (Vec::new(), Vec::new());
        for j in 0..k {
            let id = format!("{}/{j}", walk.id);
            let (task, tokens) = c.text(c.shape.child_task_tokens, &format!("agent task {id}"));
            calls.push(ToolCall {
                id: format!("call-{}-{turn}-{j}", walk.id),
                name: TOOLS[3].to_owned(),
                arguments: json!({"task": format!("sub-task {j}")}).to_string(),
            });
            let mut history = walk.history.clone();
            history.push(Message::new(Role::User, task));
            let child = Walk {
                id,
                history,
                tokens: walk.tokens + tokens,
                prior: walk.tokens,
                turn: None,
                turns: c.shape.child_turns.max(1),
                done: false,
                join: None,
            };
            children.push(Box::new(AgentSession {
                common: c.clone(),
                slot: self.slot,
                sessions: 1,
                walk: Some(child),
                child: Some(Child {
                    results: results.clone(),
                    k: j,
                }),
                spawned: Vec::new(),
                index: 0,
                server_call: None,
            }) as Box<dyn Session>);
        }
        (calls, children, results)
    }

    /// Turn `turn`'s tool call (not a fan-out): the server's when it made one, else the
    /// turn's synthetic call; and its result's text and length (seeded, whichever call).
    fn tool_call(&mut self, walk: &Walk, turn: u32) -> (ToolCall, String, u32) {
        let c = &self.common;
        let name = TOOLS[turn as usize % 3];
        let arguments = match name {
            "read_file" => json!({"path": format!("src/module_{turn}.rs")}),
            "search_code" => json!({"pattern": format!("fn handler_{turn}")}),
            _ => json!({"command": format!("cargo test step_{turn}")}),
        };
        let purpose = format!("agent tool {} {turn}", walk.id);
        let (low, high) = c.shape.tool_result_tokens;
        let size = stream_rng(c.seed, &purpose).random_range(low.min(high)..=high.max(low));
        let (text, tokens) = c.text(size.max(1), &purpose);
        let mut call = ToolCall {
            id: format!("call-{}-{turn}", walk.id),
            name: name.to_owned(),
            arguments: arguments.to_string(),
        };
        if let Some(server) = self.server_call.take() {
            call.name = server.name;
            call.arguments = server.arguments;
            if !server.id.is_empty() {
                call.id = server.id;
            }
        }
        (call, text, tokens)
    }

    /// Appends the joined children's last replies as their calls' results.
    fn take_join(&self, walk: &mut Walk) {
        let Some((calls, results)) = walk.join.take() else {
            return;
        };
        let results = results.lock().map(|r| r.clone()).unwrap_or_default();
        for (k, id) in calls.into_iter().enumerate() {
            let text = results
                .get(k)
                .cloned()
                .flatten()
                .unwrap_or_else(|| "the sub-agent ended without an answer".to_owned());
            walk.tokens += self.common.corpus.tokenizer().count(&text) as u32;
            let mut m = Message::new(Role::Tool, text);
            m.tool_call_id = Some(id);
            walk.history.push(m);
        }
    }

    /// Hands a child's last reply (or its failure) to its parent.
    fn report(&self, text: Option<&str>) {
        if let Some(child) = &self.child
            && let Ok(mut r) = child.results.lock()
            && let Some(slot) = r.get_mut(child.k)
        {
            *slot = text.map(str::to_owned);
        }
    }
}

impl Session for AgentSession {
    fn next(&mut self) -> Prompt {
        let mut walk = match self.walk.take() {
            Some(w) if !w.done || self.child.is_some() => w,
            _ => self.start(),
        };
        self.take_join(&mut walk);
        let turn = walk.turn.map_or(0, |t| t + 1);
        walk.turn = Some(turn);
        self.index += 1;
        let prompt = Prompt {
            messages: walk.history.clone(),
            target_tokens: Some(walk.tokens),
            turn: Some(turn),
            max_tokens: Some(self.common.shape.reply_tokens.max(1)),
            reply_tokens: None,
            session: Some(Turn {
                id: walk.id.clone(),
                prior_tokens: walk.prior.min(walk.tokens),
            }),
            tools: Some(self.common.tools.clone()),
        };
        self.walk = Some(walk);
        prompt
    }

    fn tool_calls(&mut self, calls: &[ToolCall]) {
        self.server_call = calls.iter().find(|c| !c.name.is_empty()).cloned();
    }

    fn reply(&mut self, text: Option<&str>) {
        let Some(mut walk) = self.walk.take() else {
            return;
        };
        let turn = walk.turn.unwrap_or(0);
        let last = turn + 1 >= walk.turns;
        match text {
            Some(text) if !last => {
                let reply_tokens = self.common.corpus.tokenizer().count(text) as u32;
                let mut message = Message::new(Role::Assistant, text);
                let shape = &self.common.shape;
                let fans = self.child.is_none() && shape.fan_out > 0 && turn == shape.fan_out_turn;
                // Children start from the prompt just sent: before the reply is counted.
                let spawn = fans.then(|| self.fan_out(&walk, turn));
                walk.tokens += reply_tokens;
                walk.prior = walk.tokens;
                if let Some((calls, children, results)) = spawn {
                    walk.join = Some((calls.iter().map(|c| c.id.clone()).collect(), results));
                    message.tool_calls = calls;
                    walk.history.push(message);
                    self.spawned = children;
                } else {
                    let (call, result, tokens) = self.tool_call(&walk, turn);
                    let mut tool = Message::new(Role::Tool, result);
                    tool.tool_call_id = Some(call.id.clone());
                    message.tool_calls = vec![call];
                    walk.history.extend([message, tool]);
                    walk.tokens += tokens;
                }
            }
            _ => {
                walk.done = true;
                self.report(text);
            }
        }
        self.server_call = None;
        self.walk = Some(walk);
    }

    fn after(&mut self) -> After {
        match &self.walk {
            None => After::Now,
            Some(w) if w.done => After::End,
            Some(_) => {
                let index = (u64::from(self.slot) << 40) ^ (self.sessions << 20) ^ self.index;
                After::Think(self.common.think.at(index))
            }
        }
    }

    fn children(&mut self) -> Vec<Box<dyn Session>> {
        std::mem::take(&mut self.spawned)
    }
}
