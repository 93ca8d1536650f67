//! A tokenized corpus and [`Corpus::text`], the one function that cuts prompt text out of
//! it: a window of whole words whose length in tokens of the configured tokenizer is the
//! target (within 2% by construction), optionally followed by a per-document suffix (B2's
//! question). Everything costly (tokenizing, finding word starts, listing windows) happens
//! when the corpus is built; cutting a window only decodes a slice of token ids.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::cache;
pub use super::doc::Text;
use super::doc::{Doc, Source};
use crate::rng::stable_hash;
use crate::tokenizer::Tokenizer;

/// Tokens whose text must differ between any two windows of [`Corpus::windows`] (less than the
/// 16 the prefix-cache test looks at, so re-tokenizing the trimmed text keeps them apart).
pub const HEAD_TOKENS: usize = 12;

/// Most window starts considered per corpus (starts are spaced out beyond that).
const MAX_CANDIDATES: usize = 1_500_000;

/// A window: `len` tokens of document `doc` from token `start`, then the document's suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Document index.
    pub doc: u32,
    /// First token.
    pub start: u32,
    /// Body tokens.
    pub len: u32,
}

/// Tokenized documents.
pub struct Corpus {
    tokenizer: Arc<Tokenizer>,
    pub(super) docs: Vec<Doc>,
    /// Tokens of a start token's text once its leading space is trimmed (` calmly` is one
    /// token, `calmly` two), for the start tokens where that is not 1.
    pub(super) lead: HashMap<u32, u32>,
}

impl std::fmt::Debug for Corpus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Corpus({} docs, {} tokens)",
            self.docs.len(),
            self.total_tokens()
        )
    }
}

impl Corpus {
    /// Tokenizes `texts` (on every core) and finds their word starts.
    pub fn new(tokenizer: Arc<Tokenizer>, texts: Vec<Text>) -> Corpus {
        Corpus::build(tokenizer, texts, false)
    }

    /// [`Corpus::new`], read from the corpus cache in `dir` when it holds this tokenizer's
    /// tokens of these texts, else built and stored there (module `cache`); `None` or a
    /// tokenizer that does not decode by bytes builds it every time. The texts are kept,
    /// so cutting a window needs no tokenizer.
    pub fn cached(tokenizer: Arc<Tokenizer>, texts: Vec<Text>, dir: Option<&Path>) -> Corpus {
        let Some(dir) = dir.filter(|_| tokenizer.decodes_by_bytes()) else {
            return Corpus::build(tokenizer, texts, true);
        };
        let path = cache::path(dir, &tokenizer.name(), &texts);
        match cache::read(&path, texts) {
            Ok((docs, lead)) => Corpus {
                tokenizer,
                docs,
                lead,
            },
            Err((texts, why)) => {
                tracing::debug!(path = %path.display(), %why, "corpus cache miss");
                let corpus = Corpus::build(tokenizer, texts, true);
                if let Err(e) = cache::write(&path, &corpus.docs, &corpus.lead) {
                    tracing::debug!(path = %path.display(), error = %e, "corpus cache not written");
                }
                corpus
            }
        }
    }

    fn build(tokenizer: Arc<Tokenizer>, texts: Vec<Text>, keep_text: bool) -> Corpus {
        let bodies: Vec<&str> = texts.iter().map(|t| t.body.as_str()).collect();
        let ids = tokenizer.encode_many(&bodies);
        let suffixes: Vec<&str> = texts.iter().map(|t| t.suffix.as_str()).collect();
        let suffix_tokens = tokenizer.count_many(&suffixes);
        let keep_text = keep_text && tokenizer.decodes_by_bytes();
        let mut edges = HashMap::new();
        let mut lens = HashMap::new();
        let docs: Vec<Doc> = texts
            .into_iter()
            .zip(ids)
            .zip(suffix_tokens)
            .map(|((text, ids), suffix_tokens)| {
                let starts = word_starts(&tokenizer, &ids, &mut edges);
                let source = keep_text
                    .then(|| Source::of(&tokenizer, text.body, &ids, &mut lens))
                    .flatten();
                Doc {
                    ids,
                    starts,
                    suffix: text.suffix,
                    suffix_tokens,
                    source,
                }
            })
            .collect();
        let mut lead = HashMap::new();
        for d in &docs {
            for (&id, _) in d.ids.iter().zip(&d.starts).filter(|(_, s)| **s) {
                lead.entry(id).or_insert_with(|| {
                    let text = tokenizer.decode(&[id]);
                    tokenizer.count_many(&[text.trim_start()])[0]
                });
            }
        }
        lead.retain(|_, n| *n != 1);
        Corpus {
            tokenizer,
            docs,
            lead,
        }
    }

    /// Tokens the first token of a window counts for once its text is trimmed.
    fn lead_tokens(&self, id: u32) -> u32 {
        self.lead.get(&id).copied().unwrap_or(1)
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether there are no documents.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Tokens in all documents.
    pub fn total_tokens(&self) -> usize {
        self.docs.iter().map(|d| d.ids.len()).sum()
    }

    /// The window of `doc` that starts at the first word start at or after token `from` and
    /// whose body plus suffix is `tokens` long (the body ends at a word start within 2% of
    /// the target); `None` when the document has no room for it.
    pub fn window_at(&self, doc: usize, from: usize, tokens: u32) -> Option<Window> {
        let d = self.docs.get(doc)?;
        let body = tokens.checked_sub(d.suffix_tokens).filter(|&b| b > 0)? as usize;
        let start = (from..d.ids.len()).find(|&i| d.starts[i])?;
        // The trimmed first token may count for more (or fewer) tokens than one.
        let target = (start + body + 1).checked_sub(self.lead_tokens(d.ids[start]) as usize)?;
        let tol = (body / 50).max(1);
        let is_end = |e: usize| e == d.ids.len() || (e < d.ids.len() && d.starts[e]);
        let end = (0..=tol)
            .flat_map(|k| [target.checked_sub(k), Some(target + k)])
            .flatten()
            .find(|&e| e > start && e <= d.ids.len() && is_end(e))?;
        Some(Window {
            doc: doc as u32,
            start: start as u32,
            len: (end - start) as u32,
        })
    }

    /// A random window of `tokens` tokens (`None` when no document has room for one). Where
    /// it starts is drawn as a share of its document, not of the room the length leaves, so
    /// the same `rng` asked for a few tokens more or fewer gives the same text cut longer or
    /// shorter: a length met in a server's tokens is found by cutting again, and a new
    /// window per cut made a short prompt's server count jump instead of moving with it.
    pub fn pick(&self, tokens: u32, rng: &mut impl rand::Rng) -> Option<Window> {
        let fits: Vec<usize> = (0..self.docs.len())
            .filter(|&i| self.docs[i].ids.len() > tokens as usize)
            .collect();
        for _ in 0..64 {
            let &doc = fits.get(rng.random_range(0..fits.len().max(1)))?;
            let len = self.docs[doc].ids.len();
            let share: f64 = rng.random();
            let start = ((share * len as f64) as usize).min(len - tokens as usize - 1);
            if let Some(w) = self.window_at(doc, start, tokens) {
                return Some(w);
            }
        }
        (0..self.docs.len()).find_map(|doc| self.window_at(doc, 0, tokens))
    }

    /// Every window of `tokens` tokens whose first [`HEAD_TOKENS`] tokens of text differ from
    /// every other's, in no particular order.
    pub fn windows(&self, tokens: u32) -> Vec<Window> {
        let positions: usize = self.docs.iter().map(|d| d.ids.len()).sum();
        let stride = positions.div_ceil(MAX_CANDIDATES).max(1);
        let mut keyed: Vec<(u64, Window)> = Vec::new();
        for (i, d) in self.docs.iter().enumerate() {
            let mut from = 0;
            while let Some(w) = self.window_at(i, from, tokens) {
                let head = w.start as usize
                    ..(w.start as usize + HEAD_TOKENS).min((w.start + w.len) as usize);
                let head_text = d.text(&self.tokenizer, head);
                keyed.push((stable_hash(head_text.trim_start().as_bytes()), w));
                from = w.start as usize + stride;
            }
        }
        keyed.sort_unstable_by_key(|(h, w)| (*h, w.doc, w.start));
        keyed.dedup_by_key(|(h, _)| *h);
        keyed.into_iter().map(|(_, w)| w).collect()
    }

    /// The text of `w`: its tokens decoded, leading whitespace trimmed, then the suffix.
    pub fn text(&self, w: Window) -> String {
        let Some(d) = self.docs.get(w.doc as usize) else {
            return String::new();
        };
        let (s, e) = (w.start as usize, (w.start + w.len) as usize);
        let body = d.text(&self.tokenizer, s..e);
        let mut out = String::with_capacity(body.len() + d.suffix.len());
        out.push_str(body.trim_start());
        out.push_str(&d.suffix);
        out
    }

    /// The length of [`Corpus::text`]`(w)` in tokens (its body trimmed, plus the suffix).
    pub fn tokens(&self, w: Window) -> u32 {
        let Some(d) = self.docs.get(w.doc as usize) else {
            return 0;
        };
        let lead = d
            .ids
            .get(w.start as usize)
            .map_or(1, |&id| self.lead_tokens(id));
        (w.len + lead).saturating_sub(1) + d.suffix_tokens
    }

    /// The tokenizer the corpus was built with.
    pub fn tokenizer(&self) -> &Arc<Tokenizer> {
        &self.tokenizer
    }
}

/// Marks the tokens a window may start at: a space and then more than whitespace (` word`,
/// not a lone ` ` before digits), and letters or digits right after a newline. Tokenizers that mark no word starts get every position.
/// The corpus cache stores the result: change its `MAGIC` when this changes.
fn word_starts(t: &Tokenizer, ids: &[u32], edges: &mut HashMap<u32, (u8, u8)>) -> Vec<bool> {
    let mut edge = |id: u32| *edges.entry(id).or_insert_with(|| t.token_edges(id));
    let mut prev_last = b'\n';
    let starts: Vec<bool> = ids
        .iter()
        .map(|&id| {
            let (first, last) = edge(id);
            let start = (first == b' ' && !last.is_ascii_whitespace())
                || (prev_last == b'\n' && first.is_ascii_alphanumeric());
            prev_last = last;
            start
        })
        .collect();
    if !ids.is_empty() && starts.iter().filter(|&&s| s).count() * 100 < ids.len() {
        return vec![true; ids.len()];
    }
    starts
}

#[cfg(test)]
mod tests;
