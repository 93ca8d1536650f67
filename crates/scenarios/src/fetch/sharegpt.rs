//! Normalising ShareGPT's `ShareGPT_V3_unfiltered_cleaned_split.json` (one JSON array of
//! about 94,000 conversations, ~640 MB) into `sharegpt/pairs.jsonl`: the array is read
//! element by element (never whole in memory), and each conversation that opens with a
//! human message answered by gpt becomes one pair. vLLM takes the first two turns whatever
//! their roles; a pair here is always a question and its answer. Token lengths depend on
//! the run's tokenizer, so vLLM's length filter is applied when S loads the pairs
//! ([`crate::data::sharegpt::keep`]).

use std::fmt;
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};

use super::{FetchError, write_atomic};
use crate::data::sharegpt::PairRecord;

/// An upstream conversation: the fields S uses (the others are ignored).
#[derive(Deserialize)]
struct Upstream {
    id: String,
    #[serde(default)]
    conversations: Vec<Turn>,
}

#[derive(Deserialize)]
struct Turn {
    from: String,
    value: String,
}

/// Normalises `raw` into `out`; returns the number of pairs written.
pub fn normalise(raw: &Path, out: &Path) -> Result<u64, FetchError> {
    let file = std::fs::File::open(raw).map_err(|e| FetchError::io(raw, e))?;
    let mut de = serde_json::Deserializer::from_reader(BufReader::with_capacity(1 << 20, file));
    let count = write_atomic(out, |w| {
        let n = de
            .deserialize_seq(Pairs { out: w })
            .map_err(|e| FetchError::Normalise {
                file: raw.into(),
                message: format!(
                    "{e}; expected a JSON array of ShareGPT conversations {{id, conversations: [{{from, value}}]}}"
                ),
            })?;
        de.end().map_err(|e| FetchError::Normalise {
            file: raw.into(),
            message: format!("after the array: {e}"),
        })?;
        if n == 0 {
            // An error here leaves no empty file in place for S to read.
            return Err(FetchError::Normalise {
                file: raw.into(),
                message: "no conversation opens with a human message answered by gpt".into(),
            });
        }
        Ok(n)
    })?;
    Ok(count)
}

/// The first exchange of `c`, when it is a non-empty human message answered by gpt.
fn first_pair(c: Upstream) -> Option<PairRecord> {
    let mut turns = c.conversations.into_iter();
    let (ask, answer) = (turns.next()?, turns.next()?);
    let nonempty = |t: &Turn| !t.value.trim().is_empty();
    let opens = ask.from == "human" && answer.from == "gpt";
    (opens && nonempty(&ask) && nonempty(&answer)).then_some(PairRecord {
        id: c.id,
        prompt: ask.value,
        reply: answer.value,
    })
}

struct Pairs<'a> {
    out: &'a mut BufWriter<std::fs::File>,
}

impl<'de> Visitor<'de> for Pairs<'_> {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON array of ShareGPT conversations")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u64, A::Error> {
        let (mut read, mut written) = (0u64, 0u64);
        loop {
            let conversation = match seq.next_element::<Upstream>() {
                Ok(Some(c)) => c,
                Ok(None) => return Ok(written),
                Err(e) => return Err(de::Error::custom(format_args!("record {read}: {e}"))),
            };
            read += 1;
            let Some(pair) = first_pair(conversation) else {
                continue;
            };
            serde_json::to_writer(&mut *self.out, &pair).map_err(de::Error::custom)?;
            self.out.write_all(b"\n").map_err(de::Error::custom)?;
            written += 1;
        }
    }
}

#[cfg(test)]
mod tests;
