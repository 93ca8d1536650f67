//! Every random choice of the workloads: a stable seed per cell (plan seed, scenario id,
//! concurrency), ChaCha streams derived from it, and [`Stream`], the strided walk through a
//! seeded permutation that gives each slot its own never-repeating sequence of items.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// FNV-1a: a hash that is the same in every build (std's hasher is not guaranteed to be).
pub fn stable_hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// SplitMix64 finaliser: spreads nearby inputs over the whole range.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed of one cell: the same plan seed, scenario and load (`Load::seed_key`: N, or
/// the rate) give the same prompts.
pub fn cell_seed(seed: u64, scenario: &str, load: u64) -> u64 {
    mix(mix(seed ^ stable_hash(scenario.as_bytes())) ^ load)
}

/// A number uniform in (0, 1) for request `index` of `scenario` under the plan's `seed`,
/// the same at every load (N or rate), so the same request index of two cells draws the
/// same value.
pub fn request_unit(seed: u64, scenario: &str, index: u64) -> f64 {
    unit_for(seed, scenario, "output tokens", index)
}

/// [`request_unit`] for another `purpose` (`think`): an independent draw per request index.
pub fn unit_for(seed: u64, scenario: &str, purpose: &str, index: u64) -> f64 {
    let key = mix(seed ^ stable_hash(scenario.as_bytes()) ^ stable_hash(purpose.as_bytes()));
    // The top 53 bits, centred in their interval: never 0, never 1.
    ((mix(key ^ mix(index)) >> 11) as f64 + 0.5) / (1u64 << 53) as f64
}

/// An independent random stream named `purpose` under `seed`.
pub fn stream_rng(seed: u64, purpose: &str) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(mix(seed ^ stable_hash(purpose.as_bytes())))
}

/// A seeded bijection of `0..len`: `i -> (a * i + b) mod len` with `a` coprime to `len`, so
/// consecutive indices land far apart and no index repeats within `len` steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Permutation {
    len: u64,
    a: u64,
    b: u64,
}

impl Permutation {
    /// A permutation of `0..len` drawn from `rng` (`len` 0 is treated as 1).
    pub fn new(len: usize, rng: &mut impl Rng) -> Self {
        let len = (len as u64).max(1);
        let b = rng.random_range(0..len);
        let mut a = if len > 2 { rng.random_range(1..len) } else { 1 };
        while gcd(a, len) != 1 {
            a = a % (len - 1) + 1;
        }
        Permutation { len, a, b }
    }

    /// The image of `i` (taken modulo `len`).
    pub fn get(&self, i: u64) -> usize {
        let v = (u128::from(self.a) * u128::from(i % self.len) + u128::from(self.b))
            % u128::from(self.len);
        v as usize
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// One slot's walk through a permutation: slot `s` of `n` takes positions `s, s+n, s+2n, ...`,
/// so no two slots of a cell ever take the same item until all `len` are used.
#[derive(Clone, Debug)]
pub struct Stream {
    perm: Permutation,
    next: u64,
    step: u64,
}

impl Stream {
    /// The walk of `slot` among `slots` slots.
    pub fn new(perm: Permutation, slot: u32, slots: u32) -> Self {
        Stream {
            perm,
            next: u64::from(slot),
            step: u64::from(slots.max(1)),
        }
    }

    /// The next item index.
    pub fn next_index(&mut self) -> usize {
        let i = self.perm.get(self.next);
        self.next += self.step;
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutation_is_a_bijection() {
        for len in [1usize, 2, 3, 10, 97, 1000, 4096] {
            let p = Permutation::new(len, &mut stream_rng(7, "t"));
            let mut seen: Vec<usize> = (0..len as u64).map(|i| p.get(i)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..len).collect::<Vec<_>>(), "len {len}");
        }
    }

    #[test]
    fn slots_never_share_an_item_within_a_round() {
        let p = Permutation::new(1000, &mut stream_rng(1, "x"));
        let mut all: Vec<usize> = (0..8)
            .flat_map(|s| {
                let mut st = Stream::new(p, s, 8);
                (0..125).map(move |_| st.next_index())
            })
            .collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 1000);
    }

    #[test]
    fn seeds_are_stable_and_distinct() {
        assert_eq!(cell_seed(0, "A1", 8), cell_seed(0, "A1", 8));
        assert_ne!(cell_seed(0, "A1", 8), cell_seed(0, "A1", 16));
        assert_ne!(cell_seed(0, "A1", 8), cell_seed(0, "A2", 8));
        assert_ne!(cell_seed(0, "A1", 8), cell_seed(1, "A1", 8));
        assert_eq!(stable_hash(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
