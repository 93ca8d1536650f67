//! Each request's `max_tokens`: drawn from the scenario's output-length setting
//! ([`OutputTokens`]) at the request's index in its cell. Slot `s` of `N` sends requests
//! `s, s+N, s+2N, ...` (the same interleaving as the prompt streams), and the draw for an
//! index depends only on the plan's seed and the scenario, so cells at different N ask
//! for the same lengths in the same order.

use plateau_model::config::OutputTokens;

use crate::rng::request_unit;

/// A scenario's output lengths for one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Lengths {
    spec: OutputTokens,
    seed: u64,
    scenario: String,
    /// `dataset` lengths for a prompt without a reply of its own (the last turn of a
    /// conversation): the median reply length of the scenario's material.
    fallback: u32,
}

impl Lengths {
    /// Lengths of `scenario` under the plan's `seed`; `fallback` stands in for a missing
    /// reply length when the lengths come from the dataset.
    pub fn new(spec: OutputTokens, seed: u64, scenario: &str, fallback: u32) -> Lengths {
        Lengths {
            spec,
            seed,
            scenario: scenario.to_owned(),
            fallback: fallback.max(1),
        }
    }

    /// The setting lengths are drawn from.
    pub fn spec(&self) -> OutputTokens {
        self.spec
    }

    /// The `max_tokens` of request `index`, whose dataset reply is `reply` tokens long.
    pub fn at(&self, index: u64, reply: Option<u32>) -> u32 {
        let u = request_unit(self.seed, &self.scenario, index);
        self.spec
            .draw(u, reply)
            .or_else(|| self.spec.draw(u, Some(self.fallback)))
            .unwrap_or(self.fallback)
    }
}

/// The request indices of one slot: `slot, slot + slots, ...`.
#[derive(Clone, Copy, Debug)]
pub struct Indices {
    next: u64,
    step: u64,
}

impl Indices {
    /// The indices of `slot` among `slots`.
    pub fn new(slot: u32, slots: u32) -> Indices {
        Indices {
            next: u64::from(slot),
            step: u64::from(slots.max(1)),
        }
    }

    /// The next request's index.
    pub fn next_index(&mut self) -> u64 {
        let i = self.next;
        self.next += self.step;
        i
    }
}

/// The median of `lengths` (0 when empty).
pub fn median(mut lengths: Vec<u32>) -> u32 {
    lengths.sort_unstable();
    lengths.get(lengths.len() / 2).copied().unwrap_or(0)
}

#[cfg(test)]
mod tests;
