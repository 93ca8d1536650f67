//! llama.cpp's `timings` against plateau's own clock: every measured request's record
//! carries them, the prompt's evaluation (`prompt_ms`) is shorter than plateau's TTFT from
//! the send on every request, and the prompt cache shows: most of A2's prompt (one prompt
//! for every slot) is reused, almost none of B2's (a distinct prompt per request).

use std::path::Path;

use plateau_model::results::{self, REQUESTS_FILE};
use serde_json::Value;

/// Checks `scenario`'s records in `dir` (the `c4` cell of `s`) and prints what it found.
pub fn check(dir: &Path, scenario: &str, s: &Value, failed: &mut Vec<String>) {
    let path = dir.join(format!(
        "results/llamacpp/tiny/{scenario}/c{}/{REQUESTS_FILE}",
        super::N
    ));
    let samples = match results::read_samples(&path) {
        Ok(s) => s,
        Err(e) => return failed.push(format!("{scenario}: {e}")),
    };
    let ok: Vec<_> = samples.iter().filter(|x| x.outcome.is_ok()).collect();
    let timed: Vec<_> = ok
        .iter()
        .filter_map(|x| Some((*x, x.server.as_ref()?)))
        .collect();
    if timed.len() != ok.len() || ok.is_empty() {
        failed.push(format!(
            "{scenario}: timings on {} of {} successful requests",
            timed.len(),
            ok.len()
        ));
    }
    let mut slower = 0;
    let mut cached = Vec::new();
    for (x, t) in &timed {
        let ttft = x.t_first_us().and_then(|f| f.checked_sub(x.t_sent_us));
        if !matches!((t.prefill_us, ttft), (Some(p), Some(c)) if p < c) {
            slower += 1;
        }
        if let (Some(c), Some(p)) = (t.cached_tokens, t.prompt_tokens) {
            cached.push(f64::from(c) / f64::from(p.max(1)));
        }
    }
    if slower > 0 {
        failed.push(format!(
            "{scenario}: prompt_ms not below plateau's TTFT on {slower} of {} requests",
            timed.len()
        ));
    }
    cached.sort_by(f64::total_cmp);
    let median = cached.get(cached.len() / 2).copied();
    let st = &s["server_timing"];
    eprintln!(
        "{scenario}: timings on {}/{}; cached share p50 {median:?} (min {:?}, max {:?}); \
         prefill p50 {} ms, gap p50 {} ms, match rate {}",
        timed.len(),
        ok.len(),
        cached.first(),
        cached.last(),
        st["prefill_ms"]["p50"],
        st["gap_ms"]["p50"],
        st["match_rate"]
    );
    if st["match_rate"] != 1.0 {
        failed.push(format!(
            "{scenario}: server_timing match rate {}",
            st["match_rate"]
        ));
    }
    match (scenario, median) {
        ("A2", Some(m)) if m < 0.9 => {
            failed.push(format!(
                "A2: cached share of the prompt p50 {m:.3}, expected > 0.9"
            ));
        }
        ("B2", Some(m)) if m > 0.05 => {
            failed.push(format!(
                "B2: cached share of the prompt p50 {m:.3}, expected < 0.05"
            ));
        }
        _ => {}
    }
}
