//! cgroup trees as the kernel shows them, written under a temporary root.

use super::*;

const MIB: u64 = 1024 * 1024;
const GIB: u64 = 1024 * MIB;

/// A root holding `files` (path, content).
fn tree(files: &[(&str, String)]) -> tempfile::TempDir {
    let dir = tempfile::TempDir::new().unwrap();
    for (path, text) in files {
        let at = dir.path().join(path);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, text).unwrap();
    }
    dir
}

/// This VM's own layout: cgroup v1 beside an empty v2 mount, the process in a memory cgroup
/// two levels down, here given a 2 GiB limit.
#[test]
fn v1_the_process_cgroup_limit_less_what_it_cannot_give_back() {
    let cg = "sys/fs/cgroup/memory/process_api/28a1";
    let root = tree(&[
        (
            "proc/self/cgroup",
            "9:name=systemd:/\n4:memory:/process_api/28a1\n1:cpu:/\n0::/\n".into(),
        ),
        (
            "proc/self/mountinfo",
            "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n\
             32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n\
             35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n\
             41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
                .into(),
        ),
        (
            &format!("{cg}/memory.limit_in_bytes"),
            format!("{}\n", 2 * GIB),
        ),
        (
            &format!("{cg}/memory.usage_in_bytes"),
            format!("{}\n", 1536 * MIB),
        ),
        (
            &format!("{cg}/memory.stat"),
            format!(
                "cache 9\ninactive_file 1\ntotal_inactive_file {}\n",
                512 * MIB
            ),
        ),
        (
            "sys/fs/cgroup/memory/process_api/memory.limit_in_bytes",
            "9223372036854771712\n".into(),
        ),
        (
            "sys/fs/cgroup/memory/memory.limit_in_bytes",
            "9223372036854771712\n".into(),
        ),
    ]);
    assert_eq!(
        memory(root.path()),
        Some(CgroupMemory {
            limit: 2 * GIB,
            used: GIB,
            file: "memory.limit_in_bytes",
        })
    );
    assert_eq!(memory(root.path()).unwrap().room(), GIB);
}

/// A container with its own cgroup namespace: the process's cgroup is the v2 mount's root.
#[test]
fn v2_in_a_container_reads_the_mount_root() {
    let root = tree(&[
        ("proc/self/cgroup", "0::/\n".into()),
        (
            "proc/self/mountinfo",
            "1 0 0:1 / / rw - overlay overlay rw\n\
             30 1 0:27 / /sys/fs/cgroup ro,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
                .into(),
        ),
        ("sys/fs/cgroup/memory.max", format!("{}\n", 512 * MIB)),
        ("sys/fs/cgroup/memory.current", format!("{}\n", 400 * MIB)),
        (
            "sys/fs/cgroup/memory.stat",
            format!("anon 1\nactive_file 5\ninactive_file {}\n", 100 * MIB),
        ),
    ]);
    let m = memory(root.path()).unwrap();
    assert_eq!(
        (m.limit, m.used, m.file),
        (512 * MIB, 300 * MIB, "memory.max")
    );
}

/// Limits higher up bind too: the ancestor with the least room is the one reported.
#[test]
fn v2_the_tightest_of_the_cgroup_and_its_ancestors() {
    let slice = "sys/fs/cgroup/user.slice";
    let root = tree(&[
        ("proc/self/cgroup", "0::/user.slice/run.scope\n".into()),
        (
            "proc/self/mountinfo",
            "30 1 0:27 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n".into(),
        ),
        (
            &format!("{slice}/run.scope/memory.max"),
            format!("{}\n", 8 * GIB),
        ),
        (
            &format!("{slice}/run.scope/memory.current"),
            format!("{}\n", GIB),
        ),
        (&format!("{slice}/memory.max"), format!("{}\n", 2 * GIB)),
        (
            &format!("{slice}/memory.current"),
            format!("{}\n", 1900 * MIB),
        ),
        ("sys/fs/cgroup/memory.max", "max\n".into()),
    ]);
    let m = memory(root.path()).unwrap();
    assert_eq!((m.limit, m.room()), (2 * GIB, 148 * MIB));
}

/// Docker on v1 without a cgroup namespace: the path is the host's, the mount's root is it.
#[test]
fn v1_a_mount_rooted_at_the_cgroup_itself() {
    let root = tree(&[
        ("proc/self/cgroup", "4:cpuacct,memory:/docker/abc\n".into()),
        (
            "proc/self/mountinfo",
            "35 31 0:32 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,cpuacct,memory\n"
                .into(),
        ),
        (
            "sys/fs/cgroup/memory/memory.limit_in_bytes",
            format!("{GIB}"),
        ),
        (
            "sys/fs/cgroup/memory/memory.usage_in_bytes",
            format!("{}", 100 * MIB),
        ),
    ]);
    assert_eq!(memory(root.path()).unwrap().room(), 924 * MIB);
}

#[test]
fn no_limit_or_nothing_readable_is_none() {
    let unlimited = tree(&[
        ("proc/self/cgroup", "0::/a\n".into()),
        (
            "proc/self/mountinfo",
            "30 1 0:27 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n".into(),
        ),
        ("sys/fs/cgroup/a/memory.max", "max\n".into()),
        ("sys/fs/cgroup/a/memory.current", "5\n".into()),
    ]);
    assert_eq!(memory(unlimited.path()), None);
    let v1_unlimited = tree(&[
        ("proc/self/cgroup", "4:memory:/\n".into()),
        (
            "proc/self/mountinfo",
            "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n".into(),
        ),
        (
            "sys/fs/cgroup/memory/memory.limit_in_bytes",
            "9223372036854771712\n".into(),
        ),
    ]);
    assert_eq!(memory(v1_unlimited.path()), None);
    assert_eq!(memory(tree(&[]).path()), None);
    // A mount that is not there: nothing to read.
    let unmounted = tree(&[
        ("proc/self/cgroup", "0::/\n".into()),
        (
            "proc/self/mountinfo",
            "1 0 0:1 / / rw - ext4 /dev/vda rw\n".into(),
        ),
    ]);
    assert_eq!(memory(unmounted.path()), None);
}
