//! The output vocabulary: words that are each exactly one cl100k_base token.
//!
//! Every word starts with a space and is a single token, and cl100k's pre-tokenizer splits a
//! run of them at each space, so any concatenation re-tokenizes to exactly one token per word:
//! a client that counts the text gets the same number as `usage.completion_tokens`.

use rand::Rng;

/// The words generated output is drawn from.
pub(crate) const WORDS: [&str; 60] = [
    " the", " of", " and", " to", " in", " is", " that", " for", " it", " as", " was", " with",
    " be", " by", " on", " not", " he", " this", " are", " or", " his", " from", " at", " which",
    " but", " have", " an", " had", " they", " you", " were", " their", " one", " all", " we",
    " can", " her", " has", " there", " been", " if", " more", " when", " will", " would", " who",
    " so", " no", " time", " people", " about", " out", " up", " into", " them", " some", " could",
    " other", " what", " only",
];

/// Appends `n` words drawn from `rng` to `out`.
pub(crate) fn push_words(out: &mut Vec<u8>, rng: &mut impl Rng, n: u32) {
    for _ in 0..n {
        out.extend_from_slice(WORDS[rng.random_range(0..WORDS.len())].as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn every_word_is_one_token_with_a_leading_space() {
        let bpe = tiktoken_rs::cl100k_base_singleton();
        for word in WORDS {
            assert!(word.starts_with(' ') && word[1..].bytes().all(|b| b.is_ascii_lowercase()));
            assert_eq!(bpe.encode_ordinary(word).len(), 1, "{word:?}");
        }
    }

    #[test]
    fn concatenations_tokenize_to_one_token_per_word() {
        let bpe = tiktoken_rs::cl100k_base_singleton();
        let all: String = WORDS.concat();
        assert_eq!(bpe.encode_ordinary(&all).len(), WORDS.len());
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for n in [1, 2, 17, 500] {
            let mut text = Vec::new();
            push_words(&mut text, &mut rng, n);
            let text = String::from_utf8(text).unwrap();
            assert_eq!(bpe.encode_ordinary(&text).len(), n as usize, "{text}");
        }
    }
}
