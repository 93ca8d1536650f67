//! Windows of a corpus: their lengths, unique heads, suffixes, and picks that keep their start.

use plateau_core::tokens::TokenCounter;

use super::*;
use crate::rng::stream_rng;
use crate::text::words::prose;

fn corpus(suffix: &str) -> Corpus {
    let t = Arc::new(Tokenizer::embedded_cl100k());
    let texts = (0..3)
        .map(|i| Text {
            body: prose(&mut stream_rng(i, "doc"), 20_000),
            suffix: suffix.into(),
        })
        .collect();
    Corpus::new(t, texts)
}

#[test]
fn windows_meet_their_length_and_have_unique_heads() {
    let c = corpus("");
    let t = c.tokenizer().clone();
    for target in [50u32, 300, 2500] {
        let ws = c.windows(target);
        assert!(ws.len() > 1_000, "{target}: {}", ws.len());
        for &w in ws.iter().step_by(101) {
            assert_eq!(c.tokens(w) as usize, t.count(&c.text(w)), "{}", c.text(w));
        }
        let mut heads = std::collections::HashSet::new();
        for &w in ws.iter().step_by(37) {
            let text = c.text(w);
            let n = t.count(&text) as f64;
            assert!(
                (n - f64::from(target)).abs() <= 0.05 * f64::from(target),
                "{target}: {n} `{text}`"
            );
            let ids = t.encode(&text);
            assert!(
                heads.insert(ids[..16.min(ids.len())].to_vec()),
                "repeated head `{text}`"
            );
            assert!(!text.starts_with(char::is_whitespace));
        }
    }
}

#[test]
fn suffix_counts_toward_the_target() {
    let c = corpus("\n\nQuestion: what did the quiet engineer measure near the canal?");
    let w = c.window_at(1, 100, 200).unwrap();
    let text = c.text(w);
    assert!(text.ends_with("canal?"));
    let n = c.tokenizer().count(&text);
    assert!((195..=205).contains(&n), "{n}");
    assert!(
        (n as i64 - i64::from(c.tokens(w))).abs() <= 2,
        "{n} vs {}",
        c.tokens(w)
    );
}

#[test]
fn too_long_windows_do_not_exist() {
    let c = corpus("");
    assert!(c.window_at(0, 0, 1_000_000).is_none());
    assert!(c.windows(1_000_000).is_empty());
}

#[test]
fn a_pick_cut_longer_or_shorter_keeps_its_start() {
    // The same draw at 40, 45 and 50 tokens: one text, cut to three lengths (a length met
    // in a server's tokens is found by cutting the same prompt again).
    let c = corpus("");
    let picks: Vec<Window> = [40u32, 45, 50]
        .iter()
        .map(|&n| c.pick(n, &mut stream_rng(7, "identical")).unwrap())
        .collect();
    assert!(
        picks
            .iter()
            .all(|w| (w.doc, w.start) == (picks[0].doc, picks[0].start)),
        "{picks:?}"
    );
    assert!(
        picks[0].len < picks[1].len && picks[1].len < picks[2].len,
        "{picks:?}"
    );
    assert!(c.text(picks[2]).starts_with(&c.text(picks[0])));
}
