//! A corpus's documents: the text to tokenize ([`Text`]), and each document once tokenized
//! (its ids, word starts and suffix, and the text kept to cut windows without decoding).

use std::collections::HashMap;

use crate::tokenizer::Tokenizer;

/// One document to tokenize: its body and the text appended after every window of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Text {
    /// The text windows are cut from.
    pub body: String,
    /// Appended after each window (empty for none).
    pub suffix: String,
}

pub(super) struct Doc {
    pub(super) ids: Vec<u32>,
    /// `starts[i]`: a window may begin, or end, just before token `i` (a word starts there).
    pub(super) starts: Vec<bool>,
    pub(super) suffix: String,
    pub(super) suffix_tokens: u32,
    /// The body the ids were encoded from, kept when decoding is concatenating token bytes
    /// ([`Tokenizer::decodes_by_bytes`]) and the corpus was asked to keep it.
    pub(super) source: Option<Source>,
}

/// A document's text and where each of its tokens ends in it.
pub(super) struct Source {
    pub(super) body: String,
    /// `ends[i]`: the byte after token `i`.
    pub(super) ends: Vec<u32>,
}

impl Source {
    /// `body` with its tokens' ends, `None` when the tokens' bytes do not add up to it
    /// (then decoding is the only exact way).
    pub(super) fn of(
        t: &Tokenizer,
        body: String,
        ids: &[u32],
        lens: &mut HashMap<u32, u32>,
    ) -> Option<Source> {
        let mut end = 0u32;
        let ends: Vec<u32> = ids
            .iter()
            .map(|&id| {
                end += *lens
                    .entry(id)
                    .or_insert_with(|| u32::try_from(t.token_len(id)).unwrap_or(u32::MAX));
                end
            })
            .collect();
        (end as usize == body.len()).then_some(Source { body, ends })
    }
}

impl Doc {
    /// The text of tokens `range`: a slice of the body when it is kept, else decoded.
    pub(super) fn text(&self, t: &Tokenizer, range: std::ops::Range<usize>) -> String {
        match &self.source {
            Some(src) => {
                let at = |i: usize| if i == 0 { 0 } else { src.ends[i - 1] as usize };
                let bytes = &src.body.as_bytes()[at(range.start)..at(range.end)];
                String::from_utf8_lossy(bytes).into_owned()
            }
            None => t.decode(self.ids.get(range).unwrap_or_default()),
        }
    }
}
