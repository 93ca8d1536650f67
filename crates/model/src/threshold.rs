//! How every check writes a value against its limit ([`compare`]): with as many decimals as
//! it takes for the two to read differently, so a finding never says "5.0 > 5" or
//! "0.25 > 0.25" about a p99 of 5.04 ms or a cv of 0.2531.

/// Most decimals written: past this, two values that still read the same are equal for
/// any purpose a reader has.
const MAX_DIGITS: usize = 6;

/// `value op limit` (e.g. `"5.04 > 5.00"`), both written with `digits` decimals, or more,
/// up to `MAX_DIGITS` (6), until they read differently. Equal numbers stay at `digits`
/// (`"0.90 >= 0.90"` is true as written). `op` is written as given (`>`, `>=`, `<`, ...).
pub fn compare(value: f64, op: &str, limit: f64, digits: usize) -> String {
    let (v, l) = pair(value, limit, digits);
    format!("{v} {op} {l}")
}

/// `value` and `limit` with the decimals [`compare`] would use, for messages that place
/// them apart ("lag p99 5.04 ms (limit 5.00 ms)").
pub fn pair(value: f64, limit: f64, digits: usize) -> (String, String) {
    let mut d = digits;
    loop {
        let (v, l) = (format!("{value:.d$}"), format!("{limit:.d$}"));
        if v != l || value == limit || d >= MAX_DIGITS {
            return (v, l);
        }
        d += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exceedance_is_always_visible() {
        let rows: &[(f64, &str, f64, usize, &str)] = &[
            // The two contradictions, and what they read now.
            (5.04, ">", 5.0, 1, "5.04 > 5.00"),
            (0.2531, ">", 0.25, 2, "0.253 > 0.250"),
            // Already distinct at the asked precision: unchanged.
            (111.0, ">", 5.0, 1, "111.0 > 5.0"),
            (0.41, ">", 0.25, 2, "0.41 > 0.25"),
            // Below a limit, the same rule.
            (0.8999, "<", 0.9, 2, "0.8999 < 0.9000"),
            // Equal is written as given: true for >=.
            (0.9, ">=", 0.9, 2, "0.90 >= 0.90"),
            // Integers stay integers when they differ.
            (3.0, "<", 4.0, 0, "3 < 4"),
            // A difference past the last decimal stops there.
            (5.000_000_01, ">", 5.0, 1, "5.000000 > 5.000000"),
        ];
        for &(value, op, limit, digits, want) in rows {
            assert_eq!(
                compare(value, op, limit, digits),
                want,
                "{value} {op} {limit}"
            );
        }
    }

    #[test]
    fn pair_agrees_with_compare() {
        assert_eq!(pair(5.04, 5.0, 1), ("5.04".into(), "5.00".into()));
        assert_eq!(pair(-0.151, -0.15, 2), ("-0.151".into(), "-0.150".into()));
    }
}
