//! Prompt text: the built-in prose generator ([`words`]) and tokenized corpora with the one
//! window-cutting function ([`corpus`]), cached between runs (`cache`).

mod cache;
pub mod corpus;
pub mod words;

pub use cache::dir as cache_dir;
pub use corpus::{Corpus, Text, Window};
