//! `cargo xtask schema`: regenerates the checked-in JSON Schemas of the result files from
//! the types that write them (a core test fails when they are stale).

use std::path::Path;

use anyhow::Context;
use plateau_model::results::capacity::CapacityReport;
use plateau_model::results::repeats::RepeatsReport;
use plateau_model::results::run_info::RunInfo;
use plateau_model::results::summary::CellSummary;

pub fn run() -> anyhow::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("schemas");
    std::fs::create_dir_all(&root).with_context(|| root.display().to_string())?;
    for (name, schema) in [
        (
            "summary.schema.json",
            serde_json::to_value(schemars::schema_for!(CellSummary))?,
        ),
        (
            "run.schema.json",
            serde_json::to_value(schemars::schema_for!(RunInfo))?,
        ),
        (
            "capacity.schema.json",
            serde_json::to_value(schemars::schema_for!(CapacityReport))?,
        ),
        (
            "repeats.schema.json",
            serde_json::to_value(schemars::schema_for!(RepeatsReport))?,
        ),
    ] {
        let path = root.join(name);
        let mut text = serde_json::to_string_pretty(&schema)?;
        text.push('\n');
        std::fs::write(&path, text).with_context(|| path.display().to_string())?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}
