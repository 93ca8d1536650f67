//! The kernel's clock sync state for sharded runs: `adjtimex(2)` with no mode bits only
//! reads it. Hand-written over libc because nix (0.30) has no adjtimex wrapper.

use plateau_model::shard::ClockSync;

/// `TIME_ERROR`: the clock is not synchronized.
#[cfg(target_os = "linux")]
const TIME_ERROR: libc::c_int = 5;

/// Reads the clock's sync state; its numbers are absent, with the reason, where the call
/// is not available or fails.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub fn read() -> ClockSync {
    // SAFETY: `timex` is plain data (all zeros is valid), and with `modes` 0 adjtimex
    // only writes the state into the struct it is given.
    let mut t: libc::timex = unsafe { std::mem::zeroed() };
    let state = unsafe { libc::adjtimex(&mut t) };
    if state < 0 {
        return ClockSync {
            synchronized: false,
            estimated_error_us: None,
            max_error_us: None,
            reason: Some(format!("adjtimex: {}", std::io::Error::last_os_error())),
        };
    }
    ClockSync {
        synchronized: state != TIME_ERROR,
        estimated_error_us: Some(t.esterror),
        max_error_us: Some(t.maxerror),
        reason: None,
    }
}

/// See the Linux version: elsewhere the state is not read.
#[cfg(not(target_os = "linux"))]
pub fn read() -> ClockSync {
    ClockSync {
        synchronized: false,
        estimated_error_us: None,
        max_error_us: None,
        reason: Some("the clock's sync state is read on Linux only".into()),
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #[test]
    fn reads_the_kernels_error_bounds() {
        let sync = super::read();
        assert_eq!(sync.reason, None);
        let (Some(est), Some(max)) = (sync.estimated_error_us, sync.max_error_us) else {
            panic!("no error bounds: {sync:?}");
        };
        assert!(
            est >= 0 && max >= est,
            "estimated {est} us, maximum {max} us"
        );
    }
}
