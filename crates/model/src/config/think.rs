//! A session's think time ([`Think`]): how long a user waits after a turn's reply before
//! sending the next turn, drawn per turn from a distribution (fixed, uniform, exponential,
//! lognormal) and capped. The draw takes a uniform number `u` in (0, 1) from the caller, so
//! the same seed and turn give the same wait at every N.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};

/// The longest think time plateau accepts, seconds (one hour).
pub const MAX_THINK_S: f64 = 3600.0;

/// A distribution of think times, tagged by `dist`; every variant but `fixed` takes an
/// optional `cap_s` (no draw is longer).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "dist", rename_all = "snake_case", deny_unknown_fields)]
pub enum Think {
    /// Always `seconds`.
    Fixed {
        /// The wait, seconds.
        seconds: f64,
    },
    /// Equally likely from `min_s` to `max_s`.
    Uniform {
        /// Shortest, seconds.
        min_s: f64,
        /// Longest, seconds.
        max_s: f64,
    },
    /// Exponential with mean `mean_s` (memoryless users), capped at `cap_s`.
    Exponential {
        /// Mean, seconds.
        mean_s: f64,
        /// Longest, seconds (default: none below an hour).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cap_s: Option<f64>,
    },
    /// Lognormal: `ln(wait)` is normal with mean `ln(median_s)` and standard deviation
    /// `sigma`; capped at `cap_s`.
    Lognormal {
        /// Median, seconds.
        median_s: f64,
        /// Spread of `ln(wait)`.
        sigma: f64,
        /// Longest, seconds (default: none below an hour).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cap_s: Option<f64>,
    },
}

impl Think {
    /// Checks the parameters: `Err((field, message))` names the offending field and the
    /// expected range.
    pub fn check(&self) -> Result<(), (String, String)> {
        let seconds = |field: &str, x: f64, zero_ok: bool| {
            let low_ok = if zero_ok { x >= 0.0 } else { x > 0.0 };
            if x.is_finite() && low_ok && x <= MAX_THINK_S {
                Ok(())
            } else {
                let low = if zero_ok { "from 0" } else { "above 0" };
                Err((
                    field.to_owned(),
                    format!("got {x}, expected {low} to {MAX_THINK_S} seconds"),
                ))
            }
        };
        let cap = |cap: Option<f64>| cap.map_or(Ok(()), |c| seconds("cap_s", c, true));
        match *self {
            Think::Fixed { seconds: s } => seconds("seconds", s, true),
            Think::Uniform { min_s, max_s } => {
                seconds("min_s", min_s, true)?;
                seconds("max_s", max_s, true)?;
                if max_s < min_s {
                    return Err((
                        "max_s".into(),
                        format!("got {max_s}, expected at least min_s ({min_s})"),
                    ));
                }
                Ok(())
            }
            Think::Exponential { mean_s, cap_s } => {
                seconds("mean_s", mean_s, false)?;
                cap(cap_s)
            }
            Think::Lognormal {
                median_s,
                sigma,
                cap_s,
            } => {
                seconds("median_s", median_s, false)?;
                if !(sigma.is_finite() && (0.0..=5.0).contains(&sigma)) {
                    return Err((
                        "sigma".into(),
                        format!("got {sigma}, expected from 0 to 5 (the spread of ln(wait))"),
                    ));
                }
                cap(cap_s)
            }
        }
    }

    /// The think time for the uniform draw `u` in (0, 1), capped and never above
    /// [`MAX_THINK_S`].
    pub fn draw(&self, u: f64) -> Duration {
        let u = u.clamp(f64::MIN_POSITIVE, 1.0 - f64::EPSILON);
        let (raw, cap) = match *self {
            Think::Fixed { seconds } => (seconds, None),
            Think::Uniform { min_s, max_s } => (min_s + u * (max_s - min_s), None),
            Think::Exponential { mean_s, cap_s } => (-mean_s * (1.0 - u).ln(), cap_s),
            Think::Lognormal {
                median_s,
                sigma,
                cap_s,
            } => {
                let z = Normal::new(0.0, 1.0)
                    .map(|n| n.inverse_cdf(u))
                    .unwrap_or(0.0);
                ((median_s.ln() + sigma * z).exp(), cap_s)
            }
        };
        let top = cap.unwrap_or(MAX_THINK_S).min(MAX_THINK_S);
        let s = if raw.is_nan() {
            0.0
        } else {
            raw.clamp(0.0, top)
        };
        Duration::from_secs_f64(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn think(json: &str) -> Think {
        serde_json::from_str(json).expect("a think time")
    }

    #[test]
    fn draws_follow_each_distribution() {
        let ms = |t: &Think, u| t.draw(u).as_secs_f64() * 1e3;
        let fixed = think(r#"{"dist": "fixed", "seconds": 1.5}"#);
        assert_eq!(ms(&fixed, 0.3), 1500.0);
        let uniform = think(r#"{"dist": "uniform", "min_s": 1, "max_s": 3}"#);
        assert!((ms(&uniform, 0.25) - 1500.0).abs() < 1e-6);
        let exp = think(r#"{"dist": "exponential", "mean_s": 2, "cap_s": 5}"#);
        // The median of an exponential is mean * ln 2.
        assert!((ms(&exp, 0.5) - 2000.0 * 2f64.ln()).abs() < 1e-6);
        assert_eq!(ms(&exp, 0.999_999), 5000.0, "capped");
        let logn = think(r#"{"dist": "lognormal", "median_s": 4, "sigma": 1}"#);
        assert!((ms(&logn, 0.5) - 4000.0).abs() < 1e-6);
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let field = |json: &str| think(json).check().expect_err("refused").0;
        assert_eq!(field(r#"{"dist": "fixed", "seconds": -1}"#), "seconds");
        assert_eq!(
            field(r#"{"dist": "uniform", "min_s": 3, "max_s": 1}"#),
            "max_s"
        );
        assert_eq!(field(r#"{"dist": "exponential", "mean_s": 0}"#), "mean_s");
        assert_eq!(
            field(r#"{"dist": "lognormal", "median_s": 1, "sigma": 9}"#),
            "sigma"
        );
        assert_eq!(
            field(r#"{"dist": "exponential", "mean_s": 1, "cap_s": 99999}"#),
            "cap_s"
        );
        let unknown = serde_json::from_str::<Think>(r#"{"dist": "fixed", "secs": 1}"#);
        assert!(unknown.is_err(), "unknown fields are refused");
    }
}
