//! `phases`: adaptive ranges and precision checked, each problem named by its field.

use super::Validator;
use plateau_model::config::{AdaptivePhases, PhaseRange, PhasesConfig};

impl Validator {
    /// `phases`: the adaptive settings (defaults applied) when adaptive and valid.
    pub(in crate::plan) fn phases(&mut self, p: &PhasesConfig) -> Option<AdaptivePhases> {
        for key in p.unused_keys() {
            self.problem(
                format!("phases.{key}"),
                "only used with \"mode\": \"adaptive\" (remove it, or set the mode)",
            );
        }
        let a = p.adaptive()?;
        let before = self.problems.len();
        self.phase_range("phases.stabilize", a.stabilize, false);
        self.phase_range("phases.measure", a.measure, true);
        if !(a.precision.is_finite() && a.precision > 0.0 && a.precision < 1.0) {
            self.problem(
                "phases.precision".into(),
                format!(
                    "got {}, expected a fraction above 0 and below 1 (0.02: 95% intervals within ±2%)",
                    a.precision
                ),
            );
        }
        (self.problems.len() == before).then_some(a)
    }

    fn phase_range(&mut self, field: &str, r: PhaseRange, positive: bool) {
        self.seconds(&format!("{field}.min"), r.min, positive);
        self.seconds(&format!("{field}.max"), r.max, true);
        if r.min > r.max {
            self.problem(
                format!("{field}.min"),
                format!("got {} above max {}, expected min <= max", r.min, r.max),
            );
        }
    }
}
