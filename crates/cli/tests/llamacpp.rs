//! `plateau run` against a real llama.cpp server: `tools/llamacpp/serve.py` (the `xllamacpp`
//! wheel's llama-server with a tiny random-weight llama and a matching `tokenizer.json`) on
//! 127.0.0.1, all six scenarios at N = 4 (D as 4 sessions: the prefix cache's share rises
//! after the first turn), then B1 in an open loop at 50 req/s (well under
//! the server's ~300 req/s at N = 4), then a trace of sessions whose fifth turn is compared
//! with fresh first turns of equal context (`llamacpp/turns.rs`). Needs `PLATEAU_LLAMACPP_PYTHON`, a Python with
//! `tools/llamacpp/requirements.txt` (`.ci/run` makes one); without it the test says why and
//! passes, unless `PLATEAU_REQUIRE_LLAMACPP=1`.

#![allow(clippy::unwrap_used, missing_docs)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "llamacpp/sessions.rs"]
mod sessions;
#[path = "llamacpp/timings.rs"]
mod timings;
#[path = "llamacpp/turns.rs"]
mod turns;

const SCENARIOS: [&str; 6] = ["A1", "A2", "B1", "B2", "C", "D"];
const N: u32 = 4;
/// Generating the model and loading llama.cpp takes seconds; this bounds a hang.
const READY_WITHIN: Duration = Duration::from_secs(120);

/// The server child process: killed on drop. Its stdin is a pipe held here, so if the test
/// process dies without dropping it, `serve.py --exit-on-stdin-eof` still stops.
struct Server {
    child: Child,
    _stdin: ChildStdin,
    url: String,
    log: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn log(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The Python to run `serve.py` with, or `None` (after saying why) when the test may skip.
fn python() -> Option<PathBuf> {
    let required = std::env::var("PLATEAU_REQUIRE_LLAMACPP").is_ok_and(|v| v == "1");
    match std::env::var_os("PLATEAU_LLAMACPP_PYTHON") {
        Some(p) if Path::new(&p).is_file() => Some(PathBuf::from(p)),
        found => {
            let why = match found {
                Some(p) => format!("PLATEAU_LLAMACPP_PYTHON={} is not a file", p.display()),
                None => "PLATEAU_LLAMACPP_PYTHON is not set".into(),
            };
            assert!(
                !required,
                "PLATEAU_REQUIRE_LLAMACPP=1 but {why}; make a venv from tools/llamacpp/requirements.txt"
            );
            eprintln!("skipping the llama.cpp test: {why} (see tools/llamacpp/README.md)");
            None
        }
    }
}

/// Starts `serve.py` on a free port and waits (bounded) for its ready line.
fn start(python: &Path, models: &Path, dir: &Path) -> Server {
    let log = dir.join("server.log");
    let out = fs::File::create(&log).unwrap();
    let mut child = Command::new(python)
        .arg(root().join("tools/llamacpp/serve.py"))
        .args(["--dir", models.to_str().unwrap(), "--port", "0"])
        .args(["--parallel", &N.to_string(), "--exit-on-stdin-eof"])
        .stdin(Stdio::piped())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let mut server = Server {
        child,
        _stdin: stdin,
        url: String::new(),
        log,
    };
    let t0 = Instant::now();
    loop {
        let text = server.log();
        if let Some(url) = text
            .lines()
            .find_map(|l| l.strip_prefix("plateau-llamacpp ready "))
            .and_then(|rest| rest.split_whitespace().next())
        {
            server.url = url.to_owned();
            eprintln!(
                "llama.cpp ready at {url} after {:.1} s",
                t0.elapsed().as_secs_f64()
            );
            return server;
        }
        if let Some(status) = server.child.try_wait().unwrap() {
            panic!("serve.py exited ({status}) before it was ready:\n{text}");
        }
        assert!(
            t0.elapsed() < READY_WITHIN,
            "serve.py not ready within {READY_WITHIN:?}:\n{text}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A config for the server at `url` writing to `dir/results`, with `load`'s keys added.
fn config(dir: &Path, url: &str, tokenizer: &Path, name: &str, load: Value) -> PathBuf {
    let datasets = dir.join("no-datasets");
    fs::create_dir_all(&datasets).unwrap();
    let mut config = json!({
        "endpoints": [{"name": "llamacpp", "url": format!("{url}/v1"), "engine": "llamacpp"}],
        "models": [{"id": "tiny", "name": "tiny-llama"}],
        "fill_seconds": 2, "stabilize_seconds": 3, "measure_seconds": 6, "drain_seconds": 20,
        "max_tokens": 16,
        "request_timeout_seconds": 30,
        "tokenizer": tokenizer,
        "datasets_dir": datasets,
        "output_dir": dir.join("results"),
    });
    for (key, value) in load.as_object().unwrap() {
        config[key] = value.clone();
    }
    let path = dir.join(name);
    fs::write(&path, serde_json::to_vec_pretty(&config).unwrap()).unwrap();
    path
}

/// `plateau run --config config`: exit status, stdout, stderr. Exit 1 (a cell failed
/// validation) is allowed: 6-second windows on a loaded 2-core machine may be judged
/// unsteady. The requirements are checked one by one by the caller.
fn run(config: &Path, server: &Server) -> (String, String) {
    let t0 = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_plateau"))
        .current_dir(root())
        .args(["run", "--config", config.to_str().unwrap()])
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    eprintln!("plateau run took {:.1} s", t0.elapsed().as_secs_f64());
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "plateau run: {}\n{stdout}\n{}\nserver log (end):\n{}",
        out.status,
        tail(&stderr, 60),
        tail(&server.log(), 60)
    );
    (stdout, stderr)
}

fn summary(dir: &Path, scenario: &str, cell: &str) -> Value {
    let path = dir.join(format!(
        "results/llamacpp/tiny/{scenario}/{cell}/summary.json"
    ));
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn f64_at(v: &Value, pointer: &str) -> Option<f64> {
    v.pointer(pointer).and_then(Value::as_f64)
}

fn show(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), |x| format!("{x:.1}"))
}

/// The last `n` lines of `text`.
fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[test]
fn six_scenarios_at_n4_against_llama_cpp() {
    let Some(python) = python() else { return };
    // Removed when the test ends, unless a requirement failed (then kept for a look).
    let mut tmp = tempfile::Builder::new()
        .prefix("plateau-llamacpp-")
        .tempdir()
        .unwrap();
    let dir = tmp.path().to_path_buf();
    // The model and tokenizer are cached beside the build, written once.
    let models = Path::new(env!("CARGO_TARGET_TMPDIR")).join("llamacpp-model");
    let server = start(&python, &models, &dir);
    let tokenizer = models.join("tokenizer.json");
    let closed = json!({"scenarios": SCENARIOS, "batch_sizes": [N]});
    let config_path = config(&dir, &server.url, &tokenizer, "closed.json", closed);
    let (_, stderr) = run(&config_path, &server);

    // Every check is collected, so one run names every requirement that does not hold.
    let mut failed = Vec::new();
    let mut ttft_p50 = std::collections::BTreeMap::new();
    eprintln!("cell  total  measured  ttft_p50_ms  prompt_tokens_server  target  errors_by_kind");
    for scenario in SCENARIOS {
        let s = summary(&dir, scenario, &format!("c{N}"));
        let requests = &s["requests"];
        let errors = &requests["errors_by_kind"];
        let (target, server_in) = (
            f64_at(&s, "/tokens/input/mean_target"),
            f64_at(&s, "/tokens/input/mean_server"),
        );
        let ttft = f64_at(&s, "/ttft_ms/p50");
        eprintln!(
            "{scenario:<4}  {:>5}  {:>8}  {:>11}  {:>20}  {:>6}  {errors}",
            requests["total"],
            requests["measured"],
            show(ttft),
            show(server_in),
            show(target),
        );
        if s["status"] != "complete" {
            failed.push(format!("{scenario}: status {}", s["status"]));
        }
        if requests["measured"].as_u64().unwrap_or(0) == 0 {
            failed.push(format!("{scenario}: no measured requests"));
        }
        if requests["measured_errors"] != 0 || errors.as_object().is_none_or(|m| !m.is_empty()) {
            failed.push(format!(
                "{scenario}: failed requests: measured {}, all phases by kind {errors}",
                requests["measured_errors"]
            ));
        }
        for side in ["n_in_sources", "n_out_sources"] {
            let sources = s["tokens"][side].as_object().cloned().unwrap_or_default();
            if sources.keys().any(|k| k != "usage") || sources.is_empty() {
                failed.push(format!(
                    "{scenario}: {side} {sources:?}, expected only `usage`"
                ));
            }
        }
        if f64_at(&s, "/output_tokens/p50") != Some(16.0) {
            failed.push(format!(
                "{scenario}: output tokens p50 {:?}, expected max_tokens 16 (ignore_eos)",
                f64_at(&s, "/output_tokens/p50")
            ));
        }
        if matches!(scenario, "A2" | "B2") {
            match (server_in, target) {
                (Some(got), Some(want)) if (got - want).abs() <= 0.1 * want => {}
                _ => failed.push(format!(
                    "{scenario}: server prompt tokens {server_in:?} not within 10% of the target {target:?}"
                )),
            }
        }
        server_metrics(scenario, &s, &mut failed);
        timings::check(&dir, scenario, &s, &mut failed);
        sessions::check(scenario, &s, &mut failed);
        token_check(scenario, &s, &mut failed);
        ttft_p50.insert(scenario, ttft);
    }
    // What validate says of the wire: llama.cpp's usage describes what it sent, and its
    // stream is not buffered.
    let validate = Command::new(env!("CARGO_BIN_EXE_plateau"))
        .args([
            "validate",
            "--results-dir",
            dir.join("results").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let findings = String::from_utf8_lossy(&validate.stdout).into_owned()
        + &String::from_utf8_lossy(&validate.stderr);
    eprintln!("plateau validate:\n{findings}");
    for check in ["usage_mismatch", "buffered_stream", "ignore_eos"] {
        if findings.contains(check) {
            failed.push(format!("validate reports {check}"));
        }
    }
    match (ttft_p50["A2"], ttft_p50["B2"]) {
        (Some(a2), Some(b2)) if a2 < 0.5 * b2 => {}
        (a2, b2) => failed.push(format!(
            "TTFT p50: A2 {a2:?} ms is not far below B2 {b2:?} ms (prompt cache)"
        )),
    }
    props_in_run_json(&dir, &mut failed);
    open_loop_at_50_per_second(&dir, &server, &tokenizer, &mut failed);
    turns::check(&dir, &server, &tokenizer, &mut failed);
    tmp.disable_cleanup(!failed.is_empty());
    assert!(
        failed.is_empty(),
        "{} requirement(s) failed (results kept in {}):\n  {}\nplateau stderr (end):\n{}",
        failed.len(),
        dir.display(),
        failed.join("\n  "),
        tail(&stderr, 30)
    );
}

/// The `/tokenize` check against llama.cpp's own tokenizer: plateau counts with the same
/// `tokenizer.json`, so the texts count the same; and the chat as llama.cpp templates it
/// (`/apply-template`, then `/tokenize` with its BOS) is exactly the `usage.prompt_tokens`
/// of a request that sends it: A1 and A2 send one prompt to every slot.
fn token_check(scenario: &str, s: &Value, failed: &mut Vec<String>) {
    let check = &s["token_check"];
    eprintln!("{scenario}: token check {check}");
    if check["error"] != Value::Null || check["rel_diff"] != 0.0 {
        failed.push(format!(
            "{scenario}: the server counts the texts otherwise: {check}"
        ));
    }
    let usage = f64_at(s, "/tokens/input/mean_server");
    let templated = f64_at(check, "/templated_tokens_mean");
    if matches!(scenario, "A1" | "A2") && (templated.is_none() || templated != usage) {
        failed.push(format!(
            "{scenario}: templated count {templated:?} is not the usage prompt tokens {usage:?}"
        ));
    }
}

/// llama.cpp's `/metrics` (`llamacpp:` names, `endpoint_metrics` in serve.py) scraped and
/// mapped: in Measure the server had requests processing, and its generated-token counter
/// gives a rate within 20% of the output tokens plateau received (the counter moves when a
/// request ends, and the two windows differ by up to a scrape interval at each end).
fn server_metrics(scenario: &str, s: &Value, failed: &mut Vec<String>) {
    let server = &s["server"];
    let m = &server["measure"];
    let running = f64_at(m, "/running/mean");
    let (by_server, by_plateau) = (
        f64_at(m, "/generation_tokens_per_s"),
        f64_at(s, "/throughput/server_direct_tps"),
    );
    eprintln!(
        "{scenario}: server metrics ({}): {} Measure scrapes, running mean {}, waiting max {}, generation {} tok/s by the server vs {} tok/s by plateau",
        server["engine"],
        m["scrapes"],
        show(running),
        show(f64_at(m, "/waiting/max")),
        show(by_server),
        show(by_plateau)
    );
    if server["engine"] != "llamacpp" {
        failed.push(format!(
            "{scenario}: server metrics not scraped with the llamacpp table: {server}"
        ));
        return;
    }
    if running.is_none_or(|r| r < 1.0) {
        failed.push(format!(
            "{scenario}: llamacpp:requests_processing mean {running:?} in Measure, expected >= 1"
        ));
    }
    match (by_server, by_plateau) {
        (Some(a), Some(b)) if b > 0.0 && (a / b - 1.0).abs() <= 0.2 => {}
        (a, b) => failed.push(format!(
            "{scenario}: the server's generation rate {a:?} tok/s is not within 20% of plateau's {b:?}"
        )),
    }
}

/// B1 at 50 req/s Poisson: every arrival sent on schedule, none failed, the achieved rate
/// the offered one, and latencies from the intended send no shorter than from the send.
fn open_loop_at_50_per_second(
    dir: &Path,
    server: &Server,
    tokenizer: &Path,
    failed: &mut Vec<String>,
) {
    let open = json!({"scenarios": ["B1"], "request_rates": [50]});
    let config_path = config(dir, &server.url, tokenizer, "open.json", open);
    run(&config_path, server);
    let s = summary(dir, "B1", "r50");
    let requests = &s["requests"];
    let load = &s["load"];
    let at = |p: &str| f64_at(&s, p);
    eprintln!(
        "B1 r50: status {}, measured {}, achieved {:?} req/s, lag p50 {:?} ms, TTFT p50 {:?} ms \
         (from send {:?}), overloaded {}",
        s["status"],
        requests["measured"],
        at("/load/achieved_rps"),
        at("/load/schedule_lag_ms/p50"),
        at("/ttft_ms/p50"),
        at("/load/from_send/ttft_ms/p50"),
        s["steady"]["overloaded"],
    );
    if s["status"] != "complete" || load["mode"] != "open" {
        failed.push(format!(
            "B1 r50: status {}, load mode {}",
            s["status"], load["mode"]
        ));
    }
    if requests["measured_errors"] != 0
        || requests["errors_by_kind"]
            .as_object()
            .is_none_or(|m| !m.is_empty())
    {
        failed.push(format!(
            "B1 r50: failed requests {}",
            requests["errors_by_kind"]
        ));
    }
    // 300 Poisson arrivals in 6 s: the count is within 20% of the rate 99.9% of the time.
    match at("/load/achieved_rps") {
        Some(rps) if (rps / 50.0 - 1.0).abs() < 0.2 => {}
        rps => failed.push(format!("B1 r50: achieved {rps:?} req/s, offered 50")),
    }
    if s["steady"]["overloaded"] == true {
        failed.push(format!(
            "B1 r50: overloaded at a sixth of the closed loop's rate: {}",
            s["steady"]["reasons"]
        ));
    }
    match at("/load/schedule_lag_ms/p50") {
        Some(lag) if lag < 5.0 => {}
        lag => failed.push(format!("B1 r50: schedule lag p50 {lag:?} ms")),
    }
    match (at("/ttft_ms/p50"), at("/load/from_send/ttft_ms/p50")) {
        (Some(intended), Some(sent)) if intended >= sent => {}
        (i, s) => failed.push(format!(
            "B1 r50: TTFT p50 from the intended send {i:?} below that from the send {s:?}"
        )),
    }
}

/// run.json keeps what llama.cpp says of itself at `/props`: its slots (serve.py's
/// `--parallel`, 4) among them.
fn props_in_run_json(dir: &Path, failed: &mut Vec<String>) {
    let text = fs::read_to_string(dir.join("results/run.json")).unwrap();
    let run: Value = serde_json::from_str(&text).unwrap();
    let responses = &run["endpoints"][0]["server"]["responses"];
    let props = responses
        .as_array()
        .and_then(|r| r.iter().find(|r| r["path"] == "/props"));
    match props {
        Some(p) if p["status"] == 200 && p["body"]["total_slots"] == 4 => {
            eprintln!(
                "run.json /props: total_slots 4, {} keys",
                p["body"].as_object().map_or(0, |o| o.len())
            );
        }
        _ => failed.push(format!(
            "run.json has no /props with total_slots 4: {responses}"
        )),
    }
}

/// The first look a new user types, with no tokenizer anywhere: `--url --model --engine
/// llamacpp`. The prompts are cut in llama.cpp's own tokens at preparation (its tokenizer is
/// nothing like cl100k_base), so `usage.prompt_tokens` meets each target within 5%; and a
/// model name the server does not list stops the run before it starts.
#[test]
fn a_first_look_needs_no_local_tokenizer_and_no_guessed_model() {
    let Some(python) = python() else { return };
    let mut tmp = tempfile::Builder::new()
        .prefix("plateau-llamacpp-first-look-")
        .tempdir()
        .unwrap();
    let dir = tmp.path().to_path_buf();
    let models = Path::new(env!("CARGO_TARGET_TMPDIR")).join("llamacpp-model");
    let server = start(&python, &models, &dir);
    let url = format!("{}/v1", server.url);
    let no_datasets = dir.join("no-datasets");
    fs::create_dir_all(&no_datasets).unwrap();
    let first_look = |model: &str, out: &str| {
        let t0 = Instant::now();
        let o = Command::new(env!("CARGO_BIN_EXE_plateau"))
            .current_dir(root())
            .args([
                "run", "--url", &url, "--model", model, "--engine", "llamacpp",
            ])
            .args(["--scenarios", "A1,A2,B1,C", "--concurrency", &N.to_string()])
            .args(["--set", "fill_seconds=1", "--set", "stabilize_seconds=1"])
            .args(["--set", "measure_seconds=4", "--set", "max_tokens=8"])
            .args(["--set", &format!("datasets_dir={}", no_datasets.display())])
            .args(["--output-dir", dir.join(out).to_str().unwrap()])
            .env_remove("RUST_LOG")
            .output()
            .unwrap();
        eprintln!("plateau run --url took {:.1} s", t0.elapsed().as_secs_f64());
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let mut failed = Vec::new();

    let (code, _, err) = first_look("llama-3", "wrong");
    if code != Some(3) || !err.contains("lists `tiny-llama`, not `llama-3`") {
        failed.push(format!(
            "a model llama.cpp does not list: exit {code:?}\n{err}"
        ));
    }
    if dir.join("wrong/server").exists() {
        failed.push("a cell ran for the unlisted model".into());
    }

    let (code, out, err) = first_look("tiny-llama", "first-look");
    eprintln!("{out}\n{err}");
    if !matches!(code, Some(0 | 1)) {
        failed.push(format!("the first look: exit {code:?}"));
    }
    match err
        .lines()
        .find(|l| l.contains("prompt lengths in server's own tokens"))
    {
        Some(line) if line.contains("/tokenize requests in") => eprintln!("{line}"),
        _ => failed.push("no preparation line naming its /tokenize requests".into()),
    }
    lengths_met(&dir.join("first-look"), &mut failed);
    tmp.disable_cleanup(!failed.is_empty());
    assert!(
        failed.is_empty(),
        "{} requirement(s) failed (kept in {}):\n  {}",
        failed.len(),
        dir.display(),
        failed.join("\n  ")
    );
}

/// Pushes onto `failed` every scenario of the first look in `results` whose mean
/// `usage.prompt_tokens` misses its target, or whose tokenizer is not `server`.
fn lengths_met(results: &Path, failed: &mut Vec<String>) {
    for scenario in ["A1", "A2", "B1", "C"] {
        let path = results.join(format!("server/tiny-llama/{scenario}/c{N}/summary.json"));
        let Ok(text) = fs::read_to_string(&path) else {
            failed.push(format!("{}: missing", path.display()));
            continue;
        };
        let s: Value = serde_json::from_str(&text).unwrap();
        let (target, usage) = (
            f64_at(&s, "/tokens/input/mean_target"),
            f64_at(&s, "/tokens/input/mean_server"),
        );
        eprintln!(
            "{scenario}: usage.prompt_tokens mean {} for a target of {} (tokenizer {})",
            show(usage),
            show(target),
            s["tokenizer"]
        );
        // A1's one short prompt too: a recut keeps the window's start (`Corpus::pick`), so its
        // server count moves with the length asked for (45/50 before, 51/50 after).
        let tolerance = 0.05;
        match (usage, target) {
            (Some(got), Some(want)) if (got / want - 1.0).abs() <= tolerance => {}
            _ => failed.push(format!(
                "{scenario}: usage.prompt_tokens {usage:?} not within {:.0}% of the target {target:?}",
                tolerance * 100.0
            )),
        }
        if s["tokenizer"] != "server" {
            failed.push(format!("{scenario}: tokenizer {}", s["tokenizer"]));
        }
    }
}
