//! How the client itself fared over a cell's measure window (core's self-check measures it).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::metrics::Distribution;

/// How the client itself fared over the measure window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ClientHealth {
    /// Scheduling lag, ms: how late a task asking to wake 1 ms later woke (actual minus
    /// intended), over every tick of the window. tokio's timer rounds wake-ups up to its
    /// 1 ms resolution, so a client with spare CPU shows up to about 1 ms; anything above
    /// is time a ready task waited for a thread, and every gap the client stamped may be
    /// stretched by as much. Absent when the window held no tick.
    pub sched_lag_ms: Option<Distribution>,
    /// Wake-up lag of a bare OS thread sleeping 1 ms beside plateau's runtime over the same
    /// window, ms (`std::thread::sleep`, no runtime timer to round it): how late the kernel,
    /// and any hypervisor under it, ran a ready thread. A late runtime with a prompt bare
    /// thread was held up by plateau itself; with a late one, by the machine. Absent in
    /// summaries written before it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bare_lag_ms: Option<Distribution>,
    /// CPU time (user + system) of the plateau process over the window, s; it includes the
    /// in-process simulator for `sim://` endpoints. Absent where the platform does not
    /// report it.
    pub cpu_s: Option<f64>,
    /// `cpu_s / window_s`: how many cores' worth of CPU the process used on average.
    pub cpu_cores_used: Option<f64>,
    /// Cores available to the process (`std::thread::available_parallelism`).
    pub cores: u32,
    /// Length of the window checked (the measure window, or up to an interrupt), s.
    pub window_s: f64,
    /// Cores' worth of CPU every process on the machine used over the window, plateau
    /// included (`/proc/stat`: busy ticks over all ticks, times the machine's CPUs).
    /// Absent where `/proc/stat` cannot be read, and in summaries written before it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_cores_busy: Option<f64>,
    /// CPUs of the machine (`/proc/stat`), which a container's `cores` may be fewer than.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_cores: Option<u32>,
}

impl ClientHealth {
    /// Cores' worth of CPU other processes took over the window: the machine's busy cores
    /// less plateau's own, at least 0; absent without either reading.
    pub fn others_cores_used(&self) -> Option<f64> {
        Some((self.machine_cores_busy? - self.cpu_cores_used?).max(0.0))
    }
}
