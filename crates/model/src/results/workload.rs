//! What a workload says about itself, as each cell's summary stores it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::OutputTokens;
use crate::metrics::RequestedTokens;

/// What a workload says about itself; stored in each cell's summary.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    /// How each request's `max_tokens` was chosen, and (in a summary) what the measured
    /// requests asked for; absent in results written before plateau recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<OutputTokensInfo>,
}

/// The output-length setting of a cell and the lengths its measured requests asked for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OutputTokensInfo {
    /// The setting in effect: a number, or the distribution lengths were drawn from.
    pub spec: OutputTokens,
    /// What the measured requests asked for (filled in when the cell ends; absent in a
    /// fingerprint, which is taken before the cell runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested: Option<RequestedTokens>,
}
