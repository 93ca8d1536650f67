//! Prompt text: the built-in prose generator ([`words`]) and tokenized corpora with the one
//! window-cutting function ([`corpus`]), cached between runs (`cache`).

mod cache;
pub mod corpus;
mod doc;
pub mod words;

pub use corpus::{Corpus, Text, Window};
