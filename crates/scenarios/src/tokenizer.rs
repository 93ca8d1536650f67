//! The client tokenizer: an embedded BPE (`cl100k_base` by default, or `o200k_base`) or a
//! user's Hugging Face `tokenizer.json`. Prompt lengths are targets in its tokens, and it
//! counts output when the server sends no usage.

use std::path::{Path, PathBuf};

use plateau_core::tokens::TokenCounter;
use tiktoken_rs::CoreBPE;

/// Why a tokenizer could not be loaded.
#[derive(Debug, thiserror::Error)]
#[error("tokenizer {path}: {message}")]
pub struct TokenizerError {
    /// The configured path or name.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

/// A loaded tokenizer.
pub enum Tokenizer {
    /// An embedded tiktoken BPE.
    Bpe {
        /// Encoding name.
        name: &'static str,
        /// The encoder.
        bpe: &'static CoreBPE,
    },
    /// A Hugging Face `tokenizer.json`.
    HuggingFace {
        /// Where it was loaded from.
        path: PathBuf,
        /// The tokenizer.
        inner: Box<tokenizers::Tokenizer>,
    },
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tokenizer({})", self.name())
    }
}

/// The default embedded encoding.
pub const DEFAULT: &str = "cl100k_base";

impl Tokenizer {
    /// Loads the configured tokenizer: `None` or an embedded name (`cl100k_base`,
    /// `o200k_base`) selects an embedded BPE; anything else is a `tokenizer.json` path.
    pub fn load(config: Option<&Path>) -> Result<Tokenizer, TokenizerError> {
        match config.and_then(Path::to_str) {
            None | Some("cl100k_base") => Ok(Tokenizer::embedded_cl100k()),
            Some("o200k_base") => Ok(Tokenizer::Bpe { name: "o200k_base", bpe: tiktoken_rs::o200k_base_singleton() }),
            Some(_) => Tokenizer::from_file(config.unwrap_or(Path::new(""))),
        }
    }

    /// The default embedded BPE.
    pub fn embedded_cl100k() -> Tokenizer {
        Tokenizer::Bpe { name: DEFAULT, bpe: tiktoken_rs::cl100k_base_singleton() }
    }

    /// A Hugging Face `tokenizer.json`.
    pub fn from_file(path: &Path) -> Result<Tokenizer, TokenizerError> {
        let err = |message: String| TokenizerError { path: path.to_owned(), message };
        if !path.is_file() {
            return Err(err("no such file; expected a Hugging Face tokenizer.json or one of cl100k_base, o200k_base".into()));
        }
        let inner = tokenizers::Tokenizer::from_file(path).map_err(|e| err(format!("not a valid tokenizer.json: {e}")))?;
        Ok(Tokenizer::HuggingFace { path: path.to_owned(), inner: Box::new(inner) })
    }

    /// Token ids of `text` (no special tokens added).
    pub fn encode(&self, text: &str) -> Vec<u32> {
        match self {
            Tokenizer::Bpe { bpe, .. } => bpe.encode_ordinary(text),
            Tokenizer::HuggingFace { inner, .. } => {
                inner.encode_fast(text, false).map(|e| e.get_ids().to_vec()).unwrap_or_default()
            }
        }
    }

    /// Text of `ids`; bytes that do not form whole characters are replaced.
    pub fn decode(&self, ids: &[u32]) -> String {
        match self {
            Tokenizer::Bpe { bpe, .. } => {
                bpe.decode_bytes(ids).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default()
            }
            Tokenizer::HuggingFace { inner, .. } => inner.decode(ids, false).unwrap_or_default(),
        }
    }

    /// The name recorded in results.
    pub fn name(&self) -> String {
        match self {
            Tokenizer::Bpe { name, .. } => (*name).to_owned(),
            Tokenizer::HuggingFace { path, .. } => path.display().to_string(),
        }
    }
}

impl TokenCounter for Tokenizer {
    fn count(&self, text: &str) -> usize {
        match self {
            Tokenizer::Bpe { bpe, .. } => bpe.count_ordinary(text),
            Tokenizer::HuggingFace { .. } => self.encode(text).len(),
        }
    }

    fn name(&self) -> String {
        Tokenizer::name(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_bpe_round_trips_and_counts() {
        let t = Tokenizer::load(None).unwrap();
        let ids = t.encode("Hello world, the quick brown fox.");
        assert_eq!(t.decode(&ids), "Hello world, the quick brown fox.");
        assert_eq!(t.count("Hello world, the quick brown fox."), ids.len());
        assert_eq!(TokenCounter::name(&t), "cl100k_base");
        assert_eq!(t.count(" the"), 1);
    }

    #[test]
    fn o200k_is_selectable_by_name() {
        let t = Tokenizer::load(Some(Path::new("o200k_base"))).unwrap();
        assert_eq!(t.name(), "o200k_base");
        assert!(t.count("hello there") >= 2);
    }

    #[test]
    fn missing_file_names_the_path() {
        let err = Tokenizer::load(Some(Path::new("/nope/tokenizer.json"))).unwrap_err().to_string();
        assert!(err.starts_with("tokenizer /nope/tokenizer.json: no such file"), "{err}");
    }
}
