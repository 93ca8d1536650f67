//! A DCGM exporter on 127.0.0.1 (a port the OS picks) whose page is rendered from the time
//! since it started, in dcgm-exporter's own format (`etc/default-counters.csv` names, the
//! `gpu`/`UUID`/`pci_bus_id`/`device`/`modelName`/`Hostname` labels): each GPU draws a
//! constant power, and its energy counter, in mJ since "boot", grows at exactly that rate
//! (W x ms = mJ), so the energy over any window is known.

use std::fmt::Write as _;
use std::time::Instant;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

use crate::raw::read_head;

/// One GPU the exporter shows.
#[derive(Clone, Debug)]
pub struct Gpu {
    /// Its UUID label.
    pub uuid: String,
    /// Its constant power draw, W.
    pub watts: f64,
    /// Its energy counter when the exporter starts, mJ.
    pub base_mj: u64,
}

/// What the exporter renders.
#[derive(Clone, Debug)]
pub struct Exporter {
    /// The GPUs.
    pub gpus: Vec<Gpu>,
    /// Whether the page has `DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION` (a GPU without it gives
    /// only its power, as on GPUs older than Volta).
    pub counter: bool,
}

/// Most requests one connection is answered (every test loop is bounded).
const MAX_REQUESTS: usize = 100_000;

/// Starts the exporter; returns its port. It answers every `GET` with the page as of now.
pub async fn serve(exporter: Exporter) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let start = Instant::now();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let exporter = exporter.clone();
            tokio::spawn(async move {
                for _ in 0..MAX_REQUESTS {
                    if read_head(&mut sock).await.is_none() {
                        return;
                    }
                    let body = page(&exporter, start.elapsed().as_secs_f64() * 1000.0);
                    let head = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: text/plain; version=0.0.4\r\n\
                         content-length: {}\r\n\r\n",
                        body.len()
                    );
                    if sock.write_all(head.as_bytes()).await.is_err()
                        || sock.write_all(body.as_bytes()).await.is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    port
}

/// The page `elapsed_ms` after the start.
pub fn page(exporter: &Exporter, elapsed_ms: f64) -> String {
    let mut out = String::new();
    let labels = |i: usize, g: &Gpu| {
        format!(
            "gpu=\"{i}\",UUID=\"{}\",pci_bus_id=\"00000000:{:02X}:00.0\",device=\"nvidia{i}\",\
             modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"test-node\"",
            g.uuid,
            0x18 + i
        )
    };
    let mut metric = |name: &str, help: &str, kind: &str, value: &dyn Fn(&Gpu) -> String| {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        for (i, g) in exporter.gpus.iter().enumerate() {
            let _ = writeln!(out, "{name}{{{}}} {}", labels(i, g), value(g));
        }
    };
    metric(
        "DCGM_FI_DEV_POWER_USAGE",
        "Power draw (in W).",
        "gauge",
        &|g| format!("{:.3}", g.watts),
    );
    if exporter.counter {
        metric(
            "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
            "Total energy consumption since boot (in mJ).",
            "counter",
            &|g| format!("{}", g.base_mj + (g.watts * elapsed_ms).round() as u64),
        );
    }
    metric(
        "DCGM_FI_DEV_GPU_UTIL",
        "GPU utilization (in %).",
        "gauge",
        &|_| "97".into(),
    );
    metric(
        "DCGM_FI_DEV_FB_USED",
        "Framebuffer memory used (in MiB).",
        "gauge",
        &|_| "71234".into(),
    );
    out
}
