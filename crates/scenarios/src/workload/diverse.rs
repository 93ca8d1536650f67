//! B1, B2 (and the queries of C): a different window for every request, unique from the
//! first token. [`Unique`] walks a seeded permutation of the corpus's windows, slot `s` of
//! `N` taking positions `s, s+N, ...`, so no prompt repeats within a cell across all slots.

use std::sync::Arc;

use plateau_core::workload::{Prompt, Session, Workload, WorkloadInfo};

use crate::rng::{Permutation, Stream, stream_rng};
use crate::text::{Corpus, Window};

/// A cell's supply of unique windows.
#[derive(Clone, Debug)]
pub struct Unique {
    corpus: Arc<Corpus>,
    windows: Arc<Vec<Window>>,
    perm: Permutation,
    slots: u32,
}

impl Unique {
    /// The windows of `corpus`, shuffled by `seed`, shared by `slots` slots.
    pub fn new(corpus: Arc<Corpus>, windows: Arc<Vec<Window>>, seed: u64, slots: u32) -> Unique {
        let perm = Permutation::new(windows.len(), &mut stream_rng(seed, "unique"));
        Unique {
            corpus,
            windows,
            perm,
            slots,
        }
    }

    /// Slot `slot`'s stream of texts.
    pub fn stream(&self, slot: u32) -> UniqueStream {
        UniqueStream {
            unique: self.clone(),
            stream: Stream::new(self.perm, slot, self.slots),
        }
    }
}

/// One slot's never-repeating texts.
#[derive(Debug)]
pub struct UniqueStream {
    unique: Unique,
    stream: Stream,
}

impl UniqueStream {
    /// The next text (empty only if the corpus has no window).
    pub fn next_text(&mut self) -> String {
        let i = self.stream.next_index();
        self.unique
            .windows
            .get(i)
            .map(|&w| self.unique.corpus.text(w))
            .unwrap_or_default()
    }
}

/// A unique prompt per request.
#[derive(Debug)]
pub struct Diverse {
    info: WorkloadInfo,
    unique: Unique,
    target: u32,
}

impl Diverse {
    /// Prompts of `target` tokens from `unique`.
    pub fn new(info: WorkloadInfo, unique: Unique, target: u32) -> Diverse {
        Diverse {
            info,
            unique,
            target,
        }
    }
}

impl Workload for Diverse {
    fn info(&self) -> WorkloadInfo {
        self.info.clone()
    }

    fn session(&self, slot: u32) -> Box<dyn Session> {
        Box::new(DiverseSession {
            texts: self.unique.stream(slot),
            target: self.target,
        })
    }
}

struct DiverseSession {
    texts: UniqueStream,
    target: u32,
}

impl Session for DiverseSession {
    fn next(&mut self) -> Prompt {
        super::user_prompt(self.texts.next_text(), self.target)
    }
}
