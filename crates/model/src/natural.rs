//! Natural order for cell paths and labels: runs of digits compare as numbers, so `c4`
//! comes before `c16` and `r2.5` before `r10` (a decimal point splits the runs, which keeps
//! rates with the same number of decimals in order).

use std::cmp::Ordering;

/// `a` against `b`, digit runs as numbers (shorter runs of leading zeros first on a tie),
/// everything else byte by byte.
pub fn cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a.first(), b.first()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let (da, ra) = digits(a);
                let (db, rb) = digits(b);
                let (ta, tb) = (trim_zeros(da), trim_zeros(db));
                let order = ta
                    .len()
                    .cmp(&tb.len())
                    .then_with(|| ta.cmp(tb))
                    .then_with(|| da.len().cmp(&db.len()));
                if order != Ordering::Equal {
                    return order;
                }
                (a, b) = (ra, rb);
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(y);
                }
                (a, b) = (&a[1..], &b[1..]);
            }
        }
    }
}

/// The leading run of ASCII digits of `s`, and the rest.
fn digits(s: &[u8]) -> (&[u8], &[u8]) {
    let n = s.iter().take_while(|c| c.is_ascii_digit()).count();
    s.split_at(n)
}

fn trim_zeros(d: &[u8]) -> &[u8] {
    let n = d.iter().take_while(|&&c| c == b'0').count();
    &d[n.min(d.len().saturating_sub(1))..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_inside_names_sort_by_value() {
        let mut v = vec![
            "sim/m/A1/c16",
            "sim/m/A1/c4",
            "sim/m/A1/c1",
            "sim/m/A1/c8",
            "sim/m/A1/c8-2",
            "sim/m/B1/c1",
            "sim/m/A1/r10",
            "sim/m/A1/r2.5",
        ];
        v.sort_by(|a, b| cmp(a, b));
        assert_eq!(
            v,
            [
                "sim/m/A1/c1",
                "sim/m/A1/c4",
                "sim/m/A1/c8",
                "sim/m/A1/c8-2",
                "sim/m/A1/c16",
                "sim/m/A1/r2.5",
                "sim/m/A1/r10",
                "sim/m/B1/c1",
            ]
        );
        assert_eq!(cmp("a", "a"), Ordering::Equal);
        assert_eq!(cmp("a", "a0"), Ordering::Less);
        assert_eq!(cmp("x0", "x00"), Ordering::Less);
    }
}
