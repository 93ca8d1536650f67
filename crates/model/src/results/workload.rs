//! What a workload says about itself, as each cell's summary stores it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a workload says about itself; stored in each cell's summary.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WorkloadInfo {
    /// Scenario id (e.g. `A1`).
    pub id: String,
    /// Human name (e.g. `Same Short`).
    pub name: String,
    /// True when a dataset was missing and built-in text stood in for it.
    pub synthetic: bool,
    /// Where the prompts came from (dataset file, built-in text, user JSONL).
    pub source: String,
    /// Anything a reader of the results should know (warnings, options in effect).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}
