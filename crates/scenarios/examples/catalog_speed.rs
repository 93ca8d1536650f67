//! Prints how long the catalog takes to load (a LongBench-sized corpus of generated prose:
//! 503 contexts of 40,000 bytes) and what one `next` + `reply` costs per scenario.
//! `cargo run --release -p plateau-scenarios --example catalog_speed`

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use plateau_core::plan::{Cell, Plan};
use plateau_core::workload::WorkloadFactory;
use plateau_scenarios::data::longbench::ContextRecord;
use plateau_scenarios::rng::stream_rng;
use plateau_scenarios::text::words::{prose, sentence};
use plateau_scenarios::{Catalog, Tokenizer};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join("plateau-catalog-speed");
    let path = dir.join("longbench/contexts.jsonl");
    if !path.exists() {
        std::fs::create_dir_all(dir.join("longbench"))?;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path)?);
        for i in 0..503u64 {
            let mut rng = stream_rng(i, "speed");
            let context = prose(&mut rng, 40_000);
            let r = ContextRecord {
                id: i.to_string(),
                domain: "d".into(),
                length: "short".into(),
                question: sentence(&mut rng),
                context,
            };
            writeln!(f, "{}", serde_json::to_string(&r)?)?;
        }
    }
    let ids = ["A1", "A2", "B1", "B2", "C", "D"];
    let config = serde_json::from_value(serde_json::json!({
        "endpoints": [{"name": "sim", "engine": "sim"}], "models": [{"id": "m", "name": "m"}],
        "batch_sizes": [64], "scenarios": ids, "datasets_dir": dir, "scenarios_dir": "scenarios",
    }))?;
    let t0 = Instant::now();
    let catalog = Catalog::load(&config, Arc::new(Tokenizer::embedded_cl100k()))?;
    println!("Catalog::load: {:.2} s", t0.elapsed().as_secs_f64());
    let plan = Plan::build(&config, &|_| None)?;
    for id in ids {
        let cell = Cell {
            endpoint: 0,
            model: 0,
            scenario: id.into(),
            load: plateau_core::plan::Load::Concurrency(64),
            repeat: 1,
            measure: None,
        };
        let t0 = Instant::now();
        let w = catalog.workload(&plan, &cell)?;
        let build = t0.elapsed();
        let mut s = w.session(3);
        let t0 = Instant::now();
        for _ in 0..1_000 {
            std::hint::black_box(s.next());
            s.reply(Some(
                "A reply of a dozen words or so, as a server might send it.",
            ));
        }
        println!(
            "{id:<3} workload built in {build:>10.1?}; next + reply {:>9.1?}",
            t0.elapsed() / 1_000
        );
    }
    Ok(())
}
