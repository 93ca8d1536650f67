//! [`SmallSample`]: which of a distribution's percentiles rest on too few values, held as a
//! set of bits (a report holds one per distribution per cell) and written as labels.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::PERCENTILES;

/// Percentiles with too few expected values beyond them, a subset of the reported ones
/// (`"p50"`, `"p90"`, `"p95"`, `"p99"`, `"p99.9"`); in `summary.json` the list of their
/// labels, in that order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SmallSample(u8);

impl SmallSample {
    /// The set of the percentiles (by per-mille) that `flagged` keeps.
    pub(super) fn of(flagged: impl Fn(u64) -> bool) -> SmallSample {
        let bits = PERCENTILES
            .iter()
            .enumerate()
            .filter(|(_, (_, per_mille))| flagged(*per_mille))
            .fold(0, |b, (i, _)| b | 1 << i);
        SmallSample(bits)
    }

    /// Whether the percentile labelled `label` (`"p99"`) is flagged.
    pub fn contains(&self, label: &str) -> bool {
        self.iter().any(|l| l == label)
    }

    /// The flagged percentiles' labels, lowest percentile first.
    pub fn iter(&self) -> impl Iterator<Item = &'static str> + '_ {
        PERCENTILES
            .iter()
            .enumerate()
            .filter(|(i, _)| self.0 & 1 << i != 0)
            .map(|(_, (label, _))| *label)
    }

    /// Whether no percentile is flagged.
    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }

    /// Flags the percentile labelled `label`; an error names it when it is not one of the
    /// reported percentiles.
    pub fn insert(&mut self, label: &str) -> Result<(), String> {
        let i = PERCENTILES
            .iter()
            .position(|(l, _)| *l == label)
            .ok_or_else(|| {
                let known: Vec<&str> = PERCENTILES.iter().map(|(l, _)| *l).collect();
                format!("unknown percentile `{label}` in small_sample, expected one of {known:?}")
            })?;
        self.0 |= 1 << i;
        Ok(())
    }
}

impl Serialize for SmallSample {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for SmallSample {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<SmallSample, D::Error> {
        // A label this plateau does not report (a file from a newer one) is left out, as
        // the results' unknown fields are: no percentile here can be asked about it.
        let labels = Vec::<String>::deserialize(d)?;
        let mut set = SmallSample::default();
        for label in &labels {
            let _ = set.insert(label);
        }
        Ok(set)
    }
}

#[cfg(test)]
mod tests {
    use super::SmallSample;

    #[test]
    fn labels_round_trip_in_order_and_unknown_ones_are_left_out_when_read() {
        let s: SmallSample = serde_json::from_str(r#"["p99.9", "p95"]"#).unwrap();
        assert!(s.contains("p95") && s.contains("p99.9") && !s.contains("p99"));
        assert_eq!(serde_json::to_string(&s).unwrap(), r#"["p95","p99.9"]"#);
        assert_eq!(std::mem::size_of::<SmallSample>(), 1);
        let newer: SmallSample = serde_json::from_str(r#"["p42", "p99"]"#).unwrap();
        assert_eq!(newer.iter().collect::<Vec<_>>(), ["p99"]);
        let err = SmallSample::default().insert("p42").unwrap_err();
        assert!(err.contains("unknown percentile `p42`"), "{err}");
    }
}
