//! The token-counting seam: the client's tokenizer, used when the server does not report
//! counts. The scenarios crate provides the real tokenizers (embedded BPE or a user's
//! `tokenizer.json`).

/// Counts tokens in text with one fixed tokenizer.
pub trait TokenCounter: Send + Sync {
    /// Tokens in `text`.
    fn count(&self, text: &str) -> usize;

    /// The tokenizer's name as recorded in results (e.g. `cl100k_base`).
    fn name(&self) -> String;
}

/// Counts whitespace-separated words. Exact for plateau's simulator, whose output words are
/// one token each; a stand-in for tests and benchmarks, not for real servers.
#[derive(Clone, Copy, Debug, Default)]
pub struct Whitespace;

impl TokenCounter for Whitespace {
    fn count(&self, text: &str) -> usize {
        text.split_whitespace().count()
    }

    fn name(&self) -> String {
        "whitespace".into()
    }
}
