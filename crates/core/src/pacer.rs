//! The open loop's arrival schedule: when each request is meant to be sent, a pure function
//! of the arrival process, the rate, the Fill ramp and the seed — never of what the server
//! did. The runner sends arrival `k` at its instant however slow earlier requests are (no
//! coordinated omission).
//!
//! Arrivals are a renewal process in "operational time": gaps `X_k` with mean 1 (exponential
//! for Poisson, exactly 1 for constant, gamma with shape `k` and mean 1 for gamma), summed
//! to `S_k`, and mapped to wall time through the inverse of the cumulative rate
//! `Λ(t) = ∫ rate(u) du`. The rate ramps linearly from 0 to its target over Fill (no burst)
//! and holds after it, so Stabilize, Measure and Drain see exactly the target process.
//!
//! A trace replay ([`Pacer::replay`]) is the same schedule with the trace's own instants in
//! place of the drawn ones: it has no ramp, and it ends when the trace does.

use std::sync::Arc;
use std::time::Duration;

use statrs::distribution::{ContinuousCDF, Exp, Gamma};

use crate::splitmix::SplitMix;
use plateau_model::config::Arrival;

/// Arrival instants of one open-loop cell.
#[derive(Clone, Debug)]
pub struct Pacer {
    rps: f64,
    ramp_s: f64,
    gaps: Gaps,
    rng: SplitMix,
    /// `S_k`: operational time of the next arrival.
    next_s: f64,
}

#[derive(Clone, Debug)]
enum Gaps {
    Exponential(Exp),
    Constant,
    Gamma(Gamma),
    /// A trace's instants, and the index of the next.
    Replay(Arc<[Duration]>, usize),
}

impl Pacer {
    /// The schedule of arrivals at `rps` spaced by `arrival`, ramping up over `ramp` (Fill),
    /// drawn from `seed`. The first arrival is at 0. `rps` must be above 0 and a gamma
    /// shape above 0 (the plan checks both).
    pub fn new(rps: f64, arrival: Arrival, ramp: Duration, seed: u64) -> Pacer {
        let gaps = match arrival {
            Arrival::Poisson => Gaps::Exponential(Exp::new(1.0).expect("rate 1 is valid")),
            Arrival::Constant => Gaps::Constant,
            Arrival::Gamma(g) => match Gamma::new(g.burstiness, g.burstiness) {
                Ok(gamma) => Gaps::Gamma(gamma),
                Err(_) => Gaps::Exponential(Exp::new(1.0).expect("rate 1 is valid")),
            },
        };
        Pacer {
            rps,
            ramp_s: ramp.as_secs_f64(),
            gaps,
            rng: SplitMix::new(seed),
            next_s: 0.0,
        }
    }

    /// The schedule of a trace replay: arrival `k` at `instants[k]` since the cell's start
    /// (the caller sorts them), and no arrival after the last.
    pub fn replay(instants: Arc<[Duration]>) -> Pacer {
        Pacer {
            rps: 0.0,
            ramp_s: 0.0,
            gaps: Gaps::Replay(instants, 0),
            rng: SplitMix::new(0),
            next_s: 0.0,
        }
    }

    /// The intended send instant of the next arrival, since the cell's start; `None` once
    /// a replayed trace has no more.
    pub fn next_arrival(&mut self) -> Option<Duration> {
        if let Gaps::Replay(instants, next) = &mut self.gaps {
            let at = instants.get(*next).copied();
            *next += 1;
            return at;
        }
        let at = self.offset_of(self.next_s);
        let u = self.rng.unit();
        self.next_s += match &self.gaps {
            Gaps::Exponential(e) => e.inverse_cdf(u),
            Gaps::Gamma(g) => g.inverse_cdf(u),
            Gaps::Constant | Gaps::Replay(..) => 1.0,
        };
        Some(Duration::from_secs_f64(at))
    }

    /// Wall time (s) at which the cumulative rate reaches `s` arrivals: the inverse of
    /// `Λ(t) = rps t² / (2 ramp)` during the ramp, `rps ramp / 2 + rps (t - ramp)` after.
    fn offset_of(&self, s: f64) -> f64 {
        let ramp_arrivals = self.rps * self.ramp_s / 2.0;
        if s < ramp_arrivals {
            (2.0 * self.ramp_s * s / self.rps).sqrt()
        } else {
            self.ramp_s + (s - ramp_arrivals) / self.rps
        }
    }
}

#[cfg(test)]
mod tests;
