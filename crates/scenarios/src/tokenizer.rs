//! The client tokenizer: an embedded BPE (`cl100k_base` by default, or `o200k_base`), a
//! user's Hugging Face `tokenizer.json`, or the `tokenizer.json` of a model on the Hugging
//! Face hub (`owner/name`, optionally `owner/name@revision`), downloaded through the hub
//! cache ([`plateau_hub`]). Prompt lengths are targets in its tokens, and it counts
//! output when the server sends no usage.

use std::path::Path;

use plateau_core::tokens::TokenCounter;
use tiktoken_rs::CoreBPE;

use plateau_hub::{self as hub, Hub, RepoFile};

mod memo;
mod source;

use memo::Memo;
pub use source::Source;

/// Why a tokenizer could not be loaded.
#[derive(Debug, thiserror::Error)]
#[error("tokenizer {path}: {message}")]
pub struct TokenizerError {
    /// The configured path, name or model id.
    pub path: String,
    /// What went wrong.
    pub message: String,
}

/// A loaded tokenizer.
pub struct Tokenizer {
    kind: Kind,
    /// Counts of short texts seen before (streamed chunks).
    memo: Memo,
}

enum Kind {
    /// An embedded tiktoken BPE, built on first use.
    Bpe {
        /// Encoding name.
        name: &'static str,
        /// The encoder's singleton.
        bpe: fn() -> &'static CoreBPE,
    },
    /// A Hugging Face `tokenizer.json`.
    HuggingFace {
        /// What was loaded: the file's path, or `owner/name@commit` for a hub model.
        name: String,
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
    /// Loads the configured tokenizer ([`Source::parse`] says what it names); a hub model's
    /// `tokenizer.json` comes from the hub cache, downloaded first when it is not there,
    /// with the hub settings read through `env` ([`Hub::from_env`]). Blocks while it
    /// downloads.
    pub fn load(
        config: Option<&Path>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Tokenizer, TokenizerError> {
        match Source::parse(config) {
            Source::Embedded("o200k_base") => Ok(Tokenizer::embedded(
                "o200k_base",
                tiktoken_rs::o200k_base_singleton,
            )),
            Source::Embedded(_) => Ok(Tokenizer::embedded_cl100k()),
            Source::File(path) => Tokenizer::from_file(path),
            Source::Hub { repo, revision } => {
                Tokenizer::from_hub(repo, revision, &Hub::from_env(env), &|e| match e {
                    hub::Event::Message(m) => tracing::warn!("tokenizer {repo}: {m}"),
                    hub::Event::Start { total, done } => tracing::info!(
                        "tokenizer {repo}: downloading tokenizer.json ({} of {total} bytes to go)",
                        total.saturating_sub(done)
                    ),
                    hub::Event::Advance(_) | hub::Event::Finish => {}
                })
                .map_err(|message| TokenizerError {
                    path: config.map(|p| p.display().to_string()).unwrap_or_default(),
                    message: format!(
                        "read as a Hugging Face model id (no file of that name exists): {message}"
                    ),
                })
            }
        }
    }

    /// The default embedded BPE.
    pub fn embedded_cl100k() -> Tokenizer {
        Tokenizer::embedded(DEFAULT, tiktoken_rs::cl100k_base_singleton)
    }

    /// An embedded BPE, built where it is first used. Building cl100k takes tens of
    /// milliseconds; a run whose prompts come from the corpus cache
    /// ([`crate::text::Corpus::cached`]) sends its first request without it, and the first
    /// count (the recorder's, when the first reply ends) builds it.
    fn embedded(name: &'static str, bpe: fn() -> &'static CoreBPE) -> Tokenizer {
        Tokenizer::from_kind(Kind::Bpe { name, bpe })
    }

    fn from_kind(kind: Kind) -> Tokenizer {
        Tokenizer {
            kind,
            memo: Memo::default(),
        }
    }

    /// Whether decoding is concatenating each token's bytes (a tiktoken BPE), so the text
    /// of a run of tokens is the slice of the source text they were encoded from.
    pub fn decodes_by_bytes(&self) -> bool {
        matches!(self.kind, Kind::Bpe { .. })
    }

    /// Bytes in token `id`'s text (by [`Tokenizer::decode`]).
    pub fn token_len(&self, id: u32) -> usize {
        match &self.kind {
            Kind::Bpe { bpe, .. } => bpe().decode_bytes(&[id]).map_or(0, |b| b.len()),
            Kind::HuggingFace { .. } => self.decode(&[id]).len(),
        }
    }

    /// A Hugging Face `tokenizer.json`.
    pub fn from_file(path: &Path) -> Result<Tokenizer, TokenizerError> {
        let err = |message: String| TokenizerError {
            path: path.display().to_string(),
            message,
        };
        if !path.is_file() {
            return Err(err("no such file; expected a tokenizer.json path, a Hugging Face model id (owner/name or owner/name@revision) or one of cl100k_base, o200k_base".into()));
        }
        let inner = tokenizers::Tokenizer::from_file(path)
            .map_err(|e| err(format!("not a valid tokenizer.json: {e}")))?;
        Ok(Tokenizer::from_kind(Kind::HuggingFace {
            name: path.display().to_string(),
            inner: Box::new(inner),
        }))
    }

    /// The `tokenizer.json` of hub model `repo` at `revision` (default branch if `None`),
    /// from `hub`'s cache or downloaded into it ([`Hub::get`]: a branch or tag is checked
    /// for a newer commit first); named `repo@commit`. `events` hears what the download
    /// and the check report.
    pub fn from_hub(
        repo: &str,
        revision: Option<&str>,
        hub: &Hub,
        events: &dyn Fn(hub::Event),
    ) -> Result<Tokenizer, String> {
        let file = RepoFile {
            repo,
            kind: hub::Kind::Model,
            revision: revision.unwrap_or("main"),
            file: "tokenizer.json",
        };
        let got = hub
            .get_bounded(&file, false, 3, events)
            .map_err(|e| e.to_string())?;
        let inner = tokenizers::Tokenizer::from_file(&got.path)
            .map_err(|e| format!("{} is not a valid tokenizer.json: {e}", got.path.display()))?;
        Ok(Tokenizer::from_kind(Kind::HuggingFace {
            name: format!("{repo}@{}", got.commit.as_deref().unwrap_or(file.revision)),
            inner: Box::new(inner),
        }))
    }

    /// Token ids of `text` (no special tokens added).
    pub fn encode(&self, text: &str) -> Vec<u32> {
        match &self.kind {
            Kind::Bpe { bpe, .. } => bpe().encode_ordinary(text),
            Kind::HuggingFace { inner, .. } => inner
                .encode_fast(text, false)
                .map(|e| e.get_ids().to_vec())
                .unwrap_or_default(),
        }
    }

    /// Text of `ids`; bytes that do not form whole characters are replaced.
    pub fn decode(&self, ids: &[u32]) -> String {
        match &self.kind {
            Kind::Bpe { bpe, .. } => bpe()
                .decode_bytes(ids)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default(),
            Kind::HuggingFace { inner, .. } => inner.decode(ids, false).unwrap_or_default(),
        }
    }

    /// The first and last byte of token `id`'s text (`0` when unknown), used to find word
    /// starts: byte-level BPE markers (`Ġ`, `▁`, `Ċ`) count as a space or a newline.
    pub fn token_edges(&self, id: u32) -> (u8, u8) {
        match &self.kind {
            Kind::Bpe { bpe, .. } => match bpe().decode_bytes(&[id]) {
                Ok(b) => (
                    b.first().copied().unwrap_or(0),
                    b.last().copied().unwrap_or(0),
                ),
                Err(_) => (0, 0),
            },
            Kind::HuggingFace { inner, .. } => {
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
        match &self.kind {
            Kind::Bpe { name, .. } => (*name).to_owned(),
            Kind::HuggingFace { name, .. } => name.clone(),
        }
    }
}

impl TokenCounter for Tokenizer {
    fn count(&self, text: &str) -> usize {
        self.memo.count(text, |text| match &self.kind {
            Kind::Bpe { bpe, .. } => bpe().count_ordinary(text),
            Kind::HuggingFace { .. } => self.encode(text).len(),
        })
    }

    fn name(&self) -> String {
        Tokenizer::name(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn embedded_bpe_round_trips_and_counts() {
        let t = Tokenizer::load(None, &no_env).unwrap();
        let ids = t.encode("Hello world, the quick brown fox.");
        assert_eq!(t.decode(&ids), "Hello world, the quick brown fox.");
        assert_eq!(t.count("Hello world, the quick brown fox."), ids.len());
        assert_eq!(TokenCounter::name(&t), "cl100k_base");
        assert_eq!(t.count(" the"), 1);
    }

    #[test]
    fn o200k_is_selectable_by_name() {
        let t = Tokenizer::load(Some(Path::new("o200k_base")), &no_env).unwrap();
        assert_eq!(t.name(), "o200k_base");
        assert!(t.count("hello there") >= 2);
    }

    #[test]
    fn missing_file_names_the_path_and_what_was_expected() {
        let err = Tokenizer::load(Some(Path::new("/nope/tokenizer.json")), &no_env)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("tokenizer /nope/tokenizer.json: no such file; expected a tokenizer.json path, a Hugging Face model id"),
            "{err}"
        );
    }

    #[test]
    fn a_value_is_a_file_if_it_exists_else_a_model_id_of_the_right_shape() {
        let p = |s: &'static str| Source::parse(Some(Path::new(s)));
        assert_eq!(Source::parse(None), Source::Embedded("cl100k_base"));
        assert_eq!(p("o200k_base"), Source::Embedded("o200k_base"));
        assert_eq!(
            p("meta-llama/Llama-3.1-8B-Instruct"),
            Source::Hub {
                repo: "meta-llama/Llama-3.1-8B-Instruct",
                revision: None
            }
        );
        assert_eq!(
            p("Qwen/Qwen2.5-7B-Instruct@a09a354"),
            Source::Hub {
                repo: "Qwen/Qwen2.5-7B-Instruct",
                revision: Some("a09a354")
            }
        );
        for file in [
            "models/tokenizer.json",
            "/abs/owner/name",
            "./owner/name",
            "gpt2",
            "a/b/c",
            "o/n@",
            "../x",
        ] {
            assert_eq!(p(file), Source::File(Path::new(file)), "{file}");
        }
    }
}
