//! Prompts synthesised from a trace record's lengths: the prompt is cut into blocks of
//! `block_tokens`; block `i` is the text of `hash_ids[i]` when the record has one, else a
//! block of its own. A block's text is a window of the corpus chosen by its id and the
//! seed alone, so equal ids give equal text (and equal tokens in the run's tokenizer) in
//! every request, and a partial last block is the start of its id's full block.

use std::sync::Arc;

use crate::rng::stream_rng;
use crate::text::{Corpus, Window};

/// Cuts the prompts of one trace.
#[derive(Clone, Debug)]
pub struct Synth {
    corpus: Arc<Corpus>,
    block_tokens: u32,
    seed: u64,
}

/// Which block: a trace's id, or the `block`-th block of record `record` (no id).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Id(u64),
    Own { record: u64, block: u64 },
}

impl Synth {
    /// Blocks of `block_tokens` cut from `corpus`, chosen by `seed`. `None` when the corpus
    /// has no document longer than one block.
    pub fn new(corpus: Arc<Corpus>, block_tokens: u32, seed: u64) -> Option<Synth> {
        let synth = Synth {
            corpus,
            block_tokens: block_tokens.max(1),
            seed,
        };
        synth.window(Key::Id(0)).map(|_| synth)
    }

    /// The prompt of record number `record` (its index in the trace): `input_length`
    /// tokens, block `i` the text of `hash_ids[i]`.
    pub fn prompt(&self, record: u64, input_length: u32, hash_ids: &[u64]) -> String {
        let mut out = String::new();
        let blocks = input_length.div_ceil(self.block_tokens);
        for i in 0..blocks {
            let key = match hash_ids.get(i as usize) {
                Some(&id) => Key::Id(id),
                None => Key::Own {
                    record,
                    block: u64::from(i),
                },
            };
            let len = (input_length - i * self.block_tokens).min(self.block_tokens);
            let Some(full) = self.window(key) else {
                continue;
            };
            let w = if len == self.block_tokens {
                Some(full)
            } else {
                self.corpus
                    .window_at(full.doc as usize, full.start as usize, len)
            };
            if let Some(w) = w {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(&self.corpus.text(w));
            }
        }
        out
    }

    /// The full window of a block.
    fn window(&self, key: Key) -> Option<Window> {
        let mut rng = match key {
            Key::Id(id) => stream_rng(self.seed ^ id, &format!("trace block {id}")),
            Key::Own { record, block } => stream_rng(
                self.seed ^ record,
                &format!("trace record {record} block {block}"),
            ),
        };
        self.corpus.pick(self.block_tokens, &mut rng)
    }
}
