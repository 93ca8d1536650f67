//! Turning records into workload material: conversations from oasst2 trees (token counts
//! per message) or generated from the built-in corpus, custom prompts with their lengths,
//! and the shared system prompt of a cell.

use std::path::Path;
use std::sync::Arc;

use rand::Rng;

use crate::data::{oasst2, sharegpt};
use crate::definition::Dialog;
use crate::error::ScenarioError;
use crate::rng::stream_rng;
use crate::text::Corpus;
use crate::text::words::SYSTEM_PREAMBLE;
use crate::tokenizer::Tokenizer;
use crate::workload::custom::CustomPrompt;
use crate::workload::multi_turn::{Conversation, Turn};
use plateau_core::workload::{Message, Role};

/// Conversations generated when oasst2 is missing.
const BUILTIN_CONVERSATIONS: usize = 1_000;

/// The shared system prompt of a cell: the preamble and a window of the corpus, `tokens` long.
pub(super) fn system_prompt(corpus: &Corpus, tokens: u32, seed: u64) -> Option<String> {
    let preamble = corpus.tokenizer().count_many(&[SYSTEM_PREAMBLE])[0];
    let (head, body) = if tokens > preamble + 16 {
        (SYSTEM_PREAMBLE, tokens - preamble)
    } else {
        ("", tokens)
    };
    let w = corpus.pick(body, &mut stream_rng(seed, "system prompt"))?;
    Some(format!("{head}{}", corpus.text(w)))
}

pub(super) fn dialogs_from_oasst2(
    path: &Path,
    dialog: &Dialog,
    tokenizer: &Tokenizer,
) -> Result<Vec<Conversation>, ScenarioError> {
    let trees = oasst2::read(path, &dialog.lang)?;
    let texts: Vec<&str> = trees
        .iter()
        .flat_map(|t| t.nodes.iter().map(|n| n.text.as_str()))
        .collect();
    let counts = tokenizer.count_many(&texts);
    let mut out = Vec::new();
    let mut offset = 0;
    for tree in &trees {
        let shared: Vec<Arc<str>> = tree
            .nodes
            .iter()
            .map(|n| Arc::from(n.text.as_str()))
            .collect();
        let count = |i: u32| counts[offset + i as usize];
        for path in oasst2::paths(tree, dialog.paths) {
            let turns = path
                .chunks(2)
                .map(|pair| Turn {
                    user: shared[pair[0] as usize].clone(),
                    user_tokens: count(pair[0]),
                    reply: pair.get(1).map(|&r| shared[r as usize].clone()),
                    reply_tokens: pair.get(1).map_or(0, |&r| count(r)),
                })
                .collect();
            out.push(Conversation {
                id: tree.id.clone(),
                turns,
            });
        }
        offset += tree.nodes.len();
    }
    Ok(out)
}

/// Generated conversations of 2 to 6 turns: short user messages, longer replies.
pub(super) fn builtin_dialogs(corpus: &Corpus, seed: u64) -> Vec<Conversation> {
    let mut rng = stream_rng(seed, "built-in dialogs");
    let mut message = |lo: u32, hi: u32| {
        let tokens = rng.random_range(lo..=hi);
        corpus
            .pick(tokens, &mut rng)
            .map(|w| (Arc::<str>::from(corpus.text(w)), corpus.tokens(w)))
    };
    (0..BUILTIN_CONVERSATIONS)
        .map(|i| {
            let n = 2 + i % 5;
            let turns = (0..n)
                .filter_map(|_| {
                    let (user, user_tokens) = message(15, 120)?;
                    let (reply, reply_tokens) = message(40, 400)?;
                    Some(Turn {
                        user,
                        user_tokens,
                        reply: Some(reply),
                        reply_tokens,
                    })
                })
                .collect();
            Conversation {
                id: format!("built-in-{i}"),
                turns,
            }
        })
        .collect()
}

/// ShareGPT's first exchanges as prompts with their reply lengths, kept by vLLM's length
/// rule ([`sharegpt::keep`]) in tokens of `tokenizer`; also returns how many were dropped.
pub(super) fn pairs_from_sharegpt(
    path: &Path,
    tokenizer: &Tokenizer,
) -> Result<(Vec<CustomPrompt>, usize), ScenarioError> {
    let pairs = sharegpt::read(path)?;
    let total = pairs.len();
    let texts: Vec<&str> = pairs
        .iter()
        .flat_map(|p| [p.prompt.as_str(), p.reply.as_str()])
        .collect();
    let counts = tokenizer.count_many(&texts);
    let kept: Vec<CustomPrompt> = pairs
        .into_iter()
        .zip(counts.chunks(2))
        .filter(|(_, c)| sharegpt::keep(c[0], c[1]))
        .map(|(p, c)| CustomPrompt {
            messages: vec![Message::new(Role::User, p.prompt)],
            tokens: c[0],
            reply_tokens: Some(c[1]),
            line: None,
        })
        .collect();
    let dropped = total - kept.len();
    Ok((kept, dropped))
}

/// The stand-in for ShareGPT: the first turn of each built-in dialog, with its reply length.
pub(super) fn builtin_pairs(corpus: &Corpus, seed: u64) -> Vec<CustomPrompt> {
    builtin_dialogs(corpus, seed)
        .into_iter()
        .filter_map(|c| c.turns.into_iter().next())
        .map(|t| CustomPrompt {
            messages: vec![Message::new(Role::User, t.user.as_ref())],
            tokens: t.user_tokens,
            reply_tokens: Some(t.reply_tokens),
            line: None,
        })
        .collect()
}
