//! A custom scenario's prompts file: where it is (inside the scenario's folder unless
//! `allow_outside`) and how long a prompt in it may be.

use std::path::{Component, Path, PathBuf};

use super::Settings;

/// The prompts file of a custom scenario, resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CustomFile {
    /// The file (resolved against the definition's directory).
    pub path: PathBuf,
    /// The definition's directory, where the file must be unless `allow_outside`.
    pub folder: PathBuf,
    /// `allow_outside: true`.
    pub allow_outside: bool,
    /// The longest prompt allowed, in tokens.
    pub max_prompt_tokens: u32,
}

/// The longest prompt a custom file may hold unless its scenario says otherwise, tokens.
pub const MAX_PROMPT_TOKENS: u32 = 1_000_000;

/// The custom scenario's file, relative to the definition's folder `base` and inside it
/// unless `allow_outside` (a link out of the folder is caught when the file is read).
pub(super) fn file(s: &Settings, base: &Path) -> Result<CustomFile, (String, String)> {
    let file = match &s.file {
        Some(f) if !f.as_os_str().is_empty() => f,
        _ => {
            return Err((
                "file".into(),
                "is required for kind custom: the path of a JSONL file of prompts".into(),
            ));
        }
    };
    let allow_outside = s.allow_outside.unwrap_or(false);
    let path = inside(
        file,
        base,
        allow_outside,
        "a custom scenario reads its prompts",
    )
    .map_err(|m| ("file".to_owned(), m))?;
    let max_prompt_tokens = s.max_prompt_tokens.unwrap_or(MAX_PROMPT_TOKENS);
    if max_prompt_tokens == 0 {
        return Err((
            "max_prompt_tokens".into(),
            "expected at least 1 token".into(),
        ));
    }
    Ok(CustomFile {
        path,
        folder: base.to_owned(),
        allow_outside,
        max_prompt_tokens,
    })
}

/// `file` resolved against the definition's folder `base`, which it must not leave unless
/// `allow_outside` (`who` says what reads it, in the error).
pub(super) fn inside(
    file: &Path,
    base: &Path,
    allow_outside: bool,
    who: &str,
) -> Result<PathBuf, String> {
    let leaves = file.is_absolute()
        || file
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir));
    if leaves && !allow_outside {
        return Err(format!(
            "`{}` leads out of this scenario's folder ({}); {who} from its own folder: move \
             the file there, or set \"allow_outside\": true to read it where it is",
            file.display(),
            base.display()
        ));
    }
    Ok(base.join(file))
}
