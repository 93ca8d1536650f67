//! Drawing lengths on a fixed grid of (0, 1): each distribution's moments and bounds, and
//! each bad parameter named with its range.

use super::*;

/// `n` draws at the midpoints `(i + 0.5) / n` of `n` equal strata of (0, 1): the sample is
/// the distribution's quantile function on a fixed grid, so its moments are the true
/// moments up to a discretisation error that shrinks with `n` (no randomness at all).
fn strata(d: &OutputTokens, n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let u = (i as f64 + 0.5) / n as f64;
            f64::from(d.draw(u, None).expect("not a dataset"))
        })
        .collect()
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt())
}

fn parse(json: &str) -> OutputTokens {
    serde_json::from_str(json).unwrap()
}

#[test]
fn uniform_takes_every_integer_equally_often() {
    let d = parse(r#"{"dist": "uniform", "min": 10, "max": 20}"#);
    let v = strata(&d, 11_000);
    for k in 10..=20 {
        assert_eq!(
            v.iter().filter(|&&x| x == f64::from(k)).count(),
            1_000,
            "{k}"
        );
    }
    let (mean, sd) = mean_sd(&v);
    // Discrete uniform on 11 values: mean 15, variance (11^2 - 1) / 12 = 10, exactly.
    assert_eq!(mean, 15.0);
    assert!((sd - 10f64.sqrt()).abs() < 1e-9, "{sd}");
}

#[test]
fn normal_has_its_mean_and_stddev() {
    let d = parse(r#"{"dist": "normal", "mean": 200, "stddev": 20}"#);
    let (mean, sd) = mean_sd(&strata(&d, 100_000));
    // Clamping at 1 is 9.95 sd away (never happens); rounding adds variance 1/12, so the
    // sd is sqrt(400 + 1/12) = 20.002; the grid's tails stop at 4.4 sd (sd 0.05% short).
    assert!((mean - 200.0).abs() < 0.01, "{mean}");
    assert!((sd - 20.002).abs() < 0.02, "{sd}");
}

#[test]
fn normal_is_clamped_to_its_bounds() {
    let d = parse(r#"{"dist": "normal", "mean": 100, "stddev": 50, "min": 80, "max": 120}"#);
    let v = strata(&d, 100_000);
    assert!(v.iter().all(|&x| (80.0..=120.0).contains(&x)));
    // Rounded to 80 when below 80.5: P(Z < -0.39) = 0.34827.
    let at_min = v.iter().filter(|&&x| x == 80.0).count() as f64 / v.len() as f64;
    assert!((at_min - 0.34827).abs() < 0.0001, "{at_min}");
}

#[test]
fn lognormal_has_its_median_and_mean() {
    let d = parse(r#"{"dist": "lognormal", "median": 100, "sigma": 0.5}"#);
    let mut v = strata(&d, 100_000);
    let (mean, _) = mean_sd(&v);
    // Mean of a lognormal: median * exp(sigma^2 / 2) = 113.315; the grid misses the
    // far right tail (beyond 4.4 sd), which holds under 0.01% of the mean.
    assert!((mean - 113.315).abs() < 0.05, "{mean}");
    v.sort_by(f64::total_cmp);
    assert_eq!(v[50_000], 100.0);
    assert!(v[0] >= 1.0);
}

#[test]
fn dataset_uses_the_reply_length_within_bounds() {
    let d = parse(r#"{"dist": "dataset", "max": 256}"#);
    assert_eq!(d.draw(0.3, Some(120)), Some(120));
    assert_eq!(d.draw(0.3, Some(900)), Some(256));
    assert_eq!(d.draw(0.3, Some(0)), Some(1));
    assert_eq!(d.draw(0.3, None), None);
    assert!(d.from_dataset());
    assert_eq!(d.fixed(), None);
}

#[test]
fn a_number_still_means_fixed() {
    assert_eq!(parse("64"), OutputTokens::Fixed(64));
    assert_eq!(
        parse(r#""64""#),
        OutputTokens::Fixed(64),
        "env vars give strings"
    );
    assert_eq!(parse("64").fixed(), Some(64));
    assert_eq!(parse(r#"{"dist": "fixed", "tokens": 9}"#).fixed(), Some(9));
    assert_eq!(
        serde_json::to_string(&OutputTokens::Fixed(64)).unwrap(),
        "64"
    );
    assert_eq!(parse("64").draw(0.99, Some(3)), Some(64));
    let d = parse(r#"{"dist": "normal", "mean": 10, "stddev": 2}"#);
    assert_eq!(
        serde_json::to_string(&d).unwrap(),
        r#"{"dist":"normal","mean":10.0,"stddev":2.0,"min":1}"#
    );
    assert_eq!(
        d.to_string(),
        r#"{"dist":"normal","mean":10.0,"stddev":2.0,"min":1}"#
    );
}

#[test]
fn bad_parameters_name_the_field_and_the_range() {
    for (json, field, message) in [
        ("0", "", "got 0, expected from 1 to 1000000 tokens"),
        (
            r#"{"dist": "fixed", "tokens": 0}"#,
            "tokens",
            "got 0, expected from 1 to 1000000 tokens",
        ),
        (
            r#"{"dist": "uniform", "min": 0, "max": 5}"#,
            "min",
            "got 0, expected from 1 to 1000000 tokens",
        ),
        (
            r#"{"dist": "uniform", "min": 50, "max": 5}"#,
            "max",
            "got 5, expected at least min (50) and at most 1000000",
        ),
        (
            r#"{"dist": "normal", "mean": 0, "stddev": 5}"#,
            "mean",
            "got 0, expected above 0 and at most 1000000 tokens",
        ),
        (
            r#"{"dist": "normal", "mean": 100, "stddev": -1}"#,
            "stddev",
            "got -1, expected 0 or more tokens",
        ),
        (
            r#"{"dist": "lognormal", "median": 100, "sigma": 9}"#,
            "sigma",
            "got 9, expected from 0 to 5 (the spread of ln(length))",
        ),
        (
            r#"{"dist": "lognormal", "median": -3, "sigma": 1}"#,
            "median",
            "got -3, expected above 0 and at most 1000000 tokens",
        ),
        (
            r#"{"dist": "dataset", "min": 10, "max": 2000000}"#,
            "max",
            "got 2000000, expected from 1 to 1000000 tokens",
        ),
    ] {
        let err = parse(json).check().unwrap_err();
        assert_eq!(err, (field.to_owned(), message.to_owned()), "{json}");
    }
}

#[test]
fn bad_shapes_are_rejected_by_serde_with_the_expected_shape() {
    for (json, want) in [
        (
            r#"{"dist": "zipf"}"#,
            "unknown variant `zipf`, expected one of `fixed`, `uniform`, `normal`, `lognormal`, `dataset`",
        ),
        (r#"{"dist": "uniform", "min": 1}"#, "missing field `max`"),
        (
            r#"{"dist": "uniform", "min": 1, "max": 2, "mean": 3}"#,
            "unknown field `mean`",
        ),
        (r#"{"min": 1}"#, "missing field `dist`"),
        (
            "16.5",
            "invalid type: floating point `16.5`, expected a number of tokens or a distribution",
        ),
        (
            "-3",
            "invalid value: integer `-3`, expected a number of tokens",
        ),
        (
            r#""lots""#,
            "invalid value: string \"lots\", expected a number of tokens",
        ),
    ] {
        let err = serde_json::from_str::<OutputTokens>(json)
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{json}: {err}");
    }
}
