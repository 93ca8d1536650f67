//! C: one system prompt shared by every request of the cell (a preamble and a window of the
//! built-in corpus), then a short unique user query. On the completions API the core renders
//! the system message as a prefix.

use plateau_core::workload::{Message, Prompt, Role, Session, Workload, WorkloadInfo};

use super::diverse::{Unique, UniqueStream};

/// A shared system prompt and a unique query per request.
#[derive(Debug)]
pub struct SharedPrefix {
    info: WorkloadInfo,
    system: String,
    queries: Unique,
    target: u32,
}

impl SharedPrefix {
    /// `system` before every query from `queries`; `target` is the two lengths' sum.
    pub fn new(info: WorkloadInfo, system: String, queries: Unique, target: u32) -> SharedPrefix {
        SharedPrefix {
            info,
            system,
            queries,
            target,
        }
    }
}

impl Workload for SharedPrefix {
    fn info(&self) -> WorkloadInfo {
        self.info.clone()
    }

    fn session(&self, slot: u32) -> Box<dyn Session> {
        Box::new(SharedSession {
            system: self.system.clone(),
            queries: self.queries.stream(slot),
            target: self.target,
        })
    }
}

struct SharedSession {
    system: String,
    queries: UniqueStream,
    target: u32,
}

impl Session for SharedSession {
    fn next(&mut self) -> Prompt {
        Prompt {
            messages: vec![
                Message::new(Role::System, self.system.clone()),
                Message::new(Role::User, self.queries.next_text()),
            ],
            target_tokens: Some(self.target),
            turn: None,
            max_tokens: None,
            reply_tokens: None,
            session: None,
            tools: None,
        }
    }
}
