//! [`WithLengths`]: any workload, each request given its own `max_tokens` from the
//! scenario's [`Lengths`] at its index (a prompt that already carries one, as D's turns
//! do, keeps it), and the setting stated in the workload's info.

use std::sync::Arc;

use plateau_core::workload::{After, Prompt, Replay, Session, Workload, WorkloadInfo};
use plateau_model::results::workload::OutputTokensInfo;

use crate::lengths::{Indices, Lengths};

/// A workload whose requests ask for their own output lengths.
pub struct WithLengths {
    inner: Arc<dyn Workload>,
    lengths: Arc<Lengths>,
    slots: u32,
}

impl WithLengths {
    /// `inner` with lengths from `lengths`, for `slots` sessions.
    pub fn new(inner: Arc<dyn Workload>, lengths: Arc<Lengths>, slots: u32) -> WithLengths {
        WithLengths {
            inner,
            lengths,
            slots,
        }
    }
}

impl Workload for WithLengths {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            output_tokens: Some(OutputTokensInfo {
                spec: self.lengths.spec(),
                requested: None,
            }),
            ..self.inner.info()
        }
    }

    fn session(&self, slot: u32) -> Box<dyn Session> {
        Box::new(SizedSession {
            inner: self.inner.session(slot),
            lengths: self.lengths.clone(),
            indices: Indices::new(slot, self.slots),
        })
    }

    fn replay(&self) -> Option<Arc<dyn Replay>> {
        self.inner.replay()
    }
}

struct SizedSession {
    inner: Box<dyn Session>,
    lengths: Arc<Lengths>,
    indices: Indices,
}

impl Session for SizedSession {
    fn next(&mut self) -> Prompt {
        let index = self.indices.next_index();
        let mut prompt = self.inner.next();
        if prompt.max_tokens.is_none() {
            prompt.max_tokens = Some(self.lengths.at(index, prompt.reply_tokens));
        }
        prompt
    }

    fn reply(&mut self, text: Option<&str>) {
        self.inner.reply(text);
    }

    fn after(&mut self) -> After {
        self.inner.after()
    }
}
