//! Test helpers shared by the unit tests and (through `#[path]`) the integration tests:
//! temp directories, configs, plans and cells. Only `plateau_core` and `serde_json` in here.

use std::path::PathBuf;

use plateau_core::config::RunConfig;
use plateau_core::plan::{Cell, Plan};

/// An empty directory unique to this process and `name`.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("plateau-scenarios-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A run configuration for `scenarios`, with `extra` keys merged in.
pub fn config(scenarios: &[&str], extra: serde_json::Value) -> RunConfig {
    let mut v = serde_json::json!({
        "endpoints": [{"name": "sim", "engine": "sim"}],
        "models": [{"id": "m", "name": "m"}],
        "batch_sizes": [4],
        "scenarios": scenarios,
        "scenarios_dir": "/nonexistent/scenarios",
        "datasets_dir": "/nonexistent/datasets",
        "max_tokens": 16,
    });
    if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
        o.extend(e.clone());
    }
    serde_json::from_value(v).unwrap()
}

/// The plan of `config`.
pub fn plan(config: &RunConfig) -> Plan {
    Plan::build(config, &|_| None).unwrap()
}

/// The cell of `scenario` at concurrency `n`.
pub fn cell(scenario: &str, n: u32) -> Cell {
    Cell {
        endpoint: 0,
        model: 0,
        scenario: scenario.into(),
        load: plateau_core::plan::Load::Concurrency(n),
        repeat: 1,
    }
}
