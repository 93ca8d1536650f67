//! What a configured `tokenizer` value names: an embedded BPE, a `tokenizer.json` file, or
//! a model on the Hugging Face hub (`owner/name[@revision]`).

use std::path::Path;

use super::DEFAULT;

/// What a configured `tokenizer` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source<'a> {
    /// An embedded BPE (`cl100k_base`, `o200k_base`).
    Embedded(&'static str),
    /// A `tokenizer.json` file.
    File(&'a Path),
    /// A model on the Hugging Face hub.
    Hub {
        /// `owner/name`.
        repo: &'a str,
        /// The revision after `@`; the default branch when absent.
        revision: Option<&'a str>,
    },
}

impl<'a> Source<'a> {
    /// Reads the configured value: nothing or an embedded name is an embedded BPE; an
    /// existing file is a `tokenizer.json`; else `owner/name[@revision]` is a hub model and
    /// anything else a file (that is missing).
    pub fn parse(config: Option<&'a Path>) -> Source<'a> {
        let Some(path) = config else {
            return Source::Embedded(DEFAULT);
        };
        match path.to_str() {
            Some("cl100k_base") => Source::Embedded(DEFAULT),
            Some("o200k_base") => Source::Embedded("o200k_base"),
            _ if path.is_file() => Source::File(path),
            Some(text) => hub_id(text).unwrap_or(Source::File(path)),
            None => Source::File(path),
        }
    }
}

/// `owner/name[@revision]` with hub-legal names (letters, digits, `-`, `_`, `.`); a name
/// ending in `.json` is a file.
fn hub_id(text: &str) -> Option<Source<'_>> {
    let (repo, revision) = match text.split_once('@') {
        Some((repo, rev)) if !rev.is_empty() && !rev.contains(char::is_whitespace) => {
            (repo, Some(rev))
        }
        Some(_) => return None,
        None => (text, None),
    };
    let (owner, name) = repo.split_once('/')?;
    let legal = |part: &str| {
        part.len() <= 96
            && part.starts_with(|c: char| c.is_ascii_alphanumeric())
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && !part.contains("..")
    };
    (legal(owner) && legal(name) && !name.ends_with(".json"))
        .then_some(Source::Hub { repo, revision })
}
