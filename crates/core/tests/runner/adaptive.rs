//! Adaptive phases on paused time: Stabilize and Measure end when their rules say so,
//! within their ranges, every request labelled by the bounds as they were decided.

use std::time::Duration;

use plateau_model::phase::{Adaptive, EndRule, Phase, Schedule};
use plateau_testkit::transport::Fake;
use tokio_util::sync::CancellationToken;

use super::closed::run;

fn adaptive(measure_max: u64, precision: f64) -> Schedule {
    Schedule {
        adaptive: Some(Adaptive {
            stabilize_min: Some(Duration::from_secs(2)),
            measure_min: Some(Duration::from_secs(5)),
            precision,
        }),
        ..Schedule::secs(4, [4, 30, measure_max, 5])
    }
}

fn fake() -> Fake {
    Fake {
        ttft: Duration::from_millis(100),
        itl: Duration::from_millis(50),
        tokens: 10,
    }
}

#[tokio::test(start_paused = true)]
async fn a_steady_cell_ends_its_phases_as_soon_as_the_rules_can_judge() {
    let (out, _) = run(fake(), adaptive(60, 0.02), CancellationToken::new()).await;
    let ends = out.phase_end.expect("adaptive phases say why they ended");
    let stabilize = ends.stabilize.expect("stabilize ended");
    // MSER needs 16 one-second blocks (requests take 0.55 s) before the horizon.
    assert_eq!(stabilize.rule, EndRule::TransientOver, "{}", stabilize.why);
    assert!((16.0..19.0).contains(&stabilize.after_s), "{stabilize:?}");
    let measure = ends.measure.expect("measure ended");
    assert_eq!(measure.rule, EndRule::PrecisionMet, "{}", measure.why);
    // Batch means need 8 blocks (8 s) and TTFT's batch quantiles 8 blocks of 16 requests:
    // 128 requests at 4 / 0.55 s take 17.6 s, plus the horizon (0.55 s), checked once a
    // second; well before the 60 s maximum.
    assert!((18.0..21.0).contains(&measure.after_s), "{measure:?}");
    assert!(
        measure.why.starts_with("precision met: output tokens/s ±"),
        "{}",
        measure.why
    );
    let (m0, m1) = (out.bounds.m0_us, out.bounds.m1_us);
    assert_eq!(m0, 4_000_000 + (stabilize.after_s * 1e6).round() as u64);
    assert_eq!(m1 - m0, (measure.after_s * 1e6).round() as u64);
    // Every request is labelled by the bounds as decided.
    for s in &out.recorded.samples {
        let want = if s.t_sent_us < 4_000_000 {
            Phase::Fill
        } else if s.t_sent_us < m0 {
            Phase::Stabilize
        } else if s.t_sent_us < m1 {
            Phase::Measure
        } else {
            Phase::Drain
        };
        assert_eq!(s.phase, want, "sent at {} us", s.t_sent_us);
    }
}

#[tokio::test(start_paused = true)]
async fn a_precision_not_reached_ends_measure_at_its_maximum_as_imprecise() {
    let (out, _) = run(fake(), adaptive(12, 1e-4), CancellationToken::new()).await;
    let measure = out
        .phase_end
        .and_then(|e| e.measure)
        .expect("measure ended");
    assert_eq!(measure.rule, EndRule::Imprecise, "{}", measure.why);
    assert!((measure.after_s - 12.0).abs() < 0.01, "{measure:?}");
    assert!(measure.why.contains("target ±0.01%"), "{}", measure.why);
    assert_eq!(out.bounds.m1_us - out.bounds.m0_us, 12_000_000);
}

#[tokio::test(start_paused = true)]
async fn fixed_phases_keep_their_bounds_and_say_nothing() {
    let (out, _) = run(
        fake(),
        Schedule::secs(4, [4, 2, 10, 5]),
        CancellationToken::new(),
    )
    .await;
    assert_eq!(out.phase_end, None);
    assert_eq!(
        (out.bounds.m0_us, out.bounds.m1_us),
        (6_000_000, 16_000_000)
    );
}
