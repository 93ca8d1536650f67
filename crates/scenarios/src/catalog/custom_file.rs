//! A custom scenario's prompts file, read as a careful operator expects: inside its
//! scenario's folder (a link out of it is refused unless `allow_outside`), streamed line by
//! line, each line bounded in bytes and each prompt in tokens (`max_prompt_tokens`), a
//! prompt past the bound an error naming the file and line, found as the file is read.

use std::path::Path;

use plateau_core::workload::Message;

use crate::data::custom;
use crate::definition::CustomFile;
use crate::error::ScenarioError;
use crate::tokenizer::Tokenizer;
use crate::workload::custom::CustomPrompt;

/// Bytes a token may take in a JSONL line at most, as far as line lengths go: a line longer
/// than `max_prompt_tokens` times this cannot hold an allowed prompt (a token is a few bytes
/// of text; a CJK character escaped as `\uXXXX` is 6).
const BYTES_PER_TOKEN: usize = 16;

/// Prompts counted together (the tokenizer spreads a batch over the cores).
const BATCH: usize = 4096;

/// A prompt longer than this, in bytes, is counted piece by piece and given up on once past
/// the bound, so that a huge one costs no more counting than an allowed one.
const PIECE: usize = 1 << 20;

/// The prompts of `file` with their lengths in tokens of `tokenizer` and their lines.
pub(super) fn prompts(
    file: &CustomFile,
    tokenizer: &Tokenizer,
) -> Result<Vec<CustomPrompt>, ScenarioError> {
    inside_its_folder(file)?;
    let cap = file.max_prompt_tokens;
    let max_line = (cap as usize).saturating_mul(BYTES_PER_TOKEN);
    let too_long = |_| {
        format!(
            "the line is over {max_line} bytes, longer than any prompt of at most {cap} \
             tokens (max_prompt_tokens); plateau stopped reading it: shorten it, or raise \
             max_prompt_tokens in the scenario's definition"
        )
    };
    let mut out = Vec::new();
    let mut batch: Vec<(usize, Vec<Message>)> = Vec::new();
    custom::stream(&file.path, max_line, too_long, |line, messages| {
        batch.push((line, messages));
        if batch.len() == BATCH {
            count(&mut batch, &mut out, file, tokenizer)?;
        }
        Ok(())
    })?;
    count(&mut batch, &mut out, file, tokenizer)?;
    Ok(out)
}

/// Counts the prompts of `batch` into `out`; an error names the first past the bound.
fn count(
    batch: &mut Vec<(usize, Vec<Message>)>,
    out: &mut Vec<CustomPrompt>,
    file: &CustomFile,
    tokenizer: &Tokenizer,
) -> Result<(), ScenarioError> {
    let cap = file.max_prompt_tokens;
    let texts: Vec<&str> = batch
        .iter()
        .flat_map(|(_, ms)| ms.iter().map(|m| m.content.as_str()))
        .filter(|t| t.len() <= PIECE)
        .collect();
    let mut counts = tokenizer.count_many(&texts).into_iter();
    for (line, messages) in batch.drain(..) {
        let mut tokens: u64 = 0;
        for m in &messages {
            tokens += match m.content.len() <= PIECE {
                true => u64::from(counts.next().unwrap_or(0)),
                false => capped(
                    tokenizer,
                    &m.content,
                    u64::from(cap) - tokens.min(u64::from(cap)),
                ),
            };
        }
        if tokens > u64::from(cap) {
            return Err(ScenarioError::data(
                &file.path,
                Some(line),
                format!(
                    "the prompt is over {cap} tokens of {} (max_prompt_tokens); shorten it, or \
                     raise max_prompt_tokens in the scenario's definition",
                    tokenizer.name()
                ),
            ));
        }
        out.push(CustomPrompt {
            messages,
            tokens: u32::try_from(tokens).unwrap_or(u32::MAX),
            reply_tokens: None,
            line: u32::try_from(line).ok(),
        });
    }
    Ok(())
}

/// The tokens of `text`, counted [`PIECE`] by piece (cut at whitespace where it can be)
/// until past `left`: then the count so far, which is over it.
fn capped(tokenizer: &Tokenizer, text: &str, left: u64) -> u64 {
    let mut total = 0;
    let mut rest = text;
    while !rest.is_empty() && total <= left {
        let mut cut = rest.len().min(PIECE);
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        if cut < rest.len()
            && let Some(space) = rest[..cut].rfind(char::is_whitespace).filter(|&i| i > 0)
        {
            cut = space;
        }
        total += u64::from(tokenizer.count_many(&[&rest[..cut]])[0]);
        rest = &rest[cut..];
    }
    total
}

/// An error when `file` lies (through a link) outside its scenario's folder and may not.
fn inside_its_folder(file: &CustomFile) -> Result<(), ScenarioError> {
    if file.allow_outside {
        return Ok(());
    }
    let real = |p: &Path| std::fs::canonicalize(p).map_err(|e| ScenarioError::io(p, e));
    let (path, folder) = (real(&file.path)?, real(&file.folder)?);
    if path.starts_with(&folder) {
        return Ok(());
    }
    Err(ScenarioError::data(
        &file.path,
        None,
        format!(
            "is a link to {}, outside this scenario's folder ({}); a custom scenario reads \
             its prompts from its own folder: set \"allow_outside\": true to read it there",
            path.display(),
            file.folder.display()
        ),
    ))
}

#[cfg(test)]
mod tests;
