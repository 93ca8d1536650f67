//! Normalising LongBench-v2's `data.json` (one JSON array of 503 records, ~465 MB) into
//! `longbench/contexts.jsonl`: the array is read element by element with a serde `SeqAccess`
//! visitor over a buffered reader (never whole in memory), and each record's context is cut
//! to [`MAX_CONTEXT_CHARS`], enough for many distinct windows of a few thousand tokens.

use std::fmt;
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};

use super::{FetchError, write_atomic};
use crate::data::longbench::ContextRecord;

/// The longest context kept, in bytes (about 10,000 tokens of English).
pub const MAX_CONTEXT_CHARS: usize = 40_000;

/// An upstream record: the fields B2 uses (the others are ignored).
#[derive(Deserialize)]
struct Upstream {
    _id: String,
    domain: String,
    length: String,
    question: String,
    context: String,
}

/// Normalises `raw` into `out`; returns the number of records.
pub fn normalise(raw: &Path, out: &Path) -> Result<u64, FetchError> {
    let file = std::fs::File::open(raw).map_err(|e| FetchError::io(raw, e))?;
    let mut de = serde_json::Deserializer::from_reader(BufReader::with_capacity(1 << 20, file));
    let count = write_atomic(out, |w| {
        let n = de
            .deserialize_seq(Records { out: w })
            .map_err(|e| FetchError::Normalise {
                file: raw.into(),
                message: format!("{e}; expected a JSON array of LongBench-v2 records"),
            })?;
        de.end().map_err(|e| FetchError::Normalise {
            file: raw.into(),
            message: format!("after the array: {e}"),
        })?;
        Ok(n)
    })?;
    if count == 0 {
        return Err(FetchError::Normalise {
            file: raw.into(),
            message: "the array is empty; expected LongBench-v2 records".into(),
        });
    }
    Ok(count)
}

struct Records<'a> {
    out: &'a mut BufWriter<std::fs::File>,
}

impl<'de> Visitor<'de> for Records<'_> {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON array of LongBench-v2 records")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u64, A::Error> {
        let mut n = 0u64;
        loop {
            let record = match seq.next_element::<Upstream>() {
                Ok(Some(r)) => r,
                Ok(None) => return Ok(n),
                Err(e) => return Err(de::Error::custom(format_args!("record {n}: {e}"))),
            };
            let normalised = ContextRecord {
                id: record._id,
                domain: record.domain,
                length: record.length,
                question: record.question,
                context: trim(&record.context, MAX_CONTEXT_CHARS).to_owned(),
            };
            serde_json::to_writer(&mut *self.out, &normalised).map_err(de::Error::custom)?;
            self.out.write_all(b"\n").map_err(de::Error::custom)?;
            n += 1;
        }
    }
}

/// At most `max` bytes of `text`, cut at a character boundary and, when one is near, after
/// the last whitespace.
fn trim(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = &text[..end];
    match cut.rfind(char::is_whitespace) {
        Some(ws) if ws + 500 >= end => &cut[..ws],
        _ => cut,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_cuts_at_a_word_and_a_char_boundary() {
        assert_eq!(trim("short", 10), "short");
        assert_eq!(trim("one two three", 9), "one two");
        let s = "é".repeat(10);
        assert_eq!(trim(&s, 5), "éé");
    }
}
