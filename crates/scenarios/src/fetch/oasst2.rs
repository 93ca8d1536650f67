//! Normalising oasst2's `*_ready.trees.jsonl.gz` (one conversation tree per line, nested
//! `replies`) into `oasst2/trees.jsonl`: trees ready for export, flattened to nodes (parents
//! first) with only role, rank and text, deleted messages and their replies left out.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;

use flate2::read::GzDecoder;
use serde::Deserialize;

use super::{FetchError, write_atomic};
use crate::data::oasst2::{Author, NodeRecord, TreeRecord};

#[derive(Deserialize)]
struct UpstreamTree {
    message_tree_id: String,
    tree_state: String,
    prompt: UpstreamNode,
}

#[derive(Deserialize)]
struct UpstreamNode {
    text: String,
    role: UpstreamRole,
    #[serde(default)]
    lang: Option<String>,
    #[serde(default)]
    rank: Option<u32>,
    #[serde(default)]
    deleted: Option<bool>,
    #[serde(default)]
    replies: Vec<UpstreamNode>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum UpstreamRole {
    Prompter,
    Assistant,
}

/// Normalises `raw` into `out`; returns the number of trees written.
pub fn normalise(raw: &Path, out: &Path) -> Result<u64, FetchError> {
    let file = std::fs::File::open(raw).map_err(|e| FetchError::io(raw, e))?;
    let lines = BufReader::with_capacity(1 << 20, GzDecoder::new(BufReader::new(file))).lines();
    let bad = |line: usize, m: String| FetchError::Normalise {
        file: raw.into(),
        message: format!("line {line}: {m}"),
    };
    let count = write_atomic(out, |w| {
        let mut n = 0u64;
        for (i, line) in lines.enumerate() {
            let line =
                line.map_err(|e| bad(i + 1, format!("{e}; expected gzip-compressed JSON lines")))?;
            if line.trim().is_empty() {
                continue;
            }
            let tree: UpstreamTree = serde_json::from_str(&line).map_err(|e| {
                bad(
                    i + 1,
                    format!("{e}; expected an oasst2 tree {{message_tree_id, tree_state, prompt}}"),
                )
            })?;
            if tree.tree_state != "ready_for_export" || tree.prompt.deleted == Some(true) {
                continue;
            }
            let lang = tree.prompt.lang.clone().unwrap_or_else(|| "unknown".into());
            let mut nodes = Vec::new();
            flatten(tree.prompt, None, &mut nodes);
            let record = TreeRecord {
                id: tree.message_tree_id,
                lang,
                nodes,
            };
            serde_json::to_writer(&mut *w, &record).map_err(|e| FetchError::io(out, e.into()))?;
            w.write_all(b"\n").map_err(|e| FetchError::io(out, e))?;
            n += 1;
        }
        Ok(n)
    })?;
    if count == 0 {
        return Err(FetchError::Normalise {
            file: raw.into(),
            message: "no tree ready for export; expected oasst2 trees".into(),
        });
    }
    Ok(count)
}

/// Appends `node` and its live replies in pre-order (parents before children).
fn flatten(node: UpstreamNode, parent: Option<u32>, out: &mut Vec<NodeRecord>) {
    let index = out.len() as u32;
    let role = match node.role {
        UpstreamRole::Prompter => Author::User,
        UpstreamRole::Assistant => Author::Assistant,
    };
    out.push(NodeRecord {
        parent,
        role,
        rank: node.rank,
        text: node.text,
    });
    for reply in node.replies {
        if reply.deleted != Some(true) {
            flatten(reply, Some(index), out);
        }
    }
}
