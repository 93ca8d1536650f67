//! Remembered counts of short texts. When a server sends no per-chunk usage, every streamed
//! chunk is counted with the client tokenizer to spread the reply's tokens over its chunks
//! (per-token ITL). Chunks are mostly one token, and the same few thousand token texts
//! recur in every reply, so most counts are a lookup instead of a BPE pass (the regex
//! split alone costs about a microsecond per call). A count depends only on the text, so a
//! remembered one is exact.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

/// Longest text remembered, bytes (a chunk of a few tokens).
const MAX_BYTES: usize = 32;
/// Most texts remembered; the memo starts over when full (about 4 MiB at most).
const MAX_ENTRIES: usize = 1 << 16;

/// Counts of texts up to [`MAX_BYTES`] long.
#[derive(Default)]
pub(super) struct Memo {
    counts: Mutex<HashMap<Box<str>, u32>>,
}

impl Memo {
    /// The count of `text`: remembered, or `count(text)` (remembered when short).
    pub(super) fn count(&self, text: &str, count: impl FnOnce(&str) -> usize) -> usize {
        if text.len() > MAX_BYTES {
            return count(text);
        }
        let lock = || self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(&n) = lock().get(text) {
            return n as usize;
        }
        let n = count(text);
        let mut counts = lock();
        if counts.len() >= MAX_ENTRIES {
            counts.clear();
        }
        counts.insert(text.into(), u32::try_from(n).unwrap_or(u32::MAX));
        n
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.counts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    #[test]
    fn a_short_text_is_counted_once_then_remembered_and_a_long_one_every_time() {
        let memo = Memo::default();
        let calls = Cell::new(0);
        let words = |t: &str| {
            calls.set(calls.get() + 1);
            t.split_whitespace().count()
        };
        assert_eq!(memo.count(" hello there", words), 2);
        assert_eq!(memo.count(" hello there", words), 2);
        assert_eq!(calls.get(), 1);
        let long = "word ".repeat(10);
        assert_eq!(memo.count(&long, words), 10);
        assert_eq!(memo.count(&long, words), 10);
        assert_eq!(calls.get(), 3);
        assert_eq!(memo.len(), 1);
    }

    #[test]
    fn a_full_memo_starts_over_and_stays_exact() {
        let memo = Memo::default();
        for i in 0..MAX_ENTRIES + 10 {
            let text = format!("{i}");
            assert_eq!(memo.count(&text, |t| t.len()), text.len());
        }
        assert_eq!(memo.len(), 10);
        let last = format!("{}", MAX_ENTRIES + 9);
        assert_eq!(memo.count(&last, |_| unreachable!("remembered")), 5);
        assert_eq!(
            memo.count("0", |_| 7),
            7,
            "forgotten when the memo started over"
        );
    }
}
