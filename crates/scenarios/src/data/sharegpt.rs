//! ShareGPT as normalised by `fetch-datasets`: `datasets/sharegpt/pairs.jsonl`, one
//! [`PairRecord`] per line (a conversation's first human message and the gpt reply to it).
//! S sends the prompts and, with `{"dist": "dataset"}`, asks for each reply's length.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::ScenarioError;

/// The normalised file, relative to `datasets_dir`.
pub const FILE: &str = "sharegpt/pairs.jsonl";

/// Pairs read at most: enough distinct prompts for long cells, few enough to tokenize in
/// about a second at the start of a run (the file holds about 90,000).
pub const MAX_PAIRS: usize = 20_000;

/// One conversation's first exchange.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairRecord {
    /// Upstream `id`.
    pub id: String,
    /// The first human message.
    pub prompt: String,
    /// The gpt reply to it.
    pub reply: String,
}

/// The path of the normalised file under `datasets_dir`.
pub fn path(datasets_dir: &Path) -> PathBuf {
    datasets_dir.join(FILE)
}

/// Reads the first [`MAX_PAIRS`] records of `path`.
pub fn read(path: &Path) -> Result<Vec<PairRecord>, ScenarioError> {
    let mut out = Vec::new();
    super::read_jsonl(
        path,
        "a ShareGPT pair {id, prompt, reply}",
        |line, r: PairRecord| {
            if r.prompt.trim().is_empty() || r.reply.trim().is_empty() {
                return Err(ScenarioError::data(
                    path,
                    Some(line),
                    "`prompt` or `reply` is empty; expected the conversation's first exchange",
                ));
            }
            if out.len() < MAX_PAIRS {
                out.push(r);
            }
            Ok(())
        },
    )?;
    Ok(out)
}

/// vLLM's rule for ShareGPT (`is_valid_sequence` in `vllm/benchmarks/datasets.py`): keep a
/// pair when prompt and reply are at least 4 tokens, the prompt at most 1,024 and both
/// together at most 2,048.
pub fn keep(prompt_tokens: u32, reply_tokens: u32) -> bool {
    prompt_tokens >= 4
        && reply_tokens >= 4
        && prompt_tokens <= 1024
        && u64::from(prompt_tokens) + u64::from(reply_tokens) <= 2048
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_what_vllm_keeps() {
        assert!(keep(4, 4));
        assert!(!keep(3, 100), "prompt too short");
        assert!(!keep(100, 3), "reply too short");
        assert!(!keep(1025, 10), "prompt too long");
        assert!(keep(1024, 1024));
        assert!(!keep(1000, 1049), "together too long");
    }
}
