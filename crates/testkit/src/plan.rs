//! Configs, plans and cells for tests of what a plan drives (workloads, catalogs), and
//! named temp directories.

use tempfile::TempDir;

use plateau_core::plan::{Cell, Plan};
use plateau_model::config::RunConfig;

/// A new empty directory named after `name` (`plateau-scenarios-<name>-XXXXXX`), removed
/// with everything in it when the guard is dropped: keep it bound until the test ends.
pub fn temp_dir(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("plateau-scenarios-{name}-"))
        .tempdir()
        .unwrap()
}

/// A run configuration for `scenarios`, with `extra` keys merged in.
pub fn config(scenarios: &[&str], extra: serde_json::Value) -> RunConfig {
    let mut v = serde_json::json!({
        "endpoints": [{"name": "sim", "engine": "sim"}],
        "models": [{"id": "m", "name": "m"}],
        "batch_sizes": [4],
        "scenarios": scenarios,
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
        measure: None,
    }
}
