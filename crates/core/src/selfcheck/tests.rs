//! Tests of `selfcheck.rs`: a runtime whose only thread is blocked (asleep, or spinning)
//! shows the block as scheduling lag, and the spin as CPU time; spinning processes beside
//! it show as other processes' CPU, and a late client among them is not blamed. Only
//! generous directions are asserted (lag at least the injected block), never how small a
//! lag is.

use std::process::{Child, Command, Stdio};

use super::*;
use plateau_model::validate::{Thresholds, busy_machine, client_bottleneck};

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
    // The bare thread ticked beside the blocked runtime on a thread of its own: each of its
    // ticks asks for 1 ms, so a window of at least 150 ms holds more than 20 of them however
    // late a busy machine wakes it.
    let bare = health.bare_lag_ms.as_ref().expect("the bare thread ticked");
    assert!(bare.n > 20, "{bare:?}");
    // ... and plateau's own block did not reach it: the bare thread's p99 stays under half
    // the runtime's (which is what tells a blocked runtime from a slow host).
    assert!(bare.p99 < lag.p99 / 2.0, "bare {bare:?}, runtime {lag:?}");
    // The ticker asked to wake at most 1 ms after a block began, and woke after it ended.
    assert!(lag.max >= BLOCK.as_secs_f64() * 1e3 - 1.0, "{lag:?}");
    // Three late ticks among at most ~80 on time: the p99 is one of them.
    assert!(lag.p99 > 5.0, "{lag:?}");
    let cpu = health.cpu_s.expect("unix reports CPU time");
    assert!(cpu >= BLOCK.as_secs_f64(), "cpu {cpu} s");
    assert!(health.window_s >= 3.0 * BLOCK.as_secs_f64(), "{health:?}");
    // Judged on the client's own numbers: a machine other engineers' builds fill at this
    // moment would (rightly) turn a late client into their doing.
    let own = ClientHealth {
        machine_cores_busy: None,
        bare_lag_ms: None,
        ..health
    };
    let verdict = client_bottleneck(&own, &Thresholds::default()).expect("a bottleneck");
    assert!(verdict.contains("scheduling lag p99"), "{verdict}");
}

/// A process spinning on one core for at most `TIMEOUT`: coreutils' `timeout` ends it
/// should the test die first, and dropping it sends `timeout` SIGTERM, which it passes on
/// to the spinning shell (SIGKILL would leave the shell running).
struct Spinner(Child);

impl Spinner {
    const TIMEOUT: &str = "20";

    fn start() -> Spinner {
        Spinner(
            Command::new("timeout")
                .args([Self::TIMEOUT, "sh", "-c", "while :; do :; done"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("coreutils timeout and sh"),
        )
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let _ = self.0.wait();
    }
}

#[cfg(target_os = "linux")]
#[test]
fn other_processes_cpu_is_told_apart_from_the_clients_own() {
    let cpus = Ticks::read().expect("/proc/stat").cpus;
    let spinners: Vec<Spinner> = (0..cpus).map(|_| Spinner::start()).collect();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let health = rt.block_on(async {
        // Let the spinners get going, then watch an idle client for a second and a half.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let check = SelfCheck::start();
        tokio::time::sleep(Duration::from_millis(1500)).await;
        check.finish().await
    });
    drop(spinners);
    let others = health.others_cores_used().expect("both CPU readings");
    let own = health.cpu_cores_used.expect("unix reports CPU time");
    // One spinner per CPU: the machine is full, and not by the (idle) client.
    assert!(others >= 0.5 * f64::from(cpus), "{health:?}");
    assert!(own < 0.2, "{health:?}");
    // Had the client been late there, the other processes are named, and the run is not
    // failed for it. (How late it really was depends on the kernel's scheduler, so a late
    // client is taken as given.)
    let late = ClientHealth {
        sched_lag_ms: Distribution::from_values(&[20.0; 100]),
        ..health
    };
    let t = Thresholds::default();
    assert_eq!(client_bottleneck(&late, &t), None, "{late:?}");
    let why = busy_machine(&late, &t).expect("a busy machine");
    assert!(why.starts_with("other processes took"), "{why}");
}
