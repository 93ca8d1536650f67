//! Helpers: configs, plans, temp dirs, and normalised dataset fixtures written with
//! plateau's own generated prose.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use plateau_core::tokens::TokenCounter;
use plateau_core::workload::Prompt;
use plateau_scenarios::Tokenizer;
use plateau_scenarios::data::longbench::ContextRecord;
use plateau_scenarios::data::oasst2::{Author, NodeRecord, TreeRecord};
use plateau_scenarios::rng::stream_rng;
use plateau_scenarios::text::words::{prose, sentence};

use plateau_core::driver::RunReport;
use plateau_core::plan::{BaseUrl, Load, Plan};
use plateau_core::runner::{CellInput, CellOutput, Timer};
use plateau_core::transport::HttpTransport;
use plateau_core::workload::WorkloadFactory;
use plateau_http::Client;
use plateau_model::config::RunConfig;
use plateau_scenarios::Catalog;
use plateau_sim::{Server, SimConfig};
use plateau_testkit::cell as runner;
use plateau_testkit::driver;
pub use plateau_testkit::plan::{cell, config, plan, temp_dir};

use tempfile::TempDir;

pub fn tokenizer() -> Arc<Tokenizer> {
    Arc::new(Tokenizer::embedded_cl100k())
}

/// One cell of `scenario` at N = `n` in real time against a fresh simulator set by `sim`,
/// counting tokens with [`tokenizer`] and keeping each request's text if `store_text`.
pub async fn run_on_sim(
    catalog: &Catalog,
    plan: &Plan,
    scenario: &str,
    n: u32,
    sim: SimConfig,
    store_text: bool,
) -> CellOutput {
    let server = Server::start("127.0.0.1:0".parse().unwrap(), sim)
        .await
        .unwrap();
    let url = format!("http://{}/v1", server.addr());
    let workload = catalog.workload(plan, &cell(scenario, n)).unwrap();
    let transport = HttpTransport::new(
        Client::new(n as usize).unwrap(),
        &BaseUrl::parse(&url).unwrap(),
        Arc::new(plan.endpoints[0].clone()),
        "m".into(),
        plan.request,
    )
    .unwrap();
    let load = Load::Concurrency(n);
    let input = CellInput {
        timer: Timer::Precise,
        failures: runner::failures(plan.give_up_after),
        ..runner::input(transport, workload, load, plan.schedule(&load))
    };
    let out = runner::run_counted(input, tokenizer(), store_text).await;
    server.shutdown().await;
    out
}

/// Runs `cfg` through the driver as `plateau run` would, against the endpoint at `url`,
/// counting tokens with [`tokenizer`].
pub async fn drive(cfg: &RunConfig, url: &str) -> RunReport {
    let (catalog, plan) = (Catalog::load(cfg, tokenizer()).unwrap(), plan(cfg));
    driver::run(&plan, driver::context(&plan, url, &catalog, tokenizer())).await
}

/// A prompt's length: the sum over its messages of their tokens.
pub fn measured(t: &Tokenizer, p: &Prompt) -> usize {
    p.messages.iter().map(|m| t.count(&m.content)).sum()
}

/// `datasets/` with normalised LongBench and oasst2 files (own prose, upstream-like shapes),
/// in a temp directory removed when the guard is dropped.
pub fn datasets(name: &str) -> TempDir {
    let tmp = temp_dir(name);
    write_longbench(&tmp.path().join("longbench/contexts.jsonl"), 12);
    write_oasst2(&tmp.path().join("oasst2/trees.jsonl"), 200);
    tmp
}

fn write_longbench(path: &Path, records: u64) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut f = std::fs::File::create(path).unwrap();
    for i in 0..records {
        let mut rng = stream_rng(i, "longbench fixture");
        let r = ContextRecord {
            id: format!("lb-{i}"),
            domain: "Single-Document QA".into(),
            length: "short".into(),
            question: sentence(&mut rng),
            context: prose(&mut rng, 40_000),
        };
        writeln!(f, "{}", serde_json::to_string(&r).unwrap()).unwrap();
    }
}

fn write_oasst2(path: &Path, trees: u64) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut f = std::fs::File::create(path).unwrap();
    for i in 0..trees {
        let mut rng = stream_rng(i, "oasst2 fixture");
        let mut nodes = Vec::new();
        let turns = 2 + i % 4;
        for k in 0..turns * 2 {
            let role = if k % 2 == 0 {
                Author::User
            } else {
                Author::Assistant
            };
            let chars = if role == Author::User { 200 } else { 1_800 };
            let parent = (k > 0).then(|| k as u32 - 1);
            nodes.push(NodeRecord {
                parent,
                role,
                rank: Some(0),
                text: prose(&mut rng, chars).trim().to_owned(),
            });
        }
        let lang = if i % 5 == 4 { "de" } else { "en" };
        let t = TreeRecord {
            id: format!("tree-{i}"),
            lang: lang.into(),
            nodes,
        };
        writeln!(f, "{}", serde_json::to_string(&t).unwrap()).unwrap();
    }
}
