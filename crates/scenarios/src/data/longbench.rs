//! LongBench-v2 as normalised by `fetch-datasets`: `datasets/longbench/contexts.jsonl`, one
//! [`ContextRecord`] per line (the record's question and its context trimmed to what windows
//! need). B2 cuts its windows from the contexts and appends the questions.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::ScenarioError;

/// The normalised file, relative to `datasets_dir`.
pub const FILE: &str = "longbench/contexts.jsonl";

/// One LongBench-v2 record, normalised.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextRecord {
    /// Upstream `_id`.
    pub id: String,
    /// Upstream `domain`.
    pub domain: String,
    /// Upstream `length` (`short`, `medium`, `long`).
    pub length: String,
    /// Upstream `question`.
    pub question: String,
    /// Upstream `context`, cut at a character boundary to at most
    /// [`crate::fetch::longbench::MAX_CONTEXT_CHARS`] bytes.
    pub context: String,
}

/// The path of the normalised file under `datasets_dir`.
pub fn path(datasets_dir: &Path) -> PathBuf {
    datasets_dir.join(FILE)
}

/// Reads every record of `path`.
pub fn read(path: &Path) -> Result<Vec<ContextRecord>, ScenarioError> {
    let mut out = Vec::new();
    super::read_jsonl(
        path,
        "a LongBench record {id, domain, length, question, context}",
        |line, r: ContextRecord| {
            if r.context.trim().is_empty() {
                return Err(ScenarioError::data(
                    path,
                    Some(line),
                    "`context` is empty; expected the record's text",
                ));
            }
            out.push(r);
            Ok(())
        },
    )?;
    if out.is_empty() {
        return Err(ScenarioError::data(
            path,
            None,
            "no records; run `plateau fetch-datasets longbench` again",
        ));
    }
    Ok(out)
}
