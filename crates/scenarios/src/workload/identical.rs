//! A1, A2: every request of every slot sends the same prompt, one window of the built-in
//! corpus chosen per cell.

use plateau_core::workload::{Prompt, Session, Workload, WorkloadInfo};

use crate::rng::stream_rng;
use crate::text::Corpus;

/// The same prompt for every request.
#[derive(Debug)]
pub struct Identical {
    info: WorkloadInfo,
    prompt: Prompt,
}

impl Identical {
    /// The cell's prompt: a window of `length` tokens of `corpus` picked with `seed`, which
    /// records `target` as its length (the same number unless the lengths are met in a
    /// server's tokens); `None` when no document is long enough.
    pub fn new(
        info: WorkloadInfo,
        corpus: &Corpus,
        length: u32,
        target: u32,
        seed: u64,
    ) -> Option<Identical> {
        let w = corpus.pick(length, &mut stream_rng(seed, "identical"))?;
        Some(Identical {
            info,
            prompt: super::user_prompt(corpus.text(w), target),
        })
    }
}

impl Workload for Identical {
    fn info(&self) -> WorkloadInfo {
        self.info.clone()
    }

    fn session(&self, _slot: u32) -> Box<dyn Session> {
        Box::new(Same(self.prompt.clone()))
    }
}

struct Same(Prompt);

impl Session for Same {
    fn next(&mut self) -> Prompt {
        self.0.clone()
    }
}
