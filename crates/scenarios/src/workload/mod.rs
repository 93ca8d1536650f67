//! The workloads, one module per scenario kind. Each is built per cell from material the
//! catalog prepared once (tokenized corpora, window lists, conversations), so a session's
//! `next` only picks, slices and copies.

pub mod agent;
pub mod custom;
pub mod diverse;
pub mod identical;
pub mod multi_turn;
pub mod shared_prefix;
pub mod think;
pub mod trace;
pub mod with_lengths;

use plateau_core::workload::{Message, Prompt, Role};

/// A single-user-message prompt of `target` tokens.
pub(crate) fn user_prompt(text: String, target: u32) -> Prompt {
    Prompt {
        messages: vec![Message::new(Role::User, text)],
        target_tokens: Some(target),
        ..Prompt::default()
    }
}
