//! `max_tokens` as written: a plain number (every request asks for it, as before) or a
//! distribution each request's `max_tokens` is drawn from ([`LengthDist`]), globally or per
//! scenario in `scenario_options.<id>.max_tokens`.
//!
//! Drawing is a pure function of a uniform number in (0, 1) ([`OutputTokens::draw`]): the
//! workloads derive that number from the run's seed, the scenario and the request's index,
//! so the same request index asks for the same length at every N. Normal and lognormal use
//! the inverse normal CDF, so a draw needs no random-number state.
//!
//! Parameters: `uniform` is `{min, max}`, integers inclusive (what `vllm bench serve
//! --random-output-len L --random-range-ratio r` draws from, with min `L(1-r)`, max
//! `L(1+r)`); `normal` is GuideLLM's `output_tokens`, `output_tokens_stdev`,
//! `output_tokens_min`, `output_tokens_max` as `{mean, stddev, min, max}`, rounded and
//! clamped; `lognormal` is numpy's `lognormal(mean=ln(median), sigma)` as `{median, sigma,
//! min, max}` (neither peer has one); `dataset` is the reply length of the dataset record
//! each prompt comes from (`vllm bench serve --dataset-name sharegpt`'s output lengths),
//! clamped to `{min, max}`.

use std::fmt;

use schemars::JsonSchema;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};

/// The longest `max_tokens` a request may ask for.
pub const MAX_OUTPUT_TOKENS: u32 = 1_000_000;

/// Each request's `max_tokens`: a number, or a distribution.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum OutputTokens {
    /// Every request asks for this many tokens.
    Fixed(u32),
    /// Each request's length is drawn from this distribution.
    Dist(LengthDist),
}

/// A distribution of output lengths, tagged by `dist`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "dist", rename_all = "snake_case", deny_unknown_fields)]
pub enum LengthDist {
    /// Always `tokens` (the same as a plain number).
    Fixed {
        /// The length.
        tokens: u32,
    },
    /// Integers from `min` to `max`, inclusive, equally likely.
    Uniform {
        /// Shortest.
        min: u32,
        /// Longest.
        max: u32,
    },
    /// Normal with `mean` and `stddev`, rounded and clamped to `[min, max]`.
    Normal {
        /// Mean, tokens.
        mean: f64,
        /// Standard deviation, tokens.
        stddev: f64,
        /// Shortest (default 1).
        #[serde(default = "one")]
        min: u32,
        /// Longest (default: no bound below 1,000,000).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<u32>,
    },
    /// Lognormal: `ln(length)` is normal with mean `ln(median)` and standard deviation
    /// `sigma`; rounded and clamped to `[min, max]`. Its mean is `median * exp(sigma^2 / 2)`.
    Lognormal {
        /// Median, tokens.
        median: f64,
        /// Standard deviation of `ln(length)`.
        sigma: f64,
        /// Shortest (default 1).
        #[serde(default = "one")]
        min: u32,
        /// Longest (default: no bound below 1,000,000).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<u32>,
    },
    /// The reply length of the dataset record each prompt comes from, clamped to `[min,
    /// max]`; only for scenarios whose dataset has replies.
    Dataset {
        /// Shortest (default 1).
        #[serde(default = "one")]
        min: u32,
        /// Longest (default: no bound below 1,000,000).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<u32>,
    },
}

fn one() -> u32 {
    1
}

impl Default for OutputTokens {
    fn default() -> Self {
        OutputTokens::Fixed(512)
    }
}

impl OutputTokens {
    /// The length every request asks for, when it is the same for all.
    pub fn fixed(&self) -> Option<u32> {
        match *self {
            OutputTokens::Fixed(n) | OutputTokens::Dist(LengthDist::Fixed { tokens: n }) => Some(n),
            OutputTokens::Dist(_) => None,
        }
    }

    /// `max_tokens` for prompts that carry none: the fixed length, else the distribution's
    /// upper bound, else 512.
    pub fn fallback(&self) -> u32 {
        self.fixed().unwrap_or(match *self {
            OutputTokens::Dist(LengthDist::Uniform { max, .. }) => max,
            OutputTokens::Dist(
                LengthDist::Normal { max, .. }
                | LengthDist::Lognormal { max, .. }
                | LengthDist::Dataset { max, .. },
            ) => max.unwrap_or(512),
            _ => 512,
        })
    }

    /// The shortest length it can give.
    pub fn shortest(&self) -> u32 {
        match *self {
            OutputTokens::Fixed(n) => n,
            OutputTokens::Dist(d) => match d {
                LengthDist::Fixed { tokens } => tokens,
                LengthDist::Uniform { min, .. }
                | LengthDist::Normal { min, .. }
                | LengthDist::Lognormal { min, .. }
                | LengthDist::Dataset { min, .. } => min,
            },
        }
    }

    /// Whether lengths come from the dataset's replies.
    pub fn from_dataset(&self) -> bool {
        matches!(self, OutputTokens::Dist(LengthDist::Dataset { .. }))
    }

    /// Checks the parameters: `Err((field, message))` names the offending field (`stddev`,
    /// or empty for the number itself) and the expected range.
    pub fn check(&self) -> Result<(), (String, String)> {
        fn bad(field: &str, m: String) -> Result<(), (String, String)> {
            Err((field.to_owned(), m))
        }
        let length = |field: &str, n: u32| {
            if (1..=MAX_OUTPUT_TOKENS).contains(&n) {
                Ok(())
            } else {
                bad(
                    field,
                    format!("got {n}, expected from 1 to {MAX_OUTPUT_TOKENS} tokens"),
                )
            }
        };
        let bounds = |min: u32, max: Option<u32>| {
            length("min", min)?;
            match max {
                Some(max) if max < min => bad(
                    "max",
                    format!(
                        "got {max}, expected at least min ({min}) and at most {MAX_OUTPUT_TOKENS}"
                    ),
                ),
                Some(max) => length("max", max),
                None => Ok(()),
            }
        };
        let positive = |field: &str, x: f64| {
            if x.is_finite() && x > 0.0 && x <= f64::from(MAX_OUTPUT_TOKENS) {
                Ok(())
            } else {
                bad(
                    field,
                    format!("got {x}, expected above 0 and at most {MAX_OUTPUT_TOKENS} tokens"),
                )
            }
        };
        match *self {
            OutputTokens::Fixed(n) => length("", n),
            OutputTokens::Dist(d) => match d {
                LengthDist::Fixed { tokens } => length("tokens", tokens),
                LengthDist::Uniform { min, max } => bounds(min, Some(max)),
                LengthDist::Normal {
                    mean,
                    stddev,
                    min,
                    max,
                } => {
                    positive("mean", mean)?;
                    if !(stddev.is_finite() && stddev >= 0.0) {
                        return bad("stddev", format!("got {stddev}, expected 0 or more tokens"));
                    }
                    bounds(min, max)
                }
                LengthDist::Lognormal {
                    median,
                    sigma,
                    min,
                    max,
                } => {
                    positive("median", median)?;
                    if !(sigma.is_finite() && (0.0..=5.0).contains(&sigma)) {
                        return bad(
                            "sigma",
                            format!("got {sigma}, expected from 0 to 5 (the spread of ln(length))"),
                        );
                    }
                    bounds(min, max)
                }
                LengthDist::Dataset { min, max } => bounds(min, max),
            },
        }
    }

    /// The length drawn at `u` (uniform in the open interval (0, 1)); `reply` is the
    /// dataset's reply length for this request, if it has one. `None` only for `dataset`
    /// without a reply length.
    pub fn draw(&self, u: f64, reply: Option<u32>) -> Option<u32> {
        let u = u.clamp(f64::MIN_POSITIVE, 1.0 - f64::EPSILON);
        let clamp = |x: f64, min: u32, max: Option<u32>| {
            let hi = max.unwrap_or(MAX_OUTPUT_TOKENS).min(MAX_OUTPUT_TOKENS);
            let lo = min.clamp(1, hi);
            // Rounded, then clamped in f64 so huge or NaN draws cannot wrap.
            let x = if x.is_nan() { f64::from(lo) } else { x.round() };
            x.clamp(f64::from(lo), f64::from(hi)) as u32
        };
        let z = || {
            Normal::new(0.0, 1.0)
                .map(|n| n.inverse_cdf(u))
                .unwrap_or(0.0)
        };
        Some(match *self {
            OutputTokens::Fixed(n) => n,
            OutputTokens::Dist(d) => match d {
                LengthDist::Fixed { tokens } => tokens,
                LengthDist::Uniform { min, max } => {
                    let span = f64::from(max.saturating_sub(min)) + 1.0;
                    min + ((u * span).floor() as u32).min(max.saturating_sub(min))
                }
                LengthDist::Normal {
                    mean,
                    stddev,
                    min,
                    max,
                } => clamp(mean + stddev * z(), min, max),
                LengthDist::Lognormal {
                    median,
                    sigma,
                    min,
                    max,
                } => clamp((median.ln() + sigma * z()).exp(), min, max),
                LengthDist::Dataset { min, max } => clamp(f64::from(reply?), min, max),
            },
        })
    }
}

impl fmt::Display for OutputTokens {
    /// A number as is; a distribution as compact JSON (`{"dist":"uniform","min":1,...}`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputTokens::Fixed(n) => write!(f, "{n}"),
            OutputTokens::Dist(d) => match serde_json::to_string(d) {
                Ok(s) => f.write_str(&s),
                Err(_) => write!(f, "{d:?}"),
            },
        }
    }
}

impl<'de> Deserialize<'de> for OutputTokens {
    /// A number (also as a string, as environment variables give it) or a `{"dist": ...}`
    /// object, with serde's own message for a bad field of the object.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OutputTokens;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a number of tokens or a distribution such as {\"dist\": \"uniform\", \"min\": 64, \"max\": 512}",
                )
            }

            fn visit_u64<E: de::Error>(self, n: u64) -> Result<OutputTokens, E> {
                u32::try_from(n)
                    .map(OutputTokens::Fixed)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(n), &self))
            }

            fn visit_i64<E: de::Error>(self, n: i64) -> Result<OutputTokens, E> {
                u64::try_from(n)
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(n), &self))
                    .and_then(|n| self.visit_u64(n))
            }

            fn visit_str<E: de::Error>(self, s: &str) -> Result<OutputTokens, E> {
                match s.trim().parse::<u32>() {
                    Ok(n) => Ok(OutputTokens::Fixed(n)),
                    Err(_) => Err(E::invalid_value(de::Unexpected::Str(s), &self)),
                }
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<OutputTokens, A::Error> {
                LengthDist::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(OutputTokens::Dist)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests;
