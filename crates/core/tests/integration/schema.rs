//! `summary.json` has a checked-in JSON Schema: it matches the types, and real output
//! validates against it.

use plateau_model::results::summary::CellSummary;
use plateau_model::results::{self, SUMMARY_FILE};
use plateau_sim::SimConfig;

use crate::common;

const CHECKED_IN: &str = include_str!("../../../../schemas/summary.schema.json");
const CAPACITY: &str = include_str!("../../../../schemas/capacity.schema.json");
const REPEATS: &str = include_str!("../../../../schemas/repeats.schema.json");

/// The schema the types describe now.
fn generated() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(CellSummary)).unwrap()
}

#[test]
fn checked_in_schema_matches_the_types() {
    let checked_in: serde_json::Value = serde_json::from_str(CHECKED_IN).unwrap();
    assert!(
        checked_in == generated(),
        "schemas/summary.schema.json is stale; regenerate it with `cargo xtask schema`"
    );
}

/// `schemas/<name>` equals the schema the types describe now.
fn assert_fresh(name: &str, checked_in: &str, generated: schemars::Schema) {
    let checked_in: serde_json::Value = serde_json::from_str(checked_in).unwrap();
    assert!(
        checked_in == serde_json::to_value(generated).unwrap(),
        "schemas/{name} is stale; regenerate it with `cargo xtask schema`"
    );
}

#[test]
fn checked_in_capacity_and_repeats_schemas_match_the_types() {
    use plateau_model::results::{capacity::CapacityReport, repeats::RepeatsReport};
    assert_fresh(
        "capacity.schema.json",
        CAPACITY,
        schemars::schema_for!(CapacityReport),
    );
    assert_fresh(
        "repeats.schema.json",
        REPEATS,
        schemars::schema_for!(RepeatsReport),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_summary_validates_against_the_schema() {
    let (_tmp, out) = common::out_dir("schema");
    let config = serde_json::json!({
        "endpoints": [{"name": "s", "engine": "sim", "url": "http://placeholder/v1"}],
        "models": [{"id": "m", "name": "plateau-sim"}],
        "scenarios": ["A1"],
        "batch_sizes": [2],
        "fill_seconds": 0.2, "stabilize_seconds": 0.3, "measure_seconds": 1.5, "drain_seconds": 2,
        "max_tokens": 8,
        "slo": {"ttft_ms": 500}
    });
    common::run(SimConfig::default(), config, &out).await;
    let path = out.join("s/m/A1/c2").join(SUMMARY_FILE);
    let instance: serde_json::Value = results::read_json(&path).unwrap();
    let schema: serde_json::Value = serde_json::from_str(CHECKED_IN).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // And the schema is not vacuous: a summary missing its metrics fails it.
    let mut broken = instance.clone();
    broken.as_object_mut().unwrap().remove("ttft_ms");
    broken["cell"]["concurrency"] = serde_json::json!("two");
    assert!(!validator.is_valid(&broken));
}
