//! A process's CPU time from `/proc/PID/stat`, shared by the overhead benchmark and its
//! floor client.

/// USER_HZ: the unit of /proc/PID/stat's CPU times on Linux.
pub const TICKS_PER_S: f64 = 100.0;

/// User and system CPU ticks of process `pid` (a number, or `self`) so far.
pub fn cpu_ticks(pid: impl std::fmt::Display) -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // utime and stime are fields 14 and 15, counted from the pid; the command name before
    // them is parenthesised and may hold spaces.
    let rest = stat.rsplit_once(')')?.1;
    let mut fields = rest.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some((user, system))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use super::*;

    #[test]
    fn cpu_burnt_here_shows_and_no_other_process_is_read() {
        let (u0, s0) = cpu_ticks("self").unwrap();
        let until = std::time::Instant::now() + std::time::Duration::from_millis(300);
        let mut x = 0u64;
        while std::time::Instant::now() < until {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
        }
        let (u1, s1) = cpu_ticks("self").unwrap();
        assert!(u1 + s1 > u0 + s0, "{u0}+{s0} then {u1}+{s1}");
        assert_eq!(cpu_ticks("no-such-process"), None);
    }
}
