//! What xtask's binaries share (the `xtask` command, `overhead-mock`, `overhead-floor`):
//! duration histograms and a process's CPU time.

pub mod histogram;
pub mod proc_stat;
