//! Stopping signals: Ctrl-C (SIGINT), SIGTERM (what `timeout`, systemd, docker and
//! Kubernetes send) and SIGHUP (a closed terminal) all end a run the same way: the first
//! cancels `interrupt`, so the cell in progress is written as `interrupted` and run.json is
//! closed; a second of any of them exits at once. [`hold_at`] lets a test stop a run at a
//! named step (`PLATEAU_TEST_HOLD_AT`), to interrupt it there.

use tokio_util::sync::CancellationToken;

use crate::exit;

/// Spawns the listener: the first stopping signal cancels `interrupt`.
pub fn cancel_on_stop(interrupt: CancellationToken) {
    tokio::spawn(async move {
        let Some(name) = next_stop().await else {
            return;
        };
        tracing::warn!(
            "{name}: stopping and writing what there is (send it again to abort at once)"
        );
        interrupt.cancel();
        if next_stop().await.is_some() {
            std::process::exit(i32::from(exit::INTERRUPTED));
        }
    });
}

/// The variable naming the step [`hold_at`] waits at.
const HOLD_AT: &str = "PLATEAU_TEST_HOLD_AT";

/// How long [`hold_at`] waits at most.
const HOLD_FOR: std::time::Duration = std::time::Duration::from_secs(20);

/// When `PLATEAU_TEST_HOLD_AT` names `step`, waits there until `interrupt` (or 20 s), so
/// that a test can send a signal while the run is exactly at that step; otherwise returns
/// at once. A test aid: nothing else sets the variable.
pub async fn hold_at(step: &str, interrupt: &CancellationToken) {
    if std::env::var(HOLD_AT).ok().as_deref() != Some(step) {
        return;
    }
    tracing::info!("holding at {step} ({HOLD_AT})");
    let _ = tokio::time::timeout(HOLD_FOR, interrupt.cancelled()).await;
}

/// The next stopping signal's name; `None` if no listener could be installed.
#[cfg(unix)]
async fn next_stop() -> Option<&'static str> {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut hup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        return tokio::signal::ctrl_c().await.ok().map(|()| "interrupted");
    };
    tokio::select! {
        r = tokio::signal::ctrl_c() => r.ok().map(|()| "interrupted (Ctrl-C)"),
        _ = term.recv() => Some("SIGTERM"),
        _ = hup.recv() => Some("SIGHUP"),
    }
}

/// The next stopping signal's name; `None` if no listener could be installed.
#[cfg(not(unix))]
async fn next_stop() -> Option<&'static str> {
    tokio::signal::ctrl_c()
        .await
        .ok()
        .map(|()| "interrupted (Ctrl-C)")
}
