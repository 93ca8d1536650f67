//! The checked-in fixture results (`tests/fixtures/`), made by hand from simple rules (below)
//! rather than recorded from a run, and the test that keeps the files equal to the rules.
//! The summaries are computed from the hand-made requests by the core's `summarize`, so
//! every `summary.json` agrees with its `requests.jsonl.gz` exactly.
//! `PLATEAU_BLESS=1 cargo test -p plateau-report --test report fixtures` rewrites them.
//!
//! Each request: 12 one-token chunks. TTFT = scenario base (A1 20 ms, B2 80 ms) x engine
//! factor (vllm 1.0, sglang 1.2) x (1 + N/4), plus `seq % 5` ms. ITL = engine base
//! (vllm 10 ms, sglang 8 ms) x (1 + N/10) plus `(7k + 3 seq) % 5` x 0.4 ms, with every
//! tenth request waiting 4 ITLs before chunk 8 (a tail). Slots start evenly over Fill (1 s),
//! Stabilize is 1 s, Measure 4 s (m0 = 2 s, m1 = 6 s); slots keep sending until the last
//! measured request ends, and padding still running then is cancelled.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use flate2::Compression;
use flate2::write::GzEncoder;
use plateau_core::config::{Api, Engine, RunConfig, SteadyConfig};
use plateau_core::metrics::{self, Options, Window};
use plateau_core::phase::Phase;
use plateau_core::results::run_info::{
    CellEntry, CellState, EndpointInfo, Host, RunInfo, RunStatus,
};
use plateau_core::results::summary::{
    CellInfo, CellStatus, CellSummary, PhaseBounds, RecordsInfo, SCHEMA_VERSION,
};
use plateau_core::results::{self, REQUESTS_FILE, RUN_FILE, SUMMARY_FILE};
use plateau_core::sample::{Chunk, Outcome, Sample, TokenSource};
use plateau_core::workload::WorkloadInfo;

const TOKENS: u32 = 12;
const FILL_US: u64 = 1_000_000;
const M0_US: u64 = 2_000_000;
const M1_US: u64 = 6_000_000;

/// How one cell's server behaves.
#[derive(Clone, Copy)]
struct Cell {
    endpoint: &'static str,
    engine: Engine,
    scenario: &'static str,
    n: u32,
    /// Slows every gap by this fraction per second since m0 (an unsteady server).
    slowdown_per_s: f64,
    /// Ctrl-C at this instant.
    interrupt_us: Option<u64>,
}

impl Cell {
    fn rel(&self) -> String {
        format!("{}/llama-8b/{}/c{}", self.endpoint, self.scenario, self.n)
    }
}

fn cell(endpoint: &'static str, scenario: &'static str, n: u32) -> Cell {
    Cell {
        endpoint,
        engine: if endpoint == "vllm" {
            Engine::Vllm
        } else {
            Engine::Sglang
        },
        scenario,
        n,
        slowdown_per_s: 0.0,
        interrupt_us: None,
    }
}

/// A fixture directory: its cells (run.json lists `planned`; only `cells` have files).
pub struct Fixture {
    /// Directory name under `tests/fixtures/`.
    pub name: &'static str,
    cells: Vec<Cell>,
    planned: Vec<(String, CellState)>,
    status: RunStatus,
    scenarios: Vec<&'static str>,
    batch_sizes: Vec<u32>,
}

/// Every fixture.
pub fn all() -> Vec<Fixture> {
    let mut clean = Vec::new();
    for endpoint in ["vllm", "sglang"] {
        for scenario in ["A1", "B2"] {
            for n in [1, 2, 4] {
                clean.push(cell(endpoint, scenario, n));
            }
        }
    }
    let planned = |cells: &[Cell]| {
        cells
            .iter()
            .map(|c| (c.rel(), CellState::Complete))
            .collect::<Vec<_>>()
    };
    let unsteady = vec![
        cell("vllm", "A1", 1),
        Cell {
            slowdown_per_s: 0.5,
            ..cell("vllm", "A1", 4)
        },
    ];
    let interrupted = vec![
        cell("vllm", "A1", 1),
        Cell {
            interrupt_us: Some(4_000_000),
            ..cell("vllm", "A1", 2)
        },
    ];
    let mut interrupted_plan = planned(&interrupted);
    interrupted_plan[1].1 = CellState::Interrupted;
    interrupted_plan.push((cell("vllm", "A1", 4).rel(), CellState::Pending));
    vec![
        Fixture {
            name: "clean",
            planned: planned(&clean),
            cells: clean,
            status: RunStatus::Complete,
            scenarios: vec!["A1", "B2"],
            batch_sizes: vec![1, 2, 4],
        },
        Fixture {
            name: "unsteady",
            planned: planned(&unsteady),
            cells: unsteady,
            status: RunStatus::Complete,
            scenarios: vec!["A1"],
            batch_sizes: vec![1, 4],
        },
        Fixture {
            name: "interrupted",
            cells: interrupted,
            planned: interrupted_plan,
            status: RunStatus::Interrupted,
            scenarios: vec!["A1"],
            batch_sizes: vec![1, 2, 4],
        },
    ]
}

/// `tests/fixtures/<name>`.
pub fn path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn t0() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-01-05T10:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

/// One slot's requests from `start_us` until `stop_sending_us`; returns them and when the
/// last one ends.
fn requests(c: &Cell, slot: u32, start_us: u64, stop_sending_us: u64) -> Vec<Sample> {
    let mut out = Vec::new();
    let mut t = start_us;
    let (ttft_base, itl_base, factor) = (
        if c.scenario == "A1" { 20.0 } else { 80.0 },
        if c.engine == Engine::Vllm { 10.0 } else { 8.0 },
        if c.engine == Engine::Vllm { 1.0 } else { 1.2 },
    );
    let n = f64::from(c.n);
    let mut k_req = u64::from(slot) * 7;
    while t < stop_sending_us {
        let slow = 1.0 + c.slowdown_per_s * (t.saturating_sub(M0_US) as f64 / 1e6);
        let ttft_ms = ttft_base * factor * (1.0 + n / 4.0) + (k_req % 5) as f64;
        let mut at = t + (ttft_ms * 1000.0) as u64;
        let mut chunks = Vec::new();
        for k in 0..TOKENS as u64 {
            if k > 0 {
                let jitter = ((7 * k + 3 * k_req) % 5) as f64 * 0.4;
                let mut gap = (itl_base * (1.0 + n / 10.0) + jitter) * slow;
                if k == 8 && k_req % 10 == 0 {
                    gap *= 4.0;
                }
                at += (gap * 1000.0) as u64;
            }
            chunks.push(Chunk {
                t_us: at,
                tokens: 1,
            });
        }
        let sglang = c.engine == Engine::Sglang;
        out.push(Sample {
            seq: 0,
            slot,
            phase: phase(t),
            t_sent_us: t,
            t_end_us: at + 300,
            chunks,
            n_out: Some(TOKENS),
            n_out_source: Some(TokenSource::Usage),
            n_out_client: Some(TOKENS + u32::from(sglang)),
            chunk_tokens_source: Some(TokenSource::Usage),
            n_in: Some(if c.scenario == "A1" { 58 } else { 2_560 }),
            n_in_source: Some(TokenSource::Usage),
            n_in_target: Some(if c.scenario == "A1" { 50 } else { 2_500 }),
            outcome: Outcome::Ok,
            error: None,
            turn: None,
            prompt: None,
            response: None,
        });
        t = at + 300 + 150;
        k_req += 1;
    }
    out
}

fn phase(t_us: u64) -> Phase {
    match t_us {
        t if t < FILL_US => Phase::Fill,
        t if t < M0_US => Phase::Stabilize,
        t if t < M1_US => Phase::Measure,
        _ => Phase::Drain,
    }
}

/// Cuts `s` at `at_us` with `outcome`: chunks after it are dropped.
fn cut(s: &mut Sample, at_us: u64, outcome: Outcome) {
    if s.t_end_us > at_us {
        s.chunks.retain(|c| c.t_us <= at_us);
        s.t_end_us = at_us;
        s.outcome = outcome;
        s.n_out = None;
        s.n_out_source = None;
        s.n_out_client = None;
    }
}

/// A cell's samples (in send order) and its summary.
fn make_cell(c: &Cell) -> (Vec<Sample>, CellSummary) {
    let n = c.n;
    let stop = c.interrupt_us.unwrap_or(u64::MAX);
    // Measured requests are those sent before m1; slots keep sending until they all end.
    let first: Vec<Vec<Sample>> = (0..n)
        .map(|i| requests(c, i, FILL_US * u64::from(i) / u64::from(n), M1_US.min(stop)))
        .collect();
    let drain_end = first
        .iter()
        .flatten()
        .map(|s| s.t_end_us)
        .max()
        .unwrap_or(M1_US);
    let mut samples: Vec<Sample> = Vec::new();
    for (i, mine) in first.into_iter().enumerate() {
        let next = mine.last().map_or(M1_US, |s| s.t_end_us + 150);
        samples.extend(mine);
        if c.interrupt_us.is_none() {
            let mut padding = requests(c, i as u32, next, drain_end);
            for p in &mut padding {
                cut(p, drain_end, Outcome::Cancelled);
            }
            samples.extend(padding);
        }
    }
    let end_us = match c.interrupt_us {
        Some(at) => {
            for s in &mut samples {
                cut(s, at, Outcome::Interrupted);
            }
            at
        }
        None => drain_end,
    };
    samples.sort_by_key(|s| (s.t_sent_us, s.slot));
    for (i, s) in samples.iter_mut().enumerate() {
        s.seq = i as u64;
    }
    let window = Window {
        m0_us: M0_US,
        m1_us: M1_US,
        concurrency: n,
    };
    let steady = SteadyConfig::default();
    let metrics = metrics::summarize(
        &samples,
        &window,
        &Options {
            slo: None,
            steady: &steady,
        },
    );
    let started = t0() + Duration::seconds(i64::from(n) * 10);
    let summary = CellSummary {
        schema_version: SCHEMA_VERSION,
        plateau_version: "0.1.0".into(),
        status: if c.interrupt_us.is_some() {
            CellStatus::Interrupted
        } else {
            CellStatus::Complete
        },
        cell: CellInfo {
            endpoint: c.endpoint.into(),
            engine: c.engine,
            url: format!("http://{}.test:8000/v1", c.endpoint),
            model: "llama-8b".into(),
            model_name: "meta-llama/Llama-3.1-8B-Instruct".into(),
            scenario: c.scenario.into(),
            concurrency: n,
            api: Api::Chat,
            stream: true,
            max_tokens: TOKENS,
            ignore_eos: true,
        },
        workload: WorkloadInfo {
            id: c.scenario.into(),
            name: if c.scenario == "A1" {
                "Same Short".into()
            } else {
                "Diverse Long".into()
            },
            synthetic: c.scenario == "B2",
            source: "hand-made fixture".into(),
            notes: Vec::new(),
        },
        tokenizer: "cl100k_base".into(),
        phases: PhaseBounds {
            fill_s: 1.0,
            stabilize_s: 1.0,
            measure_s: 4.0,
            drain_max_s: 5.0,
            m0_us: M0_US,
            m1_us: M1_US,
            drain_end_us: end_us,
            end_us,
            drain_timed_out: false,
        },
        started_at: started,
        ended_at: started + Duration::microseconds(end_us as i64),
        records: RecordsInfo {
            file: REQUESTS_FILE.into(),
            count: samples.len() as u64,
            write_error: None,
        },
        metrics,
    };
    (samples, summary)
}

fn run_info(f: &Fixture) -> RunInfo {
    let config: RunConfig = serde_json::from_value(serde_json::json!({
        "endpoints": [
            {"name": "vllm", "engine": "vllm", "url": "http://vllm.test:8000/v1"},
            {"name": "sglang", "engine": "sglang", "url": "http://sglang.test:8000/v1"}
        ],
        "models": [{"id": "llama-8b", "name": "meta-llama/Llama-3.1-8B-Instruct"}],
        "scenarios": f.scenarios,
        "batch_sizes": f.batch_sizes,
        "fill_seconds": 1, "stabilize_seconds": 1, "measure_seconds": 4, "drain_seconds": 5,
        "max_tokens": TOKENS, "seed": 7, "output_dir": format!("results/{}", f.name)
    }))
    .unwrap();
    let endpoints = config
        .endpoints
        .iter()
        .map(|e| EndpointInfo {
            name: e.name.clone(),
            engine: e.engine,
            url: e.url.clone().unwrap_or_default(),
            models: Some(serde_json::json!({"object": "list", "data": [
                {"id": "meta-llama/Llama-3.1-8B-Instruct", "object": "model"}
            ]})),
        })
        .collect();
    let ended = (f.status != RunStatus::Running).then(|| t0() + Duration::seconds(95));
    RunInfo {
        plateau_version: "0.1.0".into(),
        status: f.status,
        started_at: t0(),
        ended_at: ended,
        wall_duration_s: ended.map(|_| 95.0),
        host: Host {
            hostname: "fixture-host".into(),
            os: "linux".into(),
            arch: "x86_64".into(),
            cpus: 2,
        },
        endpoints,
        cells: f
            .planned
            .iter()
            .map(|(path, state)| CellEntry {
                path: path.clone(),
                state: *state,
            })
            .collect(),
        config,
    }
}

fn write_samples(path: &Path, samples: &[Sample]) {
    let mut gz = GzEncoder::new(File::create(path).unwrap(), Compression::best());
    for s in samples {
        serde_json::to_writer(&mut gz, s).unwrap();
        gz.write_all(b"\n").unwrap();
    }
    gz.finish().unwrap();
}

/// The file's text (compared as text: serde_json's float parsing may be 1 ulp off).
fn text(path: &Path) -> String {
    fs::read_to_string(path).unwrap()
}

/// What `results::write_json` writes for `value`.
fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(value).unwrap() + "\n"
}

#[test]
fn fixtures_match_their_rules() {
    let bless = std::env::var("PLATEAU_BLESS").is_ok_and(|v| v == "1");
    for f in all() {
        let root = path(f.name);
        let run = run_info(&f);
        if bless {
            let _ = fs::remove_dir_all(&root);
            results::write_json(&root.join(RUN_FILE), &run).unwrap();
        }
        assert_eq!(
            text(&root.join(RUN_FILE)),
            json(&run),
            "{}: run.json",
            f.name
        );
        for c in &f.cells {
            let dir = root.join(c.rel());
            let (samples, summary) = make_cell(c);
            if bless {
                results::write_json(&dir.join(SUMMARY_FILE), &summary).unwrap();
                write_samples(&dir.join(REQUESTS_FILE), &samples);
            }
            assert_eq!(
                text(&dir.join(SUMMARY_FILE)),
                json(&summary),
                "{}: summary.json differs from the rules",
                dir.display()
            );
            let read = results::read_samples(&dir.join(REQUESTS_FILE)).unwrap();
            assert_eq!(
                read,
                samples,
                "{}: requests differ from the rules",
                dir.display()
            );
        }
    }
}
