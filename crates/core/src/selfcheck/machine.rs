//! The whole machine's CPU use from `/proc/stat` (Linux), read at both ends of a window so
//! the self-check can tell CPU taken by other processes from plateau's own. Hand-written:
//! the one line read is the kernel's `cpu` total and the per-CPU line count, a few lines of
//! parsing that a `/proc` crate would bring a dependency tree for.

use std::path::Path;

/// Where the kernel reports CPU time.
const PROC_STAT: &str = "/proc/stat";

/// CPU time of every CPU since boot, in clock ticks, and how many CPUs there are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticks {
    /// Ticks spent running anything: user, nice, system, irq, softirq and steal (time a
    /// hypervisor gave another guest is CPU this machine did not get).
    pub busy: u64,
    /// Every tick, idle and iowait included.
    pub total: u64,
    /// CPUs listed (`cpuN` lines).
    pub cpus: u32,
}

impl Ticks {
    /// The machine's counters now; `None` where `/proc/stat` is absent or unreadable.
    pub fn read() -> Option<Ticks> {
        Ticks::read_from(Path::new(PROC_STAT))
    }

    fn read_from(path: &Path) -> Option<Ticks> {
        Ticks::parse(&std::fs::read_to_string(path).ok()?)
    }

    /// Parses the text of `/proc/stat`.
    pub fn parse(text: &str) -> Option<Ticks> {
        let mut lines = text.lines();
        let total_line = lines.next()?.strip_prefix("cpu ")?;
        let fields: Vec<u64> = total_line
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?;
        // user nice system idle iowait irq softirq steal [guest guest_nice], guest time
        // already counted in user and nice.
        let at = |i: usize| fields.get(i).copied().unwrap_or(0);
        let busy = at(0) + at(1) + at(2) + at(5) + at(6) + at(7);
        let total = busy + at(3) + at(4);
        let cpus = lines
            .take_while(|l| l.starts_with("cpu"))
            .filter(|l| l[3..].starts_with(|c: char| c.is_ascii_digit()))
            .count();
        Some(Ticks {
            busy,
            total,
            cpus: u32::try_from(cpus).ok().filter(|&n| n > 0)?,
        })
    }

    /// Cores' worth of CPU every process used between `self` and `later`: the busy share of
    /// all ticks times the CPUs. `None` when no tick passed.
    pub fn busy_cores_until(&self, later: &Ticks) -> Option<f64> {
        let total = later.total.checked_sub(self.total).filter(|&t| t > 0)?;
        let busy = later.busy.checked_sub(self.busy)?;
        Some(busy as f64 / total as f64 * f64::from(later.cpus))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "cpu  100 5 50 800 20 3 2 10 0 0\n\
                        cpu0 50 2 25 400 10 1 1 5 0 0\n\
                        cpu1 50 3 25 400 10 2 1 5 0 0\n\
                        intr 12345 0 0\n\
                        ctxt 999\n";

    #[test]
    fn busy_is_everything_but_idle_and_iowait() {
        let t = Ticks::parse(STAT).expect("parses");
        assert_eq!(
            t,
            Ticks {
                busy: 100 + 5 + 50 + 3 + 2 + 10,
                total: 170 + 800 + 20,
                cpus: 2
            }
        );
    }

    #[test]
    fn busy_cores_over_a_window() {
        let a = Ticks {
            busy: 1000,
            total: 4000,
            cpus: 2,
        };
        // 300 of 400 ticks busy on 2 CPUs: 1.5 cores.
        let b = Ticks {
            busy: 1300,
            total: 4400,
            cpus: 2,
        };
        assert_eq!(a.busy_cores_until(&b), Some(1.5));
        assert_eq!(a.busy_cores_until(&a), None, "no tick passed");
    }

    #[test]
    fn other_text_is_not_a_reading() {
        assert_eq!(Ticks::parse(""), None);
        assert_eq!(Ticks::parse("intr 1 2\n"), None);
        assert_eq!(Ticks::parse("cpu  a b c\ncpu0 1\n"), None);
        assert_eq!(Ticks::parse("cpu  1 2 3 4\n"), None, "no CPU listed");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_machine_reads() {
        let t = Ticks::read().expect("/proc/stat on Linux");
        assert!(t.cpus >= 1 && t.busy <= t.total, "{t:?}");
    }
}
