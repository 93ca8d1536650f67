//! The adaptive rules on synthetic closed-loop records with a known warm-up.

use super::*;
use crate::metrics::fixtures::{ok, sample};

/// Eight slots of back-to-back requests from 0 to `end_s`: TTFT 50 ms and 0.5 s per
/// request (10 tokens) with ±20% noise, slower by up to 3x before `warmup_s` (falling
/// linearly to the steady level).
fn cell(end_s: f64, warmup_s: f64, seed: u64) -> Vec<Sample> {
    let mut state = seed;
    let mut noise = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.4
    };
    let mut out = Vec::new();
    for slot in 0..8u64 {
        let mut t = slot * 60_000;
        while (t as f64) < end_s * 1e6 {
            let slow = 1.0 + 2.0 * (1.0 - t as f64 / 1e6 / warmup_s).max(0.0);
            let ttft = (50_000.0 * slow * (1.0 + noise())) as u64;
            let e2e = (500_000.0 * slow * (1.0 + noise())) as u64;
            let step = (e2e - ttft) / 10;
            let chunks: Vec<(u64, u32)> = (0..10).map(|k| (t + ttft + k * step, 1)).collect();
            out.push(ok(sample(t, &chunks, t + e2e)));
            t += e2e;
        }
    }
    out.sort_by_key(|s| s.t_end_us);
    out
}

/// The records a cell running since 0 has at `now_s`: the requests ended by then.
fn at(samples: &[Sample], now_s: f64) -> Vec<Sample> {
    let now = (now_s * 1e6) as u64;
    samples
        .iter()
        .filter(|s| s.t_end_us <= now)
        .cloned()
        .collect()
}

#[test]
fn the_horizon_is_now_less_the_longest_request() {
    let s = at(&cell(40.0, 0.0, 1), 30.0);
    let longest = s.iter().map(|s| s.t_end_us - s.t_sent_us).max().unwrap();
    assert!(longest > 500_000 && longest < 700_000, "{longest}");
    assert_eq!(horizon_us(&s, 0, 30_000_000), 30_000_000 - longest);
    assert_eq!(horizon_us(&[], 0, 30_000_000), 0);
}

/// The first whole second from `min_s` to `max_s` at which the rule, checked once a
/// second as the runner does, says the transient is over.
fn stabilize_end(samples: &[Sample], min_s: u64, max_s: u64) -> Option<u64> {
    (min_s..=max_s).find(|&t| transient_over(&at(samples, t as f64), 0, t * 1_000_000).is_ok())
}

#[test]
fn a_stationary_cell_is_over_its_transient_soon() {
    // The first judgement needs 16 one-second blocks past the horizon: 17 s. A stationary
    // series can still put MSER's cut at the edge by chance; the next checks release it.
    let ends: Vec<u64> = (1..=40)
        .map(|seed| stabilize_end(&cell(60.0, 0.0, seed), 10, 60).expect("ended"))
        .collect();
    assert!(ends.iter().all(|&t| (17..=25).contains(&t)), "{ends:?}");
    let at_first = ends.iter().filter(|&&t| t == 17).count();
    assert!(
        at_first >= 30,
        "{at_first} of 40 at the first check: {ends:?}"
    );
}

#[test]
fn a_running_warmup_holds_stabilize_until_it_is_over() {
    // A warm-up that fades linearly over 40 s: the cut stays at the edge of MSER's search
    // until the series is long enough for the transient to fit in its first half. Measured
    // over seeds 1-10: 35-46 s, i.e. up to 5 s early, when what is left (up to 25% slower)
    // is within the ±20% noise; the steady verdict's warm-up check judges what is left.
    for seed in 1..=10 {
        let s = cell(200.0, 40.0, seed);
        let end = stabilize_end(&s, 10, 180).expect("ended");
        assert!((30..=60).contains(&end), "seed {seed}: {end}");
    }
    let s = cell(200.0, 40.0, 1);
    let e = transient_over(&at(&s, 30.0), 0, 30_000_000).unwrap_err();
    assert!(
        e.contains("edge of its search") || e.contains("needs at least 16"),
        "{e}"
    );
    let e = transient_over(&at(&s, 5.0), 0, 5_000_000).unwrap_err();
    assert!(e.contains("needs at least 16"), "{e}");
}

#[test]
fn precision_narrows_with_the_window() {
    let s = cell(70.0, 0.0, 3);
    let short = precision(&at(&s, 14.0), 10_000_000, 14_000_000, 0.02);
    assert_eq!(short.output_tps, None, "4 s give fewer than 8 blocks");
    assert!(!short.met());
    let mid = precision(&at(&s, 25.0), 10_000_000, 25_000_000, 0.02);
    let long = precision(&at(&s, 70.0), 10_000_000, 70_000_000, 0.02);
    let (mid_ttft, long_ttft) = (mid.ttft_p50.unwrap(), long.ttft_p50.unwrap());
    assert!(long_ttft < mid_ttft, "{long_ttft} < {mid_ttft}");
    assert!(long.output_tps.unwrap() < 0.05, "{long:?}");
    assert_eq!(
        long.met(),
        long.output_tps.unwrap() <= 0.02 && long_ttft <= 0.02
    );
    assert!(
        long.describe().starts_with("output tokens/s ±"),
        "{}",
        long.describe()
    );
}

#[test]
fn precision_takes_the_wider_ttft_interval_and_names_it() {
    // Independent TTFTs: the two intervals are about as wide, the wider one is named.
    let s = cell(70.0, 0.0, 3);
    let p = precision(&s, 10_000_000, 70_000_000, 0.02);
    let ttft = measured_ttft(&s, 10_000_000, horizon_us(&s, 10_000_000, 70_000_000));
    let d = Distribution::from_values(&ttft).unwrap();
    let [low, high] = d.p50_ci.unwrap();
    let free = (d.p50 - low).max(high - d.p50) / d.p50;
    let batch = batch_quantile(&ttft, QUANTILE_FIRST_BLOCK, 0.5).unwrap();
    let wider = free.max(batch.relative().unwrap());
    assert_eq!(p.ttft_p50, Some(wider));
    let (which, name) = if wider == free {
        (TtftInterval::OrderStatistics, "(order statistics)")
    } else {
        (TtftInterval::BatchQuantiles, "(batch quantiles)")
    };
    assert_eq!(p.ttft_p50_interval, Some(which));
    assert!(p.describe().ends_with(name), "{}", p.describe());
    // Fewer than 128 requests in Measure: no batch interval, so no TTFT precision.
    let short = precision(&at(&s, 16.0), 10_000_000, 16_000_000, 0.02);
    assert_eq!((short.ttft_p50, short.ttft_p50_interval), (None, None));
    assert!(
        short
            .describe()
            .contains("TTFT p50 no interval yet (fewer than 128 measured requests"),
        "{}",
        short.describe()
    );
}
