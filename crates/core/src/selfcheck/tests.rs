//! Tests of `selfcheck.rs`: a runtime whose only thread is blocked (asleep, or spinning)
//! shows the block as scheduling lag, and the spin as CPU time. Only generous directions
//! are asserted (lag at least the injected block), never how small a lag is.

use super::*;
use plateau_model::validate::{Thresholds, client_bottleneck};

/// Each injected block holds the runtime's only thread this long.
const BLOCK: Duration = Duration::from_millis(50);

/// Spins until this process has used `cpu` more CPU time.
fn spin_for_cpu(cpu: Duration) {
    let start = process_cpu().expect("unix reports CPU time");
    while process_cpu().expect("unix reports CPU time") - start < cpu {
        std::hint::spin_loop();
    }
}

#[test]
fn a_starved_runtime_shows_up_as_lag_and_cpu() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let health = rt.block_on(async {
        let check = SelfCheck::start();
        let breathe = || tokio::time::sleep(Duration::from_millis(20));
        breathe().await;
        std::thread::sleep(BLOCK);
        breathe().await;
        spin_for_cpu(BLOCK);
        breathe().await;
        std::thread::sleep(BLOCK);
        breathe().await;
        check.finish().await
    });
    let lag = health.sched_lag_ms.as_ref().expect("the ticker ticked");
    // The ticker asked to wake at most 1 ms after a block began, and woke after it ended.
    assert!(lag.max >= BLOCK.as_secs_f64() * 1e3 - 1.0, "{lag:?}");
    // Three late ticks among at most ~80 on time: the p99 is one of them.
    assert!(lag.p99 > 5.0, "{lag:?}");
    let cpu = health.cpu_s.expect("unix reports CPU time");
    assert!(cpu >= BLOCK.as_secs_f64(), "cpu {cpu} s");
    assert!(health.window_s >= 3.0 * BLOCK.as_secs_f64(), "{health:?}");
    let verdict = client_bottleneck(&health, &Thresholds::default()).expect("a bottleneck");
    assert!(verdict.contains("scheduling lag p99"), "{verdict}");
}
