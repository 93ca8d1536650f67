//! D: multi-turn dialogs, as sessions. Each slot walks one conversation at a time: turn
//! `k` sends the whole history (every earlier user turn and reply) plus user turn `k`, then
//! its user thinks ([`ThinkTimes`]) before turn `k + 1`. Replies in the history are the
//! server's own (as a chat user sees them) or the dataset's. A conversation ends after its
//! last user turn, when a request fails (server replies), or before the history plus the
//! next turn's own `max_tokens` (drawn from the scenario's [`Lengths`]; the dataset's reply
//! length with `{"dist": "dataset"}`) would exceed the context limit; then the slot starts
//! the next conversation of its stream, as a new session (`<slot>-<n>`).
//!
//! Counting a server reply's tokens (to keep the context limit) is the one tokenizer call
//! between requests: about 0.1 ms for a 500-token reply with the embedded BPE.

use std::sync::Arc;

use plateau_core::tokens::TokenCounter;
use plateau_core::workload::{
    After, Message, Prompt, Role, Session, Turn as SessionTurn, Workload, WorkloadInfo,
};

use crate::definition::Replies;
use crate::lengths::{Indices, Lengths};
use crate::rng::{Permutation, Stream, stream_rng};
use crate::tokenizer::Tokenizer;
use crate::workload::think::ThinkTimes;

/// One user turn and the dataset's reply to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turn {
    /// The user's message.
    pub user: Arc<str>,
    /// Its length in tokens.
    pub user_tokens: u32,
    /// The dataset's reply (the last turn may have none).
    pub reply: Option<Arc<str>>,
    /// Its length in tokens.
    pub reply_tokens: u32,
}

/// A conversation from the dataset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conversation {
    /// Where it came from (tree id, or `built-in-<n>`).
    pub id: String,
    /// User turns in order.
    pub turns: Vec<Turn>,
}

/// How a cell's sessions behave.
#[derive(Clone, Debug)]
pub struct DialogRules {
    /// Whose replies fill the history.
    pub replies: Replies,
    /// A turn is not sent when history + message + its `max_tokens` would exceed this.
    pub max_context_tokens: u32,
    /// Each turn's `max_tokens`.
    pub lengths: Arc<Lengths>,
    /// The wait after each turn's reply.
    pub think: Arc<ThinkTimes>,
}

/// Multi-turn conversations.
#[derive(Debug)]
pub struct MultiTurn {
    info: WorkloadInfo,
    conversations: Arc<Vec<Conversation>>,
    rules: DialogRules,
    tokenizer: Arc<Tokenizer>,
    perm: Permutation,
    slots: u32,
}

impl MultiTurn {
    /// Conversations in an order seeded by `seed`; `tokenizer` counts the server's replies.
    pub fn new(
        info: WorkloadInfo,
        conversations: Arc<Vec<Conversation>>,
        rules: DialogRules,
        tokenizer: Arc<Tokenizer>,
        seed: u64,
        slots: u32,
    ) -> MultiTurn {
        let perm = Permutation::new(conversations.len(), &mut stream_rng(seed, "dialog"));
        MultiTurn {
            info,
            conversations,
            rules,
            tokenizer,
            perm,
            slots,
        }
    }
}

impl Workload for MultiTurn {
    fn info(&self) -> WorkloadInfo {
        self.info.clone()
    }

    fn session(&self, slot: u32) -> Box<dyn Session> {
        Box::new(DialogSession {
            conversations: self.conversations.clone(),
            rules: self.rules.clone(),
            tokenizer: self.tokenizer.clone(),
            stream: Stream::new(self.perm, slot, self.slots),
            indices: Indices::new(slot, self.slots),
            current: None,
            slot,
            sessions: 0,
            index: 0,
        })
    }
}

/// Where a slot is in its conversation.
struct Walk {
    /// The session's id.
    id: String,
    conversation: usize,
    /// Index of the user turn last sent.
    turn: usize,
    history: Vec<Message>,
    history_tokens: u32,
    /// The last turn was sent and answered: start a new conversation.
    done: bool,
}

struct DialogSession {
    conversations: Arc<Vec<Conversation>>,
    rules: DialogRules,
    tokenizer: Arc<Tokenizer>,
    stream: Stream,
    indices: Indices,
    current: Option<Walk>,
    slot: u32,
    /// Sessions this slot has started.
    sessions: u64,
    /// The index of the request last sent.
    index: u64,
}

impl DialogSession {
    /// The `max_tokens` of request `index` if it sends `turn`.
    fn length(&self, index: u64, turn: &Turn) -> u32 {
        let reply = turn.reply.as_ref().map(|_| turn.reply_tokens);
        self.rules.lengths.at(index, reply)
    }

    fn fits(&self, history_tokens: u32, turn: &Turn, index: u64) -> bool {
        u64::from(history_tokens)
            + u64::from(turn.user_tokens)
            + u64::from(self.length(index, turn))
            <= u64::from(self.rules.max_context_tokens)
    }

    /// The next conversation of this slot's stream whose first turn fits as request
    /// `index`, as a new session.
    fn start(&mut self, index: u64) -> Walk {
        let id = format!("{}-{}", self.slot, self.sessions);
        self.sessions += 1;
        let mut conversation = 0;
        for _ in 0..self.conversations.len() {
            let c = self.stream.next_index();
            if let Some(first) = self.conversations[c].turns.first()
                && self.fits(0, first, index)
            {
                conversation = c;
                break;
            }
        }
        // When no conversation fits (the catalog checks this cannot happen), the first
        // is sent anyway.
        Walk {
            id,
            conversation,
            turn: 0,
            history: Vec::new(),
            history_tokens: 0,
            done: false,
        }
    }

    /// Whether the walk's next turn, if any, fits as the next request.
    fn next_fits(&self, walk: &Walk) -> bool {
        let mut peek = self.indices;
        let index = peek.next_index();
        self.conversations[walk.conversation]
            .turns
            .get(walk.turn + 1)
            .is_some_and(|t| self.fits(walk.history_tokens, t, index))
    }
}

impl Session for DialogSession {
    fn next(&mut self) -> Prompt {
        let index = self.indices.next_index();
        self.index = index;
        let mut walk = match self.current.take() {
            Some(w) if !w.done => w,
            _ => self.start(index),
        };
        let convo = &self.conversations[walk.conversation];
        let next_turn = if walk.history.is_empty() {
            0
        } else {
            walk.turn + 1
        };
        let fits = convo
            .turns
            .get(next_turn)
            .is_some_and(|t| self.fits(walk.history_tokens, t, index));
        if next_turn > 0 && !fits {
            walk = self.start(index);
        } else {
            walk.turn = next_turn;
        }
        let convo = &self.conversations[walk.conversation];
        let turn = convo.turns.get(walk.turn).or(convo.turns.first());
        let mut max_tokens = None;
        let mut reply_tokens = None;
        let session = SessionTurn {
            id: walk.id.clone(),
            prior_tokens: walk.history_tokens,
        };
        if let Some(t) = turn {
            walk.history.push(Message::new(Role::User, t.user.as_ref()));
            walk.history_tokens += t.user_tokens;
            // Within the context limit even when no conversation fitted (the catalog
            // checks that one does with the shortest length).
            let room = self
                .rules
                .max_context_tokens
                .saturating_sub(walk.history_tokens)
                .max(1);
            max_tokens = Some(self.length(index, t).min(room));
            reply_tokens = t.reply.as_ref().map(|_| t.reply_tokens);
        }
        let prompt = Prompt {
            messages: walk.history.clone(),
            target_tokens: Some(walk.history_tokens),
            turn: Some(walk.turn as u32),
            max_tokens,
            reply_tokens,
            session: Some(session),
            ..Prompt::default()
        };
        self.current = Some(walk);
        prompt
    }

    fn reply(&mut self, text: Option<&str>) {
        let Some(walk) = self.current.as_mut() else {
            return;
        };
        let convo = &self.conversations[walk.conversation];
        let last = walk.turn + 1 >= convo.turns.len();
        let reply = match self.rules.replies {
            Replies::Server => text.map(|t| (Arc::<str>::from(t), self.tokenizer.count(t) as u32)),
            Replies::Dataset => convo
                .turns
                .get(walk.turn)
                .and_then(|t| t.reply.clone().map(|r| (r, t.reply_tokens))),
        };
        match reply {
            Some((content, tokens)) if !last => {
                walk.history
                    .push(Message::new(Role::Assistant, content.as_ref()));
                walk.history_tokens += tokens;
            }
            _ => walk.done = true,
        }
        if let Some(walk) = self.current.take() {
            let done = walk.done || !self.next_fits(&walk);
            self.current = Some(Walk { done, ..walk });
        }
    }

    fn after(&mut self) -> After {
        match &self.current {
            None => After::Now,
            Some(w) if w.done => After::End,
            Some(_) => After::Think(self.rules.think.at(self.index)),
        }
    }
}

#[cfg(test)]
mod tests;
