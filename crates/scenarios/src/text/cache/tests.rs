//! The corpus cache: what a warm cache answers equals a cold one, and a damaged file is rebuilt.

use std::sync::Arc;

use super::*;
use crate::rng::stream_rng;
use crate::text::words::prose;
use crate::text::{Corpus, Window};
use crate::tokenizer::Tokenizer;

fn texts(suffix: &str) -> Vec<Text> {
    (0..3)
        .map(|i| Text {
            body: prose(&mut stream_rng(i, "cache"), 8_000),
            suffix: suffix.into(),
        })
        .collect()
}

/// A cache directory not yet made, inside a temp directory removed when the guard is
/// dropped: keep the guard bound until the test ends.
fn scratch(name: &str) -> (tempfile::TempDir, PathBuf) {
    let tmp = plateau_testkit::scratch(&format!("cache-{name}"));
    let dir = tmp.path().join("cache");
    (tmp, dir)
}

/// Everything a corpus answers, for comparing two of them.
fn answers(c: &Corpus) -> (Vec<Window>, Vec<String>, Vec<u32>, Option<Window>) {
    let windows = c.windows(60);
    let texts = windows.iter().step_by(7).map(|&w| c.text(w)).collect();
    let tokens = windows.iter().map(|&w| c.tokens(w)).collect();
    let picked = c.pick(200, &mut stream_rng(9, "pick"));
    (windows, texts, tokens, picked)
}

#[test]
fn a_corpus_read_from_the_cache_answers_exactly_as_the_one_built() {
    let (_tmp, dir) = scratch("same");
    let t = Arc::new(Tokenizer::embedded_cl100k());
    let suffix = "\n\nQuestion: which canal?";
    let built = Corpus::new(t.clone(), texts(suffix));
    let first = Corpus::cached(t.clone(), texts(suffix), Some(&dir));
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(files.len(), 1, "one file, no temporary left");
    let path = path(&dir, "cl100k_base", &texts(suffix));
    assert!(path.is_file());
    let (docs, lead) = read(&path, texts(suffix)).map_err(|(_, why)| why).unwrap();
    assert_eq!(docs.len(), 3);
    assert_eq!(lead, built.lead);
    for (d, b) in docs.iter().zip(&built.docs) {
        assert_eq!(d.ids, b.ids);
        assert_eq!(d.starts, b.starts);
        assert_eq!(d.suffix_tokens, b.suffix_tokens);
    }
    let second = Corpus::cached(t, texts(suffix), Some(&dir));
    assert_eq!(answers(&first), answers(&built));
    assert_eq!(answers(&second), answers(&built));
}

#[test]
fn kept_text_cuts_windows_exactly_as_decoding_them() {
    let t = Arc::new(Tokenizer::embedded_cl100k());
    let kept = Corpus::cached(t.clone(), texts(""), None);
    assert!(kept.docs.iter().all(|d| d.source.is_some()));
    let decoded = Corpus::new(t, texts(""));
    assert!(decoded.docs.iter().all(|d| d.source.is_none()));
    assert_eq!(answers(&kept), answers(&decoded));
}

#[test]
fn other_texts_another_tokenizer_or_another_plateau_are_another_file() {
    let dir = Path::new("/c");
    let a = path(dir, "cl100k_base", &texts(""));
    assert_eq!(a, path(dir, "cl100k_base", &texts("")));
    assert_ne!(a, path(dir, "o200k_base", &texts("")));
    assert_ne!(a, path(dir, "cl100k_base", &texts("?")));
    let mut one_char = texts("");
    one_char[2].body.push('x');
    assert_ne!(a, path(dir, "cl100k_base", &one_char));
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(a, path_for(version, dir, "cl100k_base", &texts("")));
    assert_ne!(a, path_for("0.0.0-other", dir, "cl100k_base", &texts("")));
}

#[test]
fn a_damaged_or_foreign_file_is_a_miss_and_is_rebuilt() {
    let (_tmp, dir) = scratch("damaged");
    let t = Arc::new(Tokenizer::embedded_cl100k());
    let good = answers(&Corpus::new(t.clone(), texts("")));
    let path = path(&dir, "cl100k_base", &texts(""));
    Corpus::cached(t.clone(), texts(""), Some(&dir));
    let whole = std::fs::read(&path).unwrap();
    let mut flipped = whole.clone();
    flipped[whole.len() / 2] ^= 1;
    let damaged: [(&str, Vec<u8>); 4] = [
        ("truncated", whole[..whole.len() - 9].to_vec()),
        ("one bit flipped", flipped),
        ("empty", Vec::new()),
        ("not ours", b"{\"hello\": 1}".to_vec()),
    ];
    for (what, bytes) in damaged {
        std::fs::write(&path, &bytes).unwrap();
        let why = read(&path, texts("")).map(|_| ()).unwrap_err().1;
        assert_eq!(why, "not a valid corpus cache file", "{what}");
        let rebuilt = Corpus::cached(t.clone(), texts(""), Some(&dir));
        assert_eq!(answers(&rebuilt), good, "{what}");
        assert_eq!(std::fs::read(&path).unwrap(), whole, "{what}: rewritten");
    }
}

#[test]
fn writers_filling_one_entry_at_once_leave_one_whole_file() {
    let (_tmp, dir) = scratch("racing");
    let t = Arc::new(Tokenizer::embedded_cl100k());
    let built = Corpus::new(t.clone(), texts(""));
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| Corpus::cached(t.clone(), texts(""), Some(&dir)));
        }
    });
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    let path = path(&dir, "cl100k_base", &texts(""));
    let (docs, _) = read(&path, texts("")).map_err(|(_, why)| why).unwrap();
    assert!(docs.iter().zip(&built.docs).all(|(d, b)| d.ids == b.ids));
}
