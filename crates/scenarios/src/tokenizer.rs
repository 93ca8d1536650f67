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
            Some("o200k_base") => Ok(Tokenizer::Bpe {
                name: "o200k_base",
                bpe: tiktoken_rs::o200k_base_singleton(),
            }),
            Some(_) => Tokenizer::from_file(config.unwrap_or(Path::new(""))),
        }
    }

    /// The default embedded BPE.
    pub fn embedded_cl100k() -> Tokenizer {
        Tokenizer::Bpe {
            name: DEFAULT,
            bpe: tiktoken_rs::cl100k_base_singleton(),
        }
    }

    /// A Hugging Face `tokenizer.json`.
    pub fn from_file(path: &Path) -> Result<Tokenizer, TokenizerError> {
        let err = |message: String| TokenizerError {
            path: path.to_owned(),
            message,
        };
        if !path.is_file() {
            return Err(err("no such file; expected a Hugging Face tokenizer.json or one of cl100k_base, o200k_base".into()));
        }
        let inner = tokenizers::Tokenizer::from_file(path)
            .map_err(|e| err(format!("not a valid tokenizer.json: {e}")))?;
        Ok(Tokenizer::HuggingFace {
            path: path.to_owned(),
            inner: Box::new(inner),
        })
    }

    /// Token ids of `text` (no special tokens added).
    pub fn encode(&self, text: &str) -> Vec<u32> {
        match self {
            Tokenizer::Bpe { bpe, .. } => bpe.encode_ordinary(text),
            Tokenizer::HuggingFace { inner, .. } => inner
                .encode_fast(text, false)
                .map(|e| e.get_ids().to_vec())
                .unwrap_or_default(),
        }
    }

    /// Text of `ids`; bytes that do not form whole characters are replaced.
    pub fn decode(&self, ids: &[u32]) -> String {
        match self {
            Tokenizer::Bpe { bpe, .. } => bpe
                .decode_bytes(ids)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default(),
            Tokenizer::HuggingFace { inner, .. } => inner.decode(ids, false).unwrap_or_default(),
        }
    }

    /// The first and last byte of token `id`'s text (`0` when unknown), used to find word
    /// starts: byte-level BPE markers (`Ġ`, `▁`, `Ċ`) count as a space or a newline.
    pub fn token_edges(&self, id: u32) -> (u8, u8) {
        match self {
            Tokenizer::Bpe { bpe, .. } => match bpe.decode_bytes(&[id]) {
                Ok(b) => (
                    b.first().copied().unwrap_or(0),
                    b.last().copied().unwrap_or(0),
                ),
                Err(_) => (0, 0),
            },
            Tokenizer::HuggingFace { inner, .. } => {
                let byte = |c: Option<char>| match c {
                    Some('Ġ' | '▁' | ' ') => b' ',
                    Some('Ċ' | '\n') => b'\n',
                    Some(c) if c.is_ascii() => c as u8,
                    Some(_) => b'x',
                    None => 0,
                };
                let token = inner.id_to_token(id).unwrap_or_default();
                (byte(token.chars().next()), byte(token.chars().last()))
            }
        }
    }

    /// Token ids of each of `texts`, tokenized on every core.
    pub fn encode_many(&self, texts: &[&str]) -> Vec<Vec<u32>> {
        self.map_many(texts, |t| self.encode(t))
    }

    /// Token counts of each of `texts`, counted on every core.
    pub fn count_many(&self, texts: &[&str]) -> Vec<u32> {
        self.map_many(texts, |t| {
            u32::try_from(TokenCounter::count(self, t)).unwrap_or(u32::MAX)
        })
    }

    fn map_many<T: Send>(&self, texts: &[&str], f: impl Fn(&str) -> T + Sync) -> Vec<T> {
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(8);
        let total: usize = texts.iter().map(|t| t.len()).sum();
        if threads == 1 || total < 1 << 20 {
            return texts.iter().map(|t| f(t)).collect();
        }
        let chunk = texts.len().div_ceil(threads).max(1);
        std::thread::scope(|s| {
            let f = &f;
            let handles: Vec<_> = texts
                .chunks(chunk)
                .map(|part| s.spawn(move || part.iter().map(|t| f(t)).collect::<Vec<T>>()))
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        })
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
        let err = Tokenizer::load(Some(Path::new("/nope/tokenizer.json")))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("tokenizer /nope/tokenizer.json: no such file"),
            "{err}"
        );
    }
}
