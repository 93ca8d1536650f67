//! `check`: how much worse a headline number may get before `plateau check` calls it a
//! regression (`{"server_tps": "-3%", "ttft_p99": "+10%"}`), checked as the config is read:
//! a name the gate does not know, a sign against the number's direction or a value that is
//! not a percentage is an error naming the key.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::quantity::{self as q, Better, Quantity};

/// Every number the gate can judge, by its name in `check`.
pub const GATED: [(&str, Quantity); 14] = [
    ("server_tps", q::SERVER_TPS),
    ("request_rps", q::REQUEST_RPS),
    ("ttft_p50", q::TTFT_P50),
    ("ttft_p99", q::TTFT_P99),
    ("ttft_mean", q::TTFT_MEAN),
    ("tpot_p50", q::TPOT_P50),
    ("tpot_p99", q::TPOT_P99),
    ("tpot_mean", q::TPOT_MEAN),
    ("itl_p99", q::ITL_P99),
    ("e2e_p50", q::E2E_P50),
    ("e2e_p99", q::E2E_P99),
    ("e2e_mean", q::E2E_MEAN),
    ("goodput_fraction", q::GOODPUT_FRACTION),
    ("error_rate", q::ERROR_RATE),
];

/// The tolerances of a config that sets none: the throughput and the headline latencies.
pub const DEFAULT_TOLERANCES: [(&str, f64); 6] = [
    ("server_tps", -3.0),
    ("request_rps", -3.0),
    ("ttft_p99", 10.0),
    ("tpot_p50", 3.0),
    ("tpot_p99", 5.0),
    ("e2e_p99", 5.0),
];

/// The quantity a gate name stands for.
pub fn gated(name: &str) -> Option<Quantity> {
    GATED.iter().find(|(n, _)| *n == name).map(|(_, q)| *q)
}

/// A change in percent of the baseline, signed the way the number gets worse (`-3` for a
/// throughput, `+10` for a latency).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance(pub f64);

impl Tolerance {
    /// Parses `"+10%"` or `"-3%"`.
    pub fn parse(text: &str) -> Result<Tolerance, String> {
        let t = text.trim();
        let number = t
            .strip_suffix('%')
            .filter(|n| n.starts_with(['+', '-']))
            .ok_or_else(|| {
                format!("expected a signed percentage such as \"-3%\" or \"+10%\", found {text:?}")
            })?;
        let v: f64 = number
            .parse()
            .map_err(|_| format!("{text:?} is not a number of percent"))?;
        if !v.is_finite() || v == 0.0 {
            return Err(format!(
                "{text:?}: a tolerance is a non-zero finite percentage"
            ));
        }
        Ok(Tolerance(v))
    }
}

impl fmt::Display for Tolerance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:+}%", self.0)
    }
}

/// The gate's tolerances, by name ([`GATED`]); empty: [`DEFAULT_TOLERANCES`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CheckConfig(pub BTreeMap<String, Tolerance>);

impl CheckConfig {
    /// The tolerances the gate applies: these, or the defaults when none is set.
    pub fn tolerances(&self) -> Vec<(&'static str, Quantity, Tolerance)> {
        let set: Vec<(String, f64)> = if self.0.is_empty() {
            DEFAULT_TOLERANCES
                .iter()
                .map(|(n, v)| ((*n).to_owned(), *v))
                .collect()
        } else {
            self.0.iter().map(|(n, t)| (n.clone(), t.0)).collect()
        };
        GATED
            .iter()
            .filter_map(|(n, q)| {
                let (_, v) = set.iter().find(|(s, _)| s == n)?;
                Some((*n, *q, Tolerance(*v)))
            })
            .collect()
    }

    /// Whether the config sets no tolerance.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Checks every name and sign; the error names the key.
    pub fn from_map(map: BTreeMap<String, String>) -> Result<CheckConfig, String> {
        let mut out = BTreeMap::new();
        for (name, text) in map {
            let Some(quantity) = gated(&name) else {
                let known: Vec<&str> = GATED.iter().map(|(n, _)| *n).collect();
                return Err(format!(
                    "check.{name}: not a number the gate judges (one of {})",
                    known.join(", ")
                ));
            };
            let t = Tolerance::parse(&text).map_err(|e| format!("check.{name}: {e}"))?;
            let worse = match quantity.better {
                Better::Higher => t.0 < 0.0,
                Better::Lower => t.0 > 0.0,
                Better::Neither => true,
            };
            if !worse {
                return Err(format!(
                    "check.{name}: {text:?} points the way {} improves; a tolerance says how \
                     much worse it may get ({} for this number)",
                    quantity.label,
                    if t.0 < 0.0 { "+" } else { "-" }
                ));
            }
            out.insert(name, t);
        }
        Ok(CheckConfig(out))
    }
}

impl Serialize for CheckConfig {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let map: BTreeMap<&String, String> =
            self.0.iter().map(|(k, v)| (k, v.to_string())).collect();
        map.serialize(s)
    }
}

impl<'de> Deserialize<'de> for CheckConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map = BTreeMap::<String, String>::deserialize(d)?;
        CheckConfig::from_map(map).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerances_parse_and_check_their_sign() {
        let ok: CheckConfig =
            serde_json::from_str(r#"{"server_tps": "-3%", "ttft_p99": "+10.5%"}"#).unwrap();
        let t = ok.tolerances();
        assert_eq!(t.len(), 2);
        assert_eq!((t[0].0, t[0].2), ("server_tps", Tolerance(-3.0)));
        assert_eq!((t[1].0, t[1].2), ("ttft_p99", Tolerance(10.5)));
        assert_eq!(
            serde_json::to_string(&ok).unwrap(),
            r#"{"server_tps":"-3%","ttft_p99":"+10.5%"}"#
        );
        for (json, says) in [
            (
                r#"{"server_tps": "+3%"}"#,
                "check.server_tps: \"+3%\" points the way",
            ),
            (
                r#"{"ttft_p99": "10%"}"#,
                "check.ttft_p99: expected a signed percentage",
            ),
            (
                r#"{"ttft_p99": "+x%"}"#,
                "check.ttft_p99: \"+x%\" is not a number",
            ),
            (
                r#"{"ttft_p42": "+1%"}"#,
                "check.ttft_p42: not a number the gate judges",
            ),
            (r#"{"tpot_p50": "+0%"}"#, "non-zero"),
        ] {
            let e = serde_json::from_str::<CheckConfig>(json)
                .unwrap_err()
                .to_string();
            assert!(e.contains(says), "{json}: {e}");
        }
        let defaults = CheckConfig::default().tolerances();
        assert_eq!(defaults.len(), DEFAULT_TOLERANCES.len());
    }
}
