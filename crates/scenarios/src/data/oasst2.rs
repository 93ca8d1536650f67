//! oasst2 as normalised by `fetch-datasets`: `datasets/oasst2/trees.jsonl`, one
//! [`TreeRecord`] per line (a conversation tree flattened to nodes, parents first). D turns
//! trees into [`Path`]s: the rank-0 reply at each level, or every root-to-leaf path, cut to
//! alternating user/assistant turns.

use std::path::{Path as FsPath, PathBuf};

use serde::{Deserialize, Serialize};

use crate::definition::Paths;
use crate::error::ScenarioError;

/// The normalised file, relative to `datasets_dir`.
pub const FILE: &str = "oasst2/trees.jsonl";

/// Who wrote a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Author {
    /// Upstream `prompter`.
    User,
    /// Upstream `assistant`.
    Assistant,
}

/// One message of a tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeRecord {
    /// Index of the parent node (`None` for the root); always less than this node's index.
    pub parent: Option<u32>,
    /// Who wrote it.
    pub role: Author,
    /// Upstream `rank` among its siblings (0 is best), when ranked.
    pub rank: Option<u32>,
    /// The text.
    pub text: String,
}

/// One conversation tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeRecord {
    /// Upstream `message_tree_id`.
    pub id: String,
    /// The root message's language.
    pub lang: String,
    /// Nodes, root first, parents before children.
    pub nodes: Vec<NodeRecord>,
}

/// A conversation: node indices of one tree, alternating user and assistant, user first.
pub type Path = Vec<u32>;

/// The path of the normalised file under `datasets_dir`.
pub fn path(datasets_dir: &FsPath) -> PathBuf {
    datasets_dir.join(FILE)
}

/// Reads the trees of `path` whose language is in `lang` (`*` matches any).
pub fn read(path: &FsPath, lang: &[String]) -> Result<Vec<TreeRecord>, ScenarioError> {
    let any = lang.iter().any(|l| l == "*");
    let mut out = Vec::new();
    super::read_jsonl(
        path,
        "an oasst2 tree {id, lang, nodes: [{parent, role, rank, text}]}",
        |line, t: TreeRecord| {
            for (i, n) in t.nodes.iter().enumerate() {
                if n.parent.is_some_and(|p| p as usize >= i) || (i > 0) != n.parent.is_some() {
                    return Err(ScenarioError::data(
                        path,
                        Some(line),
                        format!(
                            "node {i}: expected the root first and every parent before its children"
                        ),
                    ));
                }
            }
            if any || lang.contains(&t.lang) {
                out.push(t);
            }
            Ok(())
        },
    )?;
    Ok(out)
}

/// The conversations of `tree`: one (rank 0 at each level) or every root-to-leaf path.
pub fn paths(tree: &TreeRecord, which: Paths) -> Vec<Path> {
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); tree.nodes.len()];
    for (i, n) in tree.nodes.iter().enumerate() {
        if let Some(p) = n.parent {
            children[p as usize].push(i as u32);
        }
    }
    let mut out = Vec::new();
    if tree.nodes.is_empty() {
        return out;
    }
    match which {
        Paths::Rank0 => {
            let mut path = vec![0u32];
            while let Some(best) = children[*path.last().unwrap_or(&0) as usize]
                .iter()
                .min_by_key(|&&c| (tree.nodes[c as usize].rank.unwrap_or(u32::MAX), c))
            {
                path.push(*best);
            }
            out.push(path);
        }
        Paths::All => {
            let mut stack = vec![vec![0u32]];
            while let Some(path) = stack.pop() {
                let kids = &children[*path.last().unwrap_or(&0) as usize];
                if kids.is_empty() {
                    out.push(path);
                } else {
                    for &k in kids.iter().rev() {
                        let mut p = path.clone();
                        p.push(k);
                        stack.push(p);
                    }
                }
            }
        }
    }
    out.into_iter()
        .map(|p| alternating(tree, p))
        .filter(|p| !p.is_empty())
        .collect()
}

/// The longest prefix of `path` that alternates user, assistant, user, ...
fn alternating(tree: &TreeRecord, path: Path) -> Path {
    let expected = |i: usize| {
        if i.is_multiple_of(2) {
            Author::User
        } else {
            Author::Assistant
        }
    };
    path.into_iter()
        .enumerate()
        .take_while(|&(i, n)| tree.nodes[n as usize].role == expected(i))
        .map(|(_, n)| n)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(parent: Option<u32>, role: Author, rank: Option<u32>, text: &str) -> NodeRecord {
        NodeRecord {
            parent,
            role,
            rank,
            text: text.into(),
        }
    }

    fn tree() -> TreeRecord {
        use Author::*;
        TreeRecord {
            id: "t".into(),
            lang: "en".into(),
            nodes: vec![
                node(None, User, None, "q0"),
                node(Some(0), Assistant, Some(1), "a0-second"),
                node(Some(0), Assistant, Some(0), "a0-best"),
                node(Some(2), User, None, "q1"),
                node(Some(3), Assistant, None, "a1"),
                node(Some(1), User, None, "q1-other"),
            ],
        }
    }

    #[test]
    fn rank0_follows_the_best_reply_and_all_lists_every_leaf() {
        assert_eq!(paths(&tree(), Paths::Rank0), vec![vec![0, 2, 3, 4]]);
        assert_eq!(
            paths(&tree(), Paths::All),
            vec![vec![0, 1, 5], vec![0, 2, 3, 4]]
        );
    }

    #[test]
    fn a_path_stops_where_roles_stop_alternating() {
        let mut t = tree();
        t.nodes[4].role = Author::User;
        assert_eq!(paths(&t, Paths::Rank0), vec![vec![0, 2, 3]]);
    }
}
