//! A multi-turn scenario's settings resolved ([`Dialog`]), and the `think` setting every
//! session kind checks the same way.

use plateau_model::config::Think;

use super::{Paths, Replies, Settings, Source};

/// Multi-turn settings, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct Dialog {
    /// `oasst2` or `built_in`.
    pub source: Source,
    /// Language codes to keep (`*`: all).
    pub lang: Vec<String>,
    /// Which tree paths.
    pub paths: Paths,
    /// Whose replies.
    pub replies: Replies,
    /// Context limit in tokens.
    pub max_context_tokens: u32,
    /// Fewest user turns.
    pub min_turns: u32,
    /// Think time between a reply and the next turn (none: at once).
    pub think: Option<Think>,
}

/// The `think` setting, checked; errors name `think.<field>`.
pub(super) fn think(s: &Settings) -> Result<Option<Think>, (String, String)> {
    if let Some(think) = &s.think {
        think
            .check()
            .map_err(|(field, message)| (format!("think.{field}"), message))?;
    }
    Ok(s.think)
}

pub(super) fn dialog(s: &Settings, source: Source) -> Result<Dialog, (String, String)> {
    let lang = s.lang.clone().unwrap_or_else(|| vec!["en".into()]);
    if lang.is_empty() || lang.iter().any(|l| l.trim().is_empty()) {
        return Err((
            "lang".into(),
            "expected a list of language codes such as [\"en\"], or [\"*\"] for all".into(),
        ));
    }
    let max_context_tokens = s.max_context_tokens.unwrap_or(8192);
    if max_context_tokens < 16 {
        return Err((
            "max_context_tokens".into(),
            format!("{max_context_tokens} is too small; expected at least 16 tokens"),
        ));
    }
    let min_turns = s.min_turns.unwrap_or(2);
    if min_turns == 0 {
        return Err(("min_turns".into(), "expected at least 1 turn".into()));
    }
    Ok(Dialog {
        source,
        lang,
        paths: s.paths.unwrap_or_default(),
        replies: s.replies.unwrap_or_default(),
        max_context_tokens,
        min_turns,
        think: think(s)?,
    })
}
