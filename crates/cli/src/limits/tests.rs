//! Limits as a table: machine limits and a concurrency in, the verdict out.

use super::*;

const GIB: u64 = 1024 * 1024 * 1024;

fn machine(open_files: Option<u64>, memory: Option<u64>, local_ports: Option<u64>) -> Machine {
    Machine {
        open_files,
        memory,
        memory_from: MemoryFrom::MemAvailable,
        local_ports,
    }
}

#[test]
fn verdicts() {
    let sim = PerRequest::new(true);
    let remote = PerRequest::new(false);
    let this_box = machine(Some(20_000), Some(22 * GIB), Some(28_232));
    let rows: &[(Machine, PerRequest, u64, Result<(), &str>)] = &[
        (this_box, sim, 16, Ok(())),
        // Open files bind: 2 per request with the in-process simulator, plus 64.
        (this_box, sim, 9_968, Ok(())),
        (
            this_box,
            sim,
            9_969,
            Err(
                "concurrency 9,969 does not fit this machine: it needs 20,002 open files (2 per request: the connection and the in-process simulator's end of it, plus 64) and the hard limit is 20,000 (ulimit -Hn); at most 9,968 fit",
            ),
        ),
        (
            this_box,
            sim,
            1_000_000,
            Err(
                "concurrency 1,000,000 does not fit this machine: it needs 2,000,064 open files (2 per request: the connection and the in-process simulator's end of it, plus 64) and the hard limit is 20,000 (ulimit -Hn); at most 9,968 fit",
            ),
        ),
        // A remote server: one file per request.
        (this_box, remote, 19_936, Ok(())),
        (
            this_box,
            remote,
            19_937,
            Err(
                "concurrency 19,937 does not fit this machine: it needs 20,001 open files (1 per request, plus 64) and the hard limit is 20,000 (ulimit -Hn); at most 19,936 fit",
            ),
        ),
        // Ports bind before memory; the tightest limit exceeded is named.
        (
            machine(Some(1_048_576), Some(8 * GIB), Some(28_232)),
            remote,
            100_000,
            Err(
                "concurrency 100,000 does not fit this machine: each connection needs its own local port and the range has 28,232 (net.ipv4.ip_local_port_range); at most 28,232 fit",
            ),
        ),
        // Memory: 128 KiB per request plus 64 MiB.
        (machine(None, Some(2 * GIB), None), remote, 15_872, Ok(())),
        (
            machine(None, Some(2 * GIB), None),
            remote,
            50_000,
            Err(
                "concurrency 50,000 does not fit this machine: it needs about 6.2 GiB of memory (128 KiB per in-flight request, plus 64 MiB) and 2.0 GiB is available (MemAvailable); at most 15,872 fit",
            ),
        ),
        // The largest N that fits is the smallest bound, even one N does not exceed.
        (
            machine(Some(20_000), Some(GIB), None),
            sim,
            12_000,
            Err(
                "concurrency 12,000 does not fit this machine: it needs about 1.9 GiB of memory (160 KiB per in-flight request, plus 64 MiB) and 1.0 GiB is available (MemAvailable); at most 6,144 fit",
            ),
        ),
        (
            machine(Some(50), None, None),
            sim,
            1,
            Err(
                "concurrency 1 does not fit this machine: it needs 66 open files (2 per request: the connection and the in-process simulator's end of it, plus 64) and the hard limit is 50 (ulimit -Hn); no concurrency fits",
            ),
        ),
        // Limits that could not be read are not checked.
        (Machine::default(), sim, u64::from(u32::MAX), Ok(())),
    ];
    for (m, per, n, want) in rows {
        let got = verdict(*n, m, *per);
        assert_eq!(
            got.as_ref().map_err(String::as_str),
            want.as_ref().map_err(|e| *e),
            "N={n} {m:?}"
        );
    }
}

#[test]
fn check_names_each_batch_size_too_large() {
    let config: plateau_model::config::RunConfig = serde_json::from_value(serde_json::json!({
        "endpoints": [{"name": "sim", "engine": "sim"}],
        "models": [{"id": "m", "name": "plateau-sim"}],
        "batch_sizes": [4, 20_000, 8]
    }))
    .unwrap();
    let plan = Plan::build(&config, &|_| None).unwrap();
    let problems = check(&plan, &machine(Some(20_000), None, None));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].field, "batch_sizes[1]");
    assert!(
        problems[0].message.ends_with("at most 9,968 fit"),
        "{}",
        problems[0].message
    );
}

/// In a container `MemAvailable` is the host's: a cgroup limit that leaves less binds, and
/// the refusal says so.
#[test]
fn a_cgroup_limit_that_leaves_less_binds() {
    let cg = CgroupMemory {
        limit: 2 * GIB,
        used: GIB,
        file: "memory.max",
    };
    let roomy = CgroupMemory { used: 0, ..cg };
    assert_eq!(
        tighter(Some(22 * GIB), Some(cg)),
        (Some(GIB), MemoryFrom::Cgroup(cg))
    );
    assert_eq!(
        tighter(Some(GIB), Some(roomy)),
        (Some(GIB), MemoryFrom::MemAvailable)
    );
    assert_eq!(tighter(None, Some(cg)), (Some(GIB), MemoryFrom::Cgroup(cg)));
    assert_eq!(
        tighter(Some(GIB), None),
        (Some(GIB), MemoryFrom::MemAvailable)
    );
    assert_eq!(tighter(None, None), (None, MemoryFrom::MemAvailable));
    let container = Machine {
        memory: Some(GIB),
        memory_from: MemoryFrom::Cgroup(cg),
        ..machine(None, None, None)
    };
    assert_eq!(
        verdict(10_000, &container, PerRequest::new(false)),
        Err(
            "concurrency 10,000 does not fit this machine: it needs about 1.3 GiB of memory \
             (128 KiB per in-flight request, plus 64 MiB) and 1.0 GiB is available (this \
             process's cgroup limit, memory.max, is 2.0 GiB and 1.0 GiB of it is in use; \
             MemAvailable is the host's); at most 7,680 fit"
                .to_owned()
        )
    );
}

#[test]
fn reads_proc_files() {
    let meminfo =
        "MemTotal:       24684084 kB\nMemFree:         1000 kB\nMemAvailable:   23029080 kB\n";
    assert_eq!(mem_available(meminfo), Some(23_029_080 * 1024));
    assert_eq!(mem_available("MemTotal: 5 kB\n"), None);
    assert_eq!(port_range("32768\t60999\n"), Some(28_232));
    assert_eq!(port_range("1024 1024"), Some(1));
    assert_eq!(port_range("60999 32768"), None);
    assert_eq!(port_range(""), None);
}

#[test]
fn numbers_read_easily() {
    assert_eq!(thousands(0), "0");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(1_000), "1,000");
    assert_eq!(thousands(2_000_064), "2,000,064");
    assert_eq!(bytes(160 * 1024), "160 KiB");
    assert_eq!(bytes(64 * 1024 * 1024), "64 MiB");
    assert_eq!(bytes(5 * GIB / 2), "2.5 GiB");
}
