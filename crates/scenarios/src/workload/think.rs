//! A session scenario's think times ([`ThinkTimes`]): the wait after each turn's reply,
//! drawn from the scenario's `think` setting at the turn's request index, so the same
//! seed gives the same waits at every N (like output lengths, [`crate::lengths`]).

use std::time::Duration;

use plateau_model::config::Think;

use crate::rng::unit_for;

/// The think times of one scenario under the plan's seed.
#[derive(Clone, Debug, PartialEq)]
pub struct ThinkTimes {
    think: Option<Think>,
    seed: u64,
    scenario: String,
}

impl ThinkTimes {
    /// Think times of `scenario` from `think` (none: users answer at once).
    pub fn new(think: Option<Think>, seed: u64, scenario: &str) -> ThinkTimes {
        ThinkTimes {
            think,
            seed,
            scenario: scenario.to_owned(),
        }
    }

    /// The wait after request `index`'s reply.
    pub fn at(&self, index: u64) -> Duration {
        self.think.map_or(Duration::ZERO, |t| {
            t.draw(unit_for(self.seed, &self.scenario, "think", index))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_are_seeded_per_index_and_absent_without_a_setting() {
        let think = Think::Exponential {
            mean_s: 2.0,
            cap_s: Some(10.0),
        };
        let a = ThinkTimes::new(Some(think), 7, "D");
        let b = ThinkTimes::new(Some(think), 7, "D");
        let waits: Vec<Duration> = (0..200).map(|i| a.at(i)).collect();
        assert_eq!(waits, (0..200).map(|i| b.at(i)).collect::<Vec<_>>());
        assert!(waits.iter().all(|w| *w <= Duration::from_secs(10)));
        let mean = waits.iter().map(Duration::as_secs_f64).sum::<f64>() / 200.0;
        assert!(
            (1.5..2.5).contains(&mean),
            "mean {mean} s of an exponential of mean 2 s"
        );
        assert_ne!(a.at(0), ThinkTimes::new(Some(think), 8, "D").at(0));
        assert_eq!(ThinkTimes::new(None, 7, "D").at(3), Duration::ZERO);
    }
}
