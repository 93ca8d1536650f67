//! custom (and S): prompts (or chat message lists) from a user's JSONL file or a dataset of
//! prompt/reply pairs, in a seeded order, slot `s` of `N` taking positions `s, s+N, ...`;
//! the list wraps around when used up.

use std::sync::Arc;

use plateau_core::workload::{Message, Prompt, Session, Workload, WorkloadInfo};

use crate::rng::{Permutation, Stream, stream_rng};

/// One prompt of the file and its length in tokens (the sum over its messages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CustomPrompt {
    /// The messages, the user's last.
    pub messages: Vec<Message>,
    /// Their length in tokens of the configured tokenizer.
    pub tokens: u32,
    /// The length in tokens of the dataset's reply, where the source has one (ShareGPT).
    pub reply_tokens: Option<u32>,
    /// Its line in the user's prompts file (custom scenarios).
    pub line: Option<u32>,
}

/// Prompts from a file.
#[derive(Debug)]
pub struct Custom {
    info: WorkloadInfo,
    prompts: Arc<Vec<CustomPrompt>>,
    perm: Permutation,
    slots: u32,
}

impl Custom {
    /// `prompts` shuffled by `seed` for `slots` slots.
    pub fn new(
        info: WorkloadInfo,
        prompts: Arc<Vec<CustomPrompt>>,
        seed: u64,
        slots: u32,
    ) -> Custom {
        let perm = Permutation::new(prompts.len(), &mut stream_rng(seed, "custom"));
        Custom {
            info,
            prompts,
            perm,
            slots,
        }
    }
}

impl Workload for Custom {
    fn info(&self) -> WorkloadInfo {
        self.info.clone()
    }

    fn session(&self, slot: u32) -> Box<dyn Session> {
        Box::new(CustomSession {
            prompts: self.prompts.clone(),
            stream: Stream::new(self.perm, slot, self.slots),
        })
    }
}

struct CustomSession {
    prompts: Arc<Vec<CustomPrompt>>,
    stream: Stream,
}

impl Session for CustomSession {
    fn next(&mut self) -> Prompt {
        match self.prompts.get(self.stream.next_index()) {
            Some(p) => Prompt {
                messages: p.messages.clone(),
                target_tokens: Some(p.tokens),
                turn: None,
                max_tokens: None,
                reply_tokens: p.reply_tokens,
                ..Prompt::default()
            },
            None => Prompt::default(),
        }
    }
}
