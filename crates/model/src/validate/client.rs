//! The `client_bottleneck` check: was the client itself short of CPU during Measure? Its
//! own scheduling lag and CPU use ([`ClientHealth`]) against [`Thresholds`]. And
//! `client_busy`, the warning before it: busy enough that its tails may carry its own
//! queueing.

use super::Thresholds;
use crate::results::health::ClientHealth;

/// What to do about a client that was the bottleneck.
pub const REMEDY: &str = "run fewer N per client process, give the client more cores, or \
                          spread the load over several client machines";

/// Why the client was the bottleneck, with its numbers and the remedy; `None` when it had
/// time to spare.
pub fn client_bottleneck(c: &ClientHealth, t: &Thresholds) -> Option<String> {
    let mut why = Vec::new();
    if let Some(lag) = c
        .sched_lag_ms
        .as_ref()
        .filter(|l| l.p99 > t.max_client_lag_p99_ms)
    {
        why.push(format!(
            "scheduling lag p99 {:.1} ms (> {} ms, max {:.1} ms): every gap the client \
             stamped (TTFT, ITL, E2E) may be that much too long",
            lag.p99, t.max_client_lag_p99_ms, lag.max
        ));
    }
    let cores = f64::from(c.cores.max(1));
    if let Some(used) = c
        .cpu_cores_used
        .filter(|&u| u >= t.max_client_cpu_share * cores)
    {
        why.push(format!(
            "CPU {used:.2} of {} cores (>= {:.0}%)",
            c.cores,
            t.max_client_cpu_share * 100.0
        ));
    }
    (!why.is_empty()).then(|| {
        format!(
            "the client was the bottleneck: {}; {REMEDY}",
            why.join("; ")
        )
    })
}

/// Why the client's tail latencies may carry its own queueing: it used at least
/// `warn_client_cpu_share` of its cores (and was not the bottleneck, which says more);
/// `None` below that.
pub fn client_busy(c: &ClientHealth, t: &Thresholds) -> Option<String> {
    let cores = f64::from(c.cores.max(1));
    let used = c
        .cpu_cores_used
        .filter(|&u| u >= t.warn_client_cpu_share * cores)?;
    Some(format!(
        "the client used {used:.2} of {} cores (>= {:.0}%): its own queueing may lengthen \
         the tails it reports (ITL p99 first) before any median moves; for exact tails, {REMEDY}",
        c.cores,
        t.warn_client_cpu_share * 100.0
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Distribution;

    fn health(lag_p99_ms: Option<f64>, cpu_cores_used: Option<f64>, cores: u32) -> ClientHealth {
        ClientHealth {
            // 100 ticks of 0.2 ms and 3 of the given lag: p99 (rank 0.99 x 102 = 100.98)
            // and max are both that lag.
            sched_lag_ms: lag_p99_ms.and_then(|p99| {
                let mut v = vec![0.2; 100];
                v.extend([p99; 3]);
                Distribution::from_values(&v)
            }),
            cpu_s: cpu_cores_used.map(|u| u * 10.0),
            cpu_cores_used,
            cores,
            window_s: 10.0,
        }
    }

    /// Lag p99 (ms), cores used, cores, and the texts the message must hold (none: no
    /// finding).
    type Row = (Option<f64>, Option<f64>, u32, &'static [&'static str]);

    #[test]
    fn the_client_is_judged_on_its_lag_and_its_cpu() {
        let t = Thresholds::default(); // 5 ms lag p99, 90% of the cores
        let rows: &[Row] = &[
            // A client with time to spare.
            (Some(1.1), Some(0.3), 2, &[]),
            // Exactly at the lag limit passes; just over fails.
            (Some(5.0), Some(0.3), 2, &[]),
            (
                Some(5.1),
                Some(0.3),
                2,
                &["scheduling lag p99 5.1 ms (> 5 ms, max 5.1 ms)"],
            ),
            // The client: 1,000 streams on one core, ITL p99 121 ms for a true 10.
            (
                Some(111.0),
                Some(0.99),
                1,
                &[
                    "scheduling lag p99 111.0 ms",
                    "CPU 0.99 of 1 cores (>= 90%)",
                ],
            ),
            // CPU near every core, even with a small lag.
            (Some(2.0), Some(1.85), 2, &["CPU 1.85 of 2 cores (>= 90%)"]),
            (Some(2.0), Some(1.75), 2, &[]),
            // Nothing measured (no tick, no CPU clock): nothing to judge.
            (None, None, 2, &[]),
        ];
        for &(lag, cpu, cores, want) in rows {
            let got = client_bottleneck(&health(lag, cpu, cores), &t);
            match got {
                None => assert!(want.is_empty(), "{lag:?} {cpu:?}: expected {want:?}"),
                Some(msg) => {
                    assert!(!want.is_empty(), "{lag:?} {cpu:?}: unexpected {msg}");
                    for w in want {
                        assert!(msg.contains(w), "{msg} lacks {w}");
                    }
                    assert!(msg.ends_with(REMEDY), "{msg}");
                }
            }
        }
    }

    #[test]
    fn a_client_past_three_quarters_of_its_cores_is_warned_about_its_tails() {
        let t = Thresholds::default(); // warn from 75% of the cores
        for (cpu, cores, warned) in [
            (0.69, 1, false), // the bench's N = 700: ITL p99 +1.4 ms
            (0.75, 1, true),
            (0.87, 1, true), // the bench's N = 1,000: ITL p99 +7.6 ms
            (1.40, 2, false),
            (1.50, 2, true),
        ] {
            let got = client_busy(&health(Some(1.0), Some(cpu), cores), &t);
            assert_eq!(got.is_some(), warned, "{cpu} of {cores}: {got:?}");
            if let Some(msg) = got {
                assert!(
                    msg.starts_with(&format!(
                        "the client used {cpu:.2} of {cores} cores (>= 75%)"
                    )),
                    "{msg}"
                );
                assert!(msg.ends_with(REMEDY), "{msg}");
            }
        }
        assert_eq!(client_busy(&health(None, None, 1), &t), None);
    }
}
