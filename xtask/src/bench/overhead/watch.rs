//! What the overhead benchmark reads while a point runs: the mock's own counters
//! (`GET /stats`), the client's memory from `/proc/PID/status`, and both processes' CPU
//! from `/proc/PID/stat`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use anyhow::bail;

use xtask_support::proc_stat::{TICKS_PER_S, cpu_ticks};

/// What the mock says about itself (`GET /stats`).
#[derive(Debug, Default, serde::Deserialize)]
pub(super) struct MockStats {
    pub(super) active: u64,
    pub(super) first_any_unix_us: Option<u64>,
    pub(super) first_long_unix_us: Option<u64>,
    pub(super) late_p99_us: u64,
    /// Of the replies the mock read in Measure: TTFT p50 and ITL p99 as they went out.
    pub(super) wire_ttft_p50_us: u64,
    pub(super) wire_itl_p99_us: u64,
    pub(super) wire_gaps: u64,
}

/// One `GET /stats` on a connection of its own.
pub(super) fn mock_stats(addr: &str) -> anyhow::Result<MockStats> {
    let mut sock = TcpStream::connect(addr)?;
    sock.set_read_timeout(Some(Duration::from_secs(2)))?;
    sock.write_all(b"GET /stats HTTP/1.1\r\nhost: mock\r\n\r\n")?;
    let mut reply = Vec::new();
    let mut buf = [0u8; 4096];
    // The reply is one small JSON object with a content-length; read until it is whole.
    loop {
        let n = sock.read(&mut buf)?;
        if n == 0 {
            break;
        }
        reply.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&reply);
        if let Some((_, body)) = text.split_once("\r\n\r\n")
            && body.ends_with('}')
        {
            return Ok(serde_json::from_str(body)?);
        }
    }
    bail!("the mock's /stats reply ended early")
}

/// The client's memory and both processes' CPU, read every `POLL` of the benchmark.
#[derive(Default)]
pub(super) struct Watch {
    pub(super) peak_rss_kib: u64,
    /// The client's RSS at the last read before the cell's first request.
    pub(super) before_load_kib: Option<u64>,
    /// Its RSS at the first read with all N requests in flight (98% of N: the mock counts
    /// a reply from its request read to its last write, so a slot between two requests
    /// is not counted).
    pub(super) full_load_kib: Option<u64>,
    /// (time since the client started, the mock's CPU ticks).
    pub(super) mock_cpu: Vec<(Duration, u64)>,
    /// (time since the client started, the client's user and system CPU ticks).
    pub(super) client_cpu: Vec<(Duration, (u64, u64))>,
}

impl Watch {
    pub(super) fn poll(&mut self, client: u32, mock: u32, addr: &str, at: Duration, n: u32) {
        let status = std::fs::read_to_string(format!("/proc/{client}/status")).unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        };
        let (Some(rss), Some(hwm)) = (field("VmRSS:"), field("VmHWM:")) else {
            return; // the client is exiting
        };
        self.peak_rss_kib = self.peak_rss_kib.max(hwm);
        if let Ok(stats) = mock_stats(addr) {
            if stats.first_long_unix_us.unwrap_or(0) == 0 {
                self.before_load_kib = Some(rss);
            } else if stats.active >= u64::from(n - n / 50) && self.full_load_kib.is_none() {
                self.full_load_kib = Some(rss);
            }
        }
        if let Some((user, system)) = cpu_ticks(mock) {
            self.mock_cpu.push((at, user + system));
        }
        if let Some(ticks) = cpu_ticks(client) {
            self.client_cpu.push((at, ticks));
        }
    }

    /// Resident memory each in-flight request added, KiB: RSS with all N in flight (at the
    /// end of Fill, every request mid-stream) less RSS before the first, over N.
    pub(super) fn rss_per_request_kib(&self, n: u32) -> Option<f64> {
        let (before, full) = (self.before_load_kib?, self.full_load_kib?);
        Some(full.saturating_sub(before) as f64 / f64::from(n))
    }

    /// The mock's CPU use between `from` and `to` (times since the client started), cores.
    pub(super) fn mock_cores(&self, from: Duration, to: Duration) -> Option<f64> {
        let ((t0, c0), (t1, c1)) = (between(&self.mock_cpu, from, to))?;
        let secs = t1.checked_sub(t0)?.as_secs_f64();
        (secs > 0.0).then(|| c1.saturating_sub(c0) as f64 / TICKS_PER_S / secs)
    }

    /// The system share of the client's CPU between `from` and `to`.
    pub(super) fn client_kernel_share(&self, from: Duration, to: Duration) -> Option<f64> {
        let ((_, (u0, s0)), (_, (u1, s1))) = between(&self.client_cpu, from, to)?;
        let (user, system) = (u1.saturating_sub(u0), s1.saturating_sub(s0));
        (user + system > 0).then(|| system as f64 / (user + system) as f64)
    }
}

/// The first reading at or after `from`, and the first at or after `to` (else the last).
fn between<T: Copy>(
    readings: &[(Duration, T)],
    from: Duration,
    to: Duration,
) -> Option<((Duration, T), (Duration, T))> {
    let at = |t: Duration| readings.iter().find(|(s, _)| *s >= t).copied();
    Some((at(from)?, at(to).or_else(|| readings.last().copied())?))
}
