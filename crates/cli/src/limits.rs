//! Whether a concurrency fits this machine. Each in-flight request holds a connection (an
//! open file; two with the in-process simulator, which holds the other end), a local port
//! and memory. A `batch_sizes` entry that cannot fit is refused at plan time, naming the
//! limit that binds and the largest concurrency that would fit: a run past the limits does
//! not fail loudly, it measures a lower concurrency than it reports.

use std::path::Path;

use plateau_core::plan::{Plan, Problem, Target};

pub use cgroup::CgroupMemory;

mod cgroup;

/// Open files plateau holds besides its connections: stdio, the runtime's epoll and event
/// fds, the simulator's listening socket, result files being written. Measured: 12 to 13
/// at N = 250 to 2,000 (`ls /proc/PID/fd` during a run).
pub const FILE_SLACK: u64 = 64;

// Memory per in-flight request, measured as the slope of peak RSS (VmHWM) between N = 250,
// 1,000 and 2,000 of a 20 s cell of scenario A2 (2,500-token prompts, max_tokens 64, the
// fixed sim profile at 100 ms TTFT and 50 ms ITL), debug build: the plateau client
// 77-100 KiB against a separate `plateau sim` (which itself grew 25-35 KiB), and 112-116
// KiB with the simulator in-process. Rounded up for longer replies and longer cells (token
// arrivals and finished samples stay in memory until the cell ends).

/// Resident memory per in-flight request on the client side (connection buffers, the
/// request's task, prompt and body, its token arrivals).
pub const CLIENT_BYTES: u64 = 128 * 1024;

/// Resident memory per in-flight request added by the in-process simulator (its end of the
/// connection and the request's state).
pub const SIM_BYTES: u64 = 32 * 1024;

/// Resident memory of plateau before the first request (runtime, tokenizer tables);
/// measured about 48 MB.
pub const BASE_BYTES: u64 = 64 * 1024 * 1024;

/// What bounds concurrency on this machine; `None` where unknown (that check is skipped).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Machine {
    /// The hard open-file limit (plateau raises its soft limit up to it itself).
    pub open_files: Option<u64>,
    /// Memory available to start new work, bytes: `MemAvailable`, or what a cgroup limit
    /// leaves where that is less.
    pub memory: Option<u64>,
    /// Where [`Machine::memory`] comes from.
    pub memory_from: MemoryFrom,
    /// Size of the ephemeral port range: every connection to one server takes its own port.
    pub local_ports: Option<u64>,
}

/// What bounds the memory plateau may use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MemoryFrom {
    /// The kernel's estimate for the whole machine.
    #[default]
    MemAvailable,
    /// A limit on the process's cgroup (a container's), which leaves less.
    Cgroup(CgroupMemory),
}

impl Machine {
    /// This machine's limits, as far as they can be read.
    pub fn read() -> Machine {
        let read = |path: &str| std::fs::read_to_string(path).ok();
        let (memory, memory_from) = tighter(
            read("/proc/meminfo").and_then(|t| mem_available(&t)),
            cgroup::memory(Path::new("/")),
        );
        Machine {
            open_files: hard_open_files(),
            memory,
            memory_from,
            local_ports: read("/proc/sys/net/ipv4/ip_local_port_range")
                .and_then(|t| port_range(&t)),
        }
    }
}

/// The memory available: `MemAvailable`, unless a cgroup leaves less.
fn tighter(mem_available: Option<u64>, cgroup: Option<CgroupMemory>) -> (Option<u64>, MemoryFrom) {
    match (mem_available, cgroup) {
        (Some(m), Some(c)) if c.room() >= m => (Some(m), MemoryFrom::MemAvailable),
        (_, Some(c)) => (Some(c.room()), MemoryFrom::Cgroup(c)),
        (m, None) => (m, MemoryFrom::MemAvailable),
    }
}

/// What one in-flight request holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerRequest {
    /// Open files: 1, or 2 with the in-process simulator.
    pub files: u64,
    /// Resident memory, bytes.
    pub bytes: u64,
}

impl PerRequest {
    /// The cost in `plan`: the in-process simulator's share counts if any endpoint uses it.
    pub fn of(plan: &Plan) -> PerRequest {
        PerRequest::new(
            plan.endpoints
                .iter()
                .any(|e| e.target == Target::InProcessSim),
        )
    }

    /// The cost with or without the in-process simulator on the other end.
    pub fn new(in_process_sim: bool) -> PerRequest {
        if in_process_sim {
            PerRequest {
                files: 2,
                bytes: CLIENT_BYTES + SIM_BYTES,
            }
        } else {
            PerRequest {
                files: 1,
                bytes: CLIENT_BYTES,
            }
        }
    }

    /// Open files `n` requests need.
    pub fn files_for(self, n: u64) -> u64 {
        n.saturating_mul(self.files).saturating_add(FILE_SLACK)
    }
}

/// One limit: the largest concurrency it allows, and what it is.
struct Bound {
    fits: u64,
    what: String,
}

/// Every known limit of `machine` for concurrency `n`.
fn bounds(n: u64, machine: &Machine, per: PerRequest) -> Vec<Bound> {
    let mut out = Vec::new();
    if let Some(hard) = machine.open_files {
        let each = if per.files == 2 {
            "2 per request: the connection and the in-process simulator's end of it"
        } else {
            "1 per request"
        };
        out.push(Bound {
            fits: hard.saturating_sub(FILE_SLACK) / per.files.max(1),
            what: format!(
                "it needs {} open files ({each}, plus {FILE_SLACK}) and the hard limit is {} (ulimit -Hn)",
                thousands(per.files_for(n)),
                thousands(hard)
            ),
        });
    }
    if let Some(available) = machine.memory {
        let need = n.saturating_mul(per.bytes).saturating_add(BASE_BYTES);
        let from = match machine.memory_from {
            MemoryFrom::MemAvailable => "MemAvailable".to_owned(),
            MemoryFrom::Cgroup(c) => format!(
                "this process's cgroup limit, {}, is {} and {} of it is in use; MemAvailable is the host's",
                c.file,
                bytes(c.limit),
                bytes(c.used)
            ),
        };
        out.push(Bound {
            fits: available.saturating_sub(BASE_BYTES) / per.bytes.max(1),
            what: format!(
                "it needs about {} of memory ({} per in-flight request, plus {}) and {} is available ({from})",
                bytes(need),
                bytes(per.bytes),
                bytes(BASE_BYTES),
                bytes(available)
            ),
        });
    }
    if let Some(ports) = machine.local_ports {
        out.push(Bound {
            fits: ports,
            what: format!(
                "each connection needs its own local port and the range has {} (net.ipv4.ip_local_port_range)",
                thousands(ports)
            ),
        });
    }
    out
}

/// Whether concurrency `n` fits; else why not (the tightest limit it exceeds) and the
/// largest concurrency every limit allows.
pub fn verdict(n: u64, machine: &Machine, per: PerRequest) -> Result<(), String> {
    let bounds = bounds(n, machine, per);
    let Some(binding) = bounds.iter().filter(|b| n > b.fits).min_by_key(|b| b.fits) else {
        return Ok(());
    };
    let fits = bounds.iter().map(|b| b.fits).min().unwrap_or(0);
    let most = if fits == 0 {
        "no concurrency fits".to_owned()
    } else {
        format!("at most {} fit", thousands(fits))
    };
    Err(format!(
        "concurrency {} does not fit this machine: {}; {most}",
        thousands(n),
        binding.what
    ))
}

/// A problem for every `batch_sizes` entry too large for `machine`.
pub fn check(plan: &Plan, machine: &Machine) -> Vec<Problem> {
    let per = PerRequest::of(plan);
    plan.batch_sizes
        .iter()
        .enumerate()
        .filter_map(|(k, &n)| {
            verdict(u64::from(n), machine, per)
                .err()
                .map(|message| Problem {
                    field: format!("batch_sizes[{k}]"),
                    message,
                })
        })
        .collect()
}

/// Raises the soft open-file limit to what the largest concurrency needs (with room to
/// spare); the plan check made sure the hard limit allows it.
pub fn raise_open_files(plan: &Plan) {
    let max_n = u64::from(plan.max_in_flight());
    let need = PerRequest::of(plan).files_for(max_n);
    match rlimit::increase_nofile_limit(need.saturating_mul(2)) {
        Ok(got) if got < need => tracing::warn!(
            "open-file limit is {got}; concurrency {max_n} needs {need} (raise ulimit -n)"
        ),
        Ok(_) => {}
        Err(e) => tracing::warn!("could not raise the open-file limit: {e}"),
    }
}

#[cfg(unix)]
fn hard_open_files() -> Option<u64> {
    let (_, hard) = rlimit::getrlimit(rlimit::Resource::NOFILE).ok()?;
    (hard != rlimit::INFINITY).then_some(hard)
}

#[cfg(not(unix))]
fn hard_open_files() -> Option<u64> {
    None
}

/// `MemAvailable` of `/proc/meminfo`, bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?;
    let kib = line.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()?;
    kib.checked_mul(1024)
}

/// The number of ports in `ip_local_port_range` ("32768\t60999").
fn port_range(text: &str) -> Option<u64> {
    let mut parts = text.split_whitespace().map(|p| p.parse::<u64>().ok());
    let (lo, hi) = (parts.next()??, parts.next()??);
    (hi >= lo).then(|| hi - lo + 1)
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A byte count in KiB, MiB or GiB.
fn bytes(n: u64) -> String {
    const KIB: f64 = 1024.0;
    let n = n as f64;
    if n >= KIB * KIB * KIB {
        format!("{:.1} GiB", n / (KIB * KIB * KIB))
    } else if n >= KIB * KIB {
        format!("{:.0} MiB", n / (KIB * KIB))
    } else {
        format!("{:.0} KiB", n / KIB)
    }
}

#[cfg(test)]
mod tests;
