//! The corpus cache: a built corpus's token ids, token ends, word starts and lead counts,
//! stored in one file named by what it was built from (a hash of the format, the plateau
//! version, the tokenizer's name and every text), so the next run with the same texts reads
//! it instead of tokenizing them.
//! The built-in corpus is about 700,000 tokens; tokenizing it is most of plateau's start-up,
//! reading it a few milliseconds.
//!
//! The file is written to a temporary name and renamed into place, so a reader never sees
//! half of one. It is checked on read (format, key, sizes, a checksum, each document's
//! tokens ending at its text's length); anything off is a miss and the corpus is rebuilt.
//!
//! Format, little-endian: the magic (the key is the file name), the documents (u32), then
//! per document its token count n (u32), n ids (u32), n ends (u32), n word-start flags (one
//! byte each), its suffix's tokens (u32); the lead counts (u32 m, then m pairs of u32); and
//! a checksum of everything before it (u64).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::doc::{Doc, Source, Text};
use crate::rng::stable_hash;

/// The file format. Change the digit when the format, or what a corpus derives from its
/// texts (`word_starts`, the lead counts, token ends), changes; the plateau version is part
/// of every key besides, so a released build never reads another's entries.
const MAGIC: &[u8; 16] = b"plateau-corpus-2";

/// Where the corpus of `texts` tokenized by `tokenizer` is cached in `dir`.
pub(super) fn path(dir: &Path, tokenizer: &str, texts: &[Text]) -> PathBuf {
    path_for(env!("CARGO_PKG_VERSION"), dir, tokenizer, texts)
}

/// [`path`] for plateau `version`.
fn path_for(version: &str, dir: &Path, tokenizer: &str, texts: &[Text]) -> PathBuf {
    let mut key = hash(MAGIC, 0) ^ hash(version.as_bytes(), 2) ^ hash(tokenizer.as_bytes(), 1);
    for (i, t) in texts.iter().enumerate() {
        key = hash(t.body.as_bytes(), key ^ i as u64);
        key = hash(t.suffix.as_bytes(), key);
    }
    let name: String = tokenizer
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    dir.join(format!("corpus-{name}-{key:016x}.bin"))
}

/// The documents and lead counts cached at `path` for `texts`; on a miss, `texts` back with
/// the reason.
#[allow(clippy::type_complexity)]
pub(super) fn read(
    path: &Path,
    texts: Vec<Text>,
) -> Result<(Vec<Doc>, HashMap<u32, u32>), (Vec<Text>, String)> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return Err((texts, e.to_string())),
    };
    let Some(parsed) = parse(&bytes, texts.len()) else {
        return Err((texts, "not a valid corpus cache file".into()));
    };
    if let Some(i) = parsed
        .docs
        .iter()
        .zip(&texts)
        .position(|(d, t)| d.ends.last().map_or(0, |&e| e as usize) != t.body.len())
    {
        return Err((texts, format!("document {i}'s tokens do not span its text")));
    }
    let docs = parsed
        .docs
        .into_iter()
        .zip(texts)
        .map(|(d, t)| Doc {
            ids: d.ids,
            starts: d.starts,
            suffix: t.suffix,
            suffix_tokens: d.suffix_tokens,
            source: Some(Source {
                body: t.body,
                ends: d.ends,
            }),
        })
        .collect();
    Ok((docs, parsed.lead))
}

/// Stores a corpus's `docs` and `lead` at `path` (its directory created), when every document
/// kept its text.
pub(super) fn write(path: &Path, docs: &[Doc], lead: &HashMap<u32, u32>) -> std::io::Result<()> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    put(&mut out, docs.len());
    for d in docs {
        let Some(src) = &d.source else {
            return Err(std::io::Error::other("a document without its text"));
        };
        put(&mut out, d.ids.len());
        out.extend(d.ids.iter().flat_map(|v| v.to_le_bytes()));
        out.extend(src.ends.iter().flat_map(|v| v.to_le_bytes()));
        out.extend(d.starts.iter().map(|&s| u8::from(s)));
        out.extend_from_slice(&d.suffix_tokens.to_le_bytes());
    }
    let mut lead: Vec<(u32, u32)> = lead.iter().map(|(&k, &v)| (k, v)).collect();
    lead.sort_unstable();
    put(&mut out, lead.len());
    for (id, n) in lead {
        out.extend_from_slice(&id.to_le_bytes());
        out.extend_from_slice(&n.to_le_bytes());
    }
    let sum = hash(&out, 0);
    out.extend_from_slice(&sum.to_le_bytes());
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    // Unique per process and write: runs and test threads may fill the same entry at once.
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let tmp = dir.join(format!(
        ".{}.{}.{}.tmp",
        path.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("corpus"),
        std::process::id(),
        WRITES.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&tmp, &out)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

struct StoredDoc {
    ids: Vec<u32>,
    ends: Vec<u32>,
    starts: Vec<bool>,
    suffix_tokens: u32,
}

struct Parsed {
    docs: Vec<StoredDoc>,
    lead: HashMap<u32, u32>,
}

fn parse(bytes: &[u8], expect_docs: usize) -> Option<Parsed> {
    let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
    if hash(body, 0) != u64::from_le_bytes(sum.try_into().ok()?) {
        return None;
    }
    let mut r = Reader(body.strip_prefix(MAGIC)?);
    if r.u32()? as usize != expect_docs {
        return None;
    }
    let mut docs = Vec::with_capacity(expect_docs);
    for _ in 0..expect_docs {
        let n = r.u32()? as usize;
        let ids = r.u32s(n)?;
        let ends = r.u32s(n)?;
        let starts = r.take(n)?.iter().map(|&b| b != 0).collect();
        let suffix_tokens = r.u32()?;
        docs.push(StoredDoc {
            ids,
            ends,
            starts,
            suffix_tokens,
        });
    }
    let m = r.u32()? as usize;
    let pairs = r.u32s(m.checked_mul(2)?)?;
    let lead = pairs.chunks_exact(2).map(|p| (p[0], p[1])).collect();
    r.0.is_empty().then_some(Parsed { docs, lead })
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u32s(&mut self, n: usize) -> Option<Vec<u32>> {
        let bytes = self.take(n.checked_mul(4)?)?;
        Some(
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        )
    }
}

fn put(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
}

/// A hash of `bytes` from `seed`, eight bytes at a time (FNV-style multiply, then
/// [`stable_hash`] of the tail): stable across runs and builds, and fast enough for
/// megabytes at start-up.
fn hash(bytes: &[u8], seed: u64) -> u64 {
    let mut chunks = bytes.chunks_exact(8);
    let mut h = seed ^ 0xcbf2_9ce4_8422_2325;
    for c in &mut chunks {
        let v = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h ^ v).wrapping_mul(0x0100_0000_01b3).rotate_left(29);
    }
    h ^ stable_hash(chunks.remainder()) ^ bytes.len() as u64
}

#[cfg(test)]
mod tests;
