//! The token texts replies are made of: `words` distinct words, each exactly one token of
//! cl100k_base (a space and ASCII letters, so one content chunk is one token to any client
//! counting with it, and a reply's text counts to its chunks), drawn Zipf-distributed as
//! natural text is: the word of rank r about 1/r as often as the commonest. With one word,
//! every token is ` hello`. The draws are made once, into a table replies read in turn, so
//! nothing is computed per event.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Draws in the table (a reply starts at its own place in it).
const DRAWS: usize = 1 << 20;

/// The words and the drawn sequence of their indexes.
pub struct Words {
    pub texts: Vec<String>,
    draws: Vec<u32>,
}

impl Words {
    /// `n` words (at least one) in cl100k's id order, which follows its merge order, so
    /// the commonest come first.
    pub fn new(n: usize) -> Words {
        let texts = if n <= 1 {
            vec![" hello".to_owned()]
        } else {
            let bpe = tiktoken_rs::cl100k_base_singleton();
            (0..100_000u32)
                .filter_map(|id| {
                    let bytes = bpe.decode_bytes(&[id]).ok()?;
                    let text = String::from_utf8(bytes).ok()?;
                    let word = text.strip_prefix(' ')?;
                    let clean = word.len() >= 2 && word.bytes().all(|b| b.is_ascii_alphabetic());
                    (clean && bpe.encode_ordinary(&text) == [id]).then_some(text)
                })
                .take(n)
                .collect()
        };
        // Zipf with exponent 1: the cumulative weights of 1/r, searched by a uniform draw.
        let mut cumulative = Vec::with_capacity(texts.len());
        let mut sum = 0.0;
        for r in 1..=texts.len() {
            sum += 1.0 / r as f64;
            cumulative.push(sum);
        }
        let mut rng = ChaCha8Rng::seed_from_u64(0x0077_6f72_6473);
        let draws = (0..DRAWS)
            .map(|_| {
                let u = rng.random::<f64>() * sum;
                let i = cumulative.partition_point(|&c| c <= u);
                u32::try_from(i.min(texts.len() - 1)).unwrap_or(0)
            })
            .collect();
        Words { texts, draws }
    }

    /// The index of the word at place `at` of the drawn sequence.
    pub fn at(&self, at: usize) -> usize {
        self.draws[at % DRAWS] as usize
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use super::*;

    #[test]
    fn each_word_is_one_distinct_cl100k_token_and_the_draws_follow_zipf() {
        let w = Words::new(20_000);
        assert_eq!(w.texts.len(), 20_000, "cl100k has that many clean words");
        let bpe = tiktoken_rs::cl100k_base_singleton();
        let mut seen = std::collections::HashSet::new();
        for t in &w.texts {
            assert_eq!(bpe.encode_ordinary(t).len(), 1, "{t:?}");
            assert!(seen.insert(t.clone()), "{t:?} twice");
        }
        // A run of them counts one token per word.
        let run: String = (0..1_000).map(|i| w.texts[w.at(i)].as_str()).collect();
        assert_eq!(bpe.encode_ordinary(&run).len(), 1_000);
        // Rank r is drawn with probability (1/r) / H(20,000), H = 10.48: 9.5% for the
        // first, 4.8% for the second.
        let mut counts = vec![0usize; w.texts.len()];
        for i in 0..DRAWS {
            counts[w.at(i)] += 1;
        }
        let share = |r: usize| counts[r] as f64 / DRAWS as f64;
        assert!((share(0) - 0.0954).abs() < 0.002, "{}", share(0));
        assert!((share(1) - 0.0477).abs() < 0.002, "{}", share(1));
        let distinct = counts.iter().filter(|&&c| c > 0).count();
        assert!(distinct > 15_000, "{distinct}");
        assert_eq!(Words::new(1).texts, [" hello"]);
        assert_eq!(Words::new(1).at(12_345), 0);
    }
}
