//! The memory a process's cgroups leave it. In a container (Docker, Kubernetes, a systemd
//! slice) `MemAvailable` is the host's, while the kernel kills the process at its cgroup's
//! limit: the tightest limit on the process's memory cgroup or any ancestor is what binds.
//! Both cgroup versions are read: v2 (`memory.max`, `memory.current`) and v1
//! (`memory.limit_in_bytes`, `memory.usage_in_bytes`), each mount found in
//! `/proc/self/mountinfo`. Use counts what the cgroup cannot give back: its usage less its
//! inactive file cache, as `docker stats` and the kubelet's working set count it.

use std::path::{Path, PathBuf};

/// v1's way of saying "no limit" (`PAGE_COUNTER_MAX` pages, about 2^63 bytes).
const V1_UNLIMITED: u64 = 1 << 62;

/// A memory limit on the process and what its cgroup holds of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CgroupMemory {
    /// The limit, bytes.
    pub limit: u64,
    /// In use and not reclaimable, bytes.
    pub used: u64,
    /// The file the limit was read from (`memory.max` or `memory.limit_in_bytes`).
    pub file: &'static str,
}

impl CgroupMemory {
    /// What is left under the limit, bytes.
    pub fn room(&self) -> u64 {
        self.limit.saturating_sub(self.used)
    }
}

/// The limit with the least room on the process's memory cgroups and their ancestors,
/// the filesystem seen from `root` (`/` but in tests); `None` when nothing limits it.
pub fn memory(root: &Path) -> Option<CgroupMemory> {
    let read = |p: &Path| std::fs::read_to_string(p).ok();
    let membership = read(&root.join("proc/self/cgroup"))?;
    let mounts = read(&root.join("proc/self/mountinfo"))?;
    let mut tightest: Option<CgroupMemory> = None;
    for (dir, top, version) in cgroup_dirs(&membership, &mounts, root) {
        let (limit_file, usage_file, stat_key) = match version {
            Version::V2 => ("memory.max", "memory.current", "inactive_file"),
            Version::V1 => (
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
                "total_inactive_file",
            ),
        };
        for level in dir.ancestors().take_while(|l| l.starts_with(&top)) {
            let Some(limit) = read(&level.join(limit_file)).and_then(|t| number(&t)) else {
                continue;
            };
            if version == Version::V1 && limit >= V1_UNLIMITED {
                continue;
            }
            let usage = read(&level.join(usage_file))
                .and_then(|t| number(&t))
                .unwrap_or(0);
            let inactive = read(&level.join("memory.stat"))
                .and_then(|t| stat(&t, stat_key))
                .unwrap_or(0);
            let here = CgroupMemory {
                limit,
                used: usage.saturating_sub(inactive),
                file: limit_file,
            };
            if tightest.is_none_or(|t| here.room() < t.room()) {
                tightest = Some(here);
            }
        }
    }
    tightest
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Version {
    V1,
    V2,
}

/// Each memory cgroup the process is in, as a folder under its mount, with the mount's
/// folder (the walk up stops there) and its version.
fn cgroup_dirs(membership: &str, mountinfo: &str, root: &Path) -> Vec<(PathBuf, PathBuf, Version)> {
    let mut out = Vec::new();
    for line in membership.lines() {
        // `hierarchy-ID:controllers:path`; v2 is `0::path`.
        let mut parts = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let version = if id == "0" && controllers.is_empty() {
            Version::V2
        } else if controllers.split(',').any(|c| c == "memory") {
            Version::V1
        } else {
            continue;
        };
        let Some((mount_root, mount_point)) = mount_of(mountinfo, version) else {
            continue;
        };
        // A cgroup path is relative to the mount's root (the container's own cgroup, seen
        // from inside it, is often the mount's root itself).
        let relative = Path::new(path)
            .strip_prefix(&mount_root)
            .unwrap_or(Path::new(""));
        let top = root.join(mount_point.trim_start_matches('/'));
        out.push((top.join(relative), top, version));
    }
    out
}

/// The root and mount point of the cgroup mount of `version` (v1: the one holding the
/// memory controller) in `/proc/self/mountinfo`.
fn mount_of(mountinfo: &str, version: Version) -> Option<(String, String)> {
    mountinfo.lines().find_map(|line| {
        // `id parent dev root mount-point options [optional...] - fstype source super-options`
        let (left, right) = line.split_once(" - ")?;
        let left: Vec<&str> = left.split(' ').collect();
        let right: Vec<&str> = right.split(' ').collect();
        let (root, point) = (*left.get(3)?, *left.get(4)?);
        let fstype = *right.first()?;
        let found = match version {
            Version::V2 => fstype == "cgroup2",
            Version::V1 => fstype == "cgroup" && right.get(2)?.split(',').any(|o| o == "memory"),
        };
        found.then(|| (root.to_owned(), point.to_owned()))
    })
}

/// A whole number of bytes (`max` and anything else is `None`).
fn number(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

/// `key`'s value in a `memory.stat` text.
fn stat(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(' ')?;
        (k == key).then(|| number(v)).flatten()
    })
}

#[cfg(test)]
mod tests;
