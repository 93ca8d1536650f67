//! D as sessions against llama.cpp: the summary's session block, and the prefix cache
//! doing its job: the share of prompt tokens llama.cpp reused (`cached_tokens`,
//! `timings.cache_n`) rises from a session's first turn to its later ones.

use serde_json::Value;

/// Checks D's session block, adding what does not hold to `failed`.
pub fn check(scenario: &str, s: &Value, failed: &mut Vec<String>) {
    if scenario != "D" {
        return;
    }
    let sessions = &s["sessions"];
    eprintln!("D sessions: {sessions}");
    if sessions["sessions_target"] != 4 {
        failed.push(format!("D: sessions_target is not 4: {sessions}"));
    }
    let share = |turns: &str| {
        sessions["by_turn"].as_array().and_then(|b| {
            b.iter()
                .find(|x| x["turns"] == turns)
                .and_then(|x| x["cached_share"].as_f64())
        })
    };
    match (share("1"), share("2-4")) {
        (Some(first), Some(later)) if later > first && later > 0.5 => {}
        (first, later) => failed.push(format!(
            "D: cached share of turns 2-4 {later:?} is not above turn 1's {first:?} and 0.5"
        )),
    }
}
