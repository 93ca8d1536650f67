//! The server's spans end to end: the simulator exports vLLM's `llm_request` span for each
//! request (fixed profile: TTFT 50 ms of which 20 ms queue, so prefill 30 ms) to the run's
//! OTLP/HTTP receiver, and each record gets its server timing from its span by the trace id
//! plateau sent; then the same while another client posts garbage and oversized bodies to
//! the receiver.

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use plateau_core::server_traces::Spans;
use plateau_model::config::ServerTracesConfig;
use plateau_model::results::summary::CellSummary;
use plateau_model::results::{self, REQUESTS_FILE};
use plateau_model::sample::server::TimingSource;
use plateau_model::server_timing::GapBasis;
use plateau_sim::{FixedConfig, Profile, Server, SimConfig};
use serde_json::json;

use crate::common;

fn sim() -> SimConfig {
    SimConfig {
        profile: Profile::Fixed,
        fixed: FixedConfig {
            ttft_ms: 50.0,
            itl_ms: 5.0,
            queue_ms: 20.0,
        },
        ..SimConfig::default()
    }
}

fn config() -> serde_json::Value {
    json!({
        "endpoints": [{"name": "sim", "engine": "sim", "url": "http://placeholder/v1"}],
        "models": [{"id": "m", "name": "m"}],
        "scenarios": ["A1"],
        "batch_sizes": [4],
        "fill_seconds": 1, "stabilize_seconds": 1, "measure_seconds": 3, "drain_seconds": 3,
        "request_timeout_seconds": 5,
        "max_tokens": 8,
        "server_metrics": {"enabled": false}
    })
}

/// Runs one cell against the simulator exporting to a fresh receiver; `abuse` is given
/// the receiver's address and runs beside the cell. The cell's summary and directory.
async fn cell(
    name: &str,
    abuse: Option<fn(SocketAddr) -> u64>,
) -> (CellSummary, u64, tempfile::TempDir) {
    let spans = Spans::start(&ServerTracesConfig {
        listen: "127.0.0.1:0".into(),
        wait_seconds: 10.0,
        ..ServerTracesConfig::default()
    })
    .unwrap();
    let mut sim = sim();
    sim.export_spans_to(&spans.url());
    sim.otlp.as_mut().unwrap().export_interval_ms = 50;
    let receiver = spans.addr();
    let server = Server::start("127.0.0.1:0".parse().unwrap(), sim)
        .await
        .unwrap();
    let url = format!("http://{}/v1", server.addr());
    let (tmp, out) = common::out_dir(name);
    let abuser = abuse.map(|f| std::thread::spawn(move || f(receiver)));
    let report = common::run_joined(&url, config(), &out, false, Some(spans)).await;
    server.shutdown().await;
    let posted = abuser.map_or(0, |t| t.join().unwrap());
    let summary = common::at(&report, 4).clone();
    let samples = results::read_samples(&out.join("sim/m/A1/c4").join(REQUESTS_FILE)).unwrap();
    let ok: Vec<_> = samples.iter().filter(|s| s.outcome.is_ok()).collect();
    assert!(!ok.is_empty());
    // Every successful record, in the file as rewritten, carries its span's timing.
    for s in &ok {
        let t = s
            .server
            .as_ref()
            .unwrap_or_else(|| panic!("no server timing: seq {}", s.seq));
        assert_eq!(t.source, TimingSource::Span);
        assert_eq!(t.output_tokens, s.n_out, "seq {}", s.seq);
    }
    (summary, posted, tmp)
}

fn check_timings(s: &CellSummary, ttft_tolerance_ms: f64) {
    let st = s.server_timing.as_ref().expect("server_timing");
    assert_eq!(st.source, TimingSource::Span);
    assert_eq!(st.table.as_deref(), Some("vllm"));
    assert_eq!(st.match_rate, Some(1.0), "{st:?}");
    assert_eq!(st.matched_by_request_id, 0);
    let spans = st.spans.expect("span counts");
    assert_eq!(
        (spans.unmatched, spans.ambiguous_records),
        (0, 0),
        "{spans:?}"
    );
    let p50 =
        |d: &Option<plateau_model::metrics::Distribution>| d.as_ref().expect("a distribution").p50;
    assert!(
        (p50(&st.queue_ms) - 20.0).abs() <= 1.0,
        "queue {}",
        p50(&st.queue_ms)
    );
    assert!(
        (p50(&st.prefill_ms) - 30.0).abs() <= 1.0,
        "prefill {}",
        p50(&st.prefill_ms)
    );
    assert!(
        (p50(&st.ttft_ms) - 50.0).abs() <= ttft_tolerance_ms,
        "server ttft {}",
        p50(&st.ttft_ms)
    );
    let gap = st.gap_ms.as_ref().expect("gap");
    eprintln!(
        "n {} queue p50 {:.3} prefill p50 {:.3} server ttft p50 {:.3} gap p50 {:.3} min {:.3} max {:.3}",
        st.matched,
        p50(&st.queue_ms),
        p50(&st.prefill_ms),
        p50(&st.ttft_ms),
        gap.p50,
        gap.min,
        gap.max
    );
    assert_eq!(st.gap_basis, GapBasis::ServerTtft);
    assert!((0.0..=2.0).contains(&gap.p50), "gap p50 {}", gap.p50);
    assert!(gap.min >= -1.0, "gap min {}", gap.min);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_record_gets_its_spans_queue_prefill_and_server_ttft() {
    let (summary, _, _tmp) = cell("spans", None).await;
    check_timings(&summary, 1.0);
    let receiver = summary
        .server_timing
        .unwrap()
        .receiver
        .expect("receiver counts");
    assert!(receiver.requests > 0);
    assert_eq!(
        (
            receiver.malformed,
            receiver.too_large,
            receiver.dropped_spans
        ),
        (0, 0, 0)
    );
}

/// Posts 20 garbage bodies and 5 announced 64 MiB ones to `addr`, 100 ms apart; the
/// number of garbage bodies the receiver answered.
fn abuse(addr: SocketAddr) -> u64 {
    let post = |head: String, body: &[u8]| -> Option<String> {
        let mut s = TcpStream::connect(addr).ok()?;
        s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
        s.write_all(head.as_bytes()).ok()?;
        let _ = s.write_all(body);
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        Some(String::from_utf8_lossy(&out).get(9..12)?.to_owned())
    };
    let mut garbage = 0;
    for i in 0..25 {
        std::thread::sleep(Duration::from_millis(100));
        let (len, body): (usize, &[u8]) = if i % 5 == 4 {
            (64 << 20, b"")
        } else {
            (7, &[0xff, 0xff, 0xff, 0xff, 0x0f, 0x0a, 0x80])
        };
        let head = format!(
            "POST /v1/traces HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\
             content-type: application/x-protobuf\r\ncontent-length: {len}\r\n\r\n"
        );
        let status = post(head, body);
        if len == 7 {
            assert_eq!(status.as_deref(), Some("400"));
            garbage += 1;
        } else {
            assert_eq!(status.as_deref(), Some("413"));
        }
    }
    garbage
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_beside_the_cell_is_counted_and_changes_nothing() {
    let (summary, garbage, _tmp) = cell("spans-abuse", Some(abuse)).await;
    check_timings(&summary, 2.0);
    let receiver = summary
        .server_timing
        .unwrap()
        .receiver
        .expect("receiver counts");
    assert_eq!(receiver.malformed, garbage);
    assert_eq!(receiver.too_large, 5);
}
