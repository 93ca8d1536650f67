//! Levels drawn as steps ([`steps`]): a bucket's count or a scraped gauge holds from its
//! instant until the next one's, so a line through them shows only values that were there.

/// `levels` (s, value) drawn as steps: each level holds from its instant until the next
/// one's, the last until `until`. A bucket's count and a scraped gauge are levels, not
/// points on a ramp: a line straight from one to the next would show values that were
/// never there (a queue of 0 then 8 is not 4 halfway between two scrapes).
pub fn steps(levels: &[(f64, f64)], until: f64) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(levels.len() * 2);
    for (i, &(t, v)) in levels.iter().enumerate() {
        let next = levels.get(i + 1).map_or(until.max(t), |n| n.0);
        out.push((t, v));
        out.push((next, v));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::steps;

    #[test]
    fn levels_hold_until_the_next_sample() {
        // Scrapes at 0, 0.25 and 0.5 s saw 8, 3 and 3 running; the cell ends at 0.6 s.
        let drawn = steps(&[(0.0, 8.0), (0.25, 3.0), (0.5, 3.0)], 0.6);
        assert_eq!(
            drawn,
            vec![
                (0.0, 8.0),
                (0.25, 8.0),
                (0.25, 3.0),
                (0.5, 3.0),
                (0.5, 3.0),
                (0.6, 3.0)
            ]
        );
        // Every segment is flat or vertical: no value between two levels is drawn.
        for w in drawn.windows(2) {
            assert!(w[0].0 == w[1].0 || w[0].1 == w[1].1, "{w:?}");
        }
        // A last sample after `until` ends where it is; nothing gives nothing.
        assert_eq!(steps(&[(0.7, 1.0)], 0.6), vec![(0.7, 1.0), (0.7, 1.0)]);
        assert!(steps(&[], 1.0).is_empty());
    }
}
