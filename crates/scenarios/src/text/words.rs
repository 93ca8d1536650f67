//! Built-in text: English-like prose generated from plateau's own word lists (no third-party
//! text), used by the scenarios that need no dataset and as the stand-in when a dataset has
//! not been fetched.

use rand::Rng;
use rand::seq::IndexedRandom;

const ADJECTIVES: &[&str] = &[
    "quiet", "bright", "narrow", "ancient", "careful", "patient", "hollow", "golden", "steady",
    "distant", "gentle", "curious", "heavy", "silver", "northern", "crowded", "empty", "sudden",
    "humble", "restless", "frozen", "broad", "modest", "clever", "silent", "rapid", "tired",
    "familiar", "hidden", "wooden", "stubborn", "generous", "fragile", "vivid", "muddy", "proud",
    "simple", "remote", "loyal", "calm", "rusty", "sturdy", "eager", "bitter", "pale", "sharp",
    "warm", "faint", "rough", "tidy", "windy", "green", "lonely", "busy", "honest", "plain",
];

const NOUNS: &[&str] = &[
    "river",
    "engineer",
    "valley",
    "lantern",
    "market",
    "harbor",
    "teacher",
    "garden",
    "bridge",
    "village",
    "farmer",
    "station",
    "library",
    "forest",
    "captain",
    "kitchen",
    "orchard",
    "tower",
    "meadow",
    "painter",
    "workshop",
    "island",
    "traveler",
    "mountain",
    "school",
    "merchant",
    "clock",
    "window",
    "letter",
    "council",
    "festival",
    "road",
    "storm",
    "ledger",
    "compass",
    "shepherd",
    "carpenter",
    "museum",
    "canal",
    "lighthouse",
    "baker",
    "archive",
    "courtyard",
    "machine",
    "notebook",
    "quarry",
    "mill",
    "signal",
    "choir",
    "journey",
    "sailor",
    "weaver",
    "chapel",
    "field",
    "tunnel",
    "inventor",
    "ferry",
    "pottery",
    "glacier",
    "observatory",
];

const VERBS: &[&str] = &[
    "watched",
    "repaired",
    "measured",
    "crossed",
    "followed",
    "painted",
    "carried",
    "remembered",
    "counted",
    "opened",
    "described",
    "visited",
    "guarded",
    "studied",
    "built",
    "ignored",
    "praised",
    "traded",
    "mapped",
    "cleaned",
    "welcomed",
    "tested",
    "borrowed",
    "noticed",
    "collected",
    "explained",
    "finished",
    "protected",
    "questioned",
    "rebuilt",
    "sketched",
    "polished",
    "delivered",
    "inspected",
    "planted",
    "restored",
    "recorded",
    "admired",
];

const ADVERBS: &[&str] = &[
    "slowly",
    "quietly",
    "carefully",
    "eagerly",
    "rarely",
    "often",
    "suddenly",
    "gladly",
    "patiently",
    "barely",
    "openly",
    "gently",
    "proudly",
    "briefly",
    "nearly",
    "calmly",
];

const PREPOSITIONS: &[&str] = &[
    "near",
    "beyond",
    "behind",
    "across",
    "beside",
    "under",
    "above",
    "around",
    "toward",
    "along",
    "past",
    "inside",
    "outside",
    "against",
    "between the tower and",
];

const OPENERS: &[&str] = &[
    "In the morning",
    "Later that year",
    "Before the winter",
    "After the long rain",
    "By the evening",
    "For many seasons",
    "Every spring",
    "Once the bells rang",
    "At dawn",
    "Without a word",
    "Despite the cold",
    "When the road closed",
    "Long before the census",
];

const QUESTIONS: &[&str] = &["Why", "How", "When", "Where", "Whether"];

/// One sentence of generated prose, ending with a period or a question mark.
pub fn sentence(rng: &mut impl Rng) -> String {
    let pick = |rng: &mut dyn rand::RngCore, list: &[&'static str]| -> &'static str {
        list.choose(rng).copied().unwrap_or("the")
    };
    let (a1, n1, v, a2, n2) = (
        pick(rng, ADJECTIVES),
        pick(rng, NOUNS),
        pick(rng, VERBS),
        pick(rng, ADJECTIVES),
        pick(rng, NOUNS),
    );
    match rng.random_range(0..6) {
        0 => format!(
            "The {a1} {n1} {v} the {a2} {n2} {} the {}.",
            pick(rng, PREPOSITIONS),
            pick(rng, NOUNS)
        ),
        1 => format!(
            "{}, a {a1} {n1} {} {v} every {n2}.",
            pick(rng, OPENERS),
            pick(rng, ADVERBS)
        ),
        2 => format!(
            "{} had the {a1} {n1} {v} the {n2} {} the {a2} {}?",
            pick(rng, QUESTIONS),
            pick(rng, PREPOSITIONS),
            pick(rng, NOUNS)
        ),
        3 => format!(
            "Nobody {v} the {n1} as {} as the {a2} {n2} did.",
            pick(rng, ADVERBS)
        ),
        4 => format!(
            "The {n1} and the {n2} were {a1}, and the {} {} was {a2}.",
            pick(rng, ADJECTIVES),
            pick(rng, NOUNS)
        ),
        _ => format!(
            "Some say the {a1} {n1} {v} {} {} the {n2} of the {}.",
            rng.random_range(2..99),
            pick(rng, PREPOSITIONS),
            pick(rng, NOUNS)
        ),
    }
}

/// Generated prose of at least `chars` characters: sentences grouped into paragraphs.
pub fn prose(rng: &mut impl Rng, chars: usize) -> String {
    let mut out = String::with_capacity(chars + 256);
    while out.len() < chars {
        for i in 0..rng.random_range(3..8) {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(&sentence(rng));
        }
        out.push_str("\n\n");
    }
    out
}

/// The opening of the built-in system prompt of shared-prefix scenarios (plateau's own words).
pub const SYSTEM_PREAMBLE: &str = "You are the reference assistant of a small regional archive. \
Answer the user's question using only the notes below. Quote the note you rely on, say so \
plainly when the notes do not contain the answer, and keep every answer short.\n\nNotes:\n\n";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream_rng;

    #[test]
    fn prose_is_seeded_and_long_enough() {
        let a = prose(&mut stream_rng(3, "p"), 2_000);
        let b = prose(&mut stream_rng(3, "p"), 2_000);
        assert_eq!(a, b);
        assert!(a.len() >= 2_000);
        assert!(a.is_ascii());
        assert_ne!(a, prose(&mut stream_rng(4, "p"), 2_000));
    }
}
