//! plateau's reporting: turns result files (`summary.json`, `requests.jsonl.gz`) into tables
//! and figures. It computes no metric: every number comes from the core's summaries.
//!
//! [`table`] formats the per-cell text table `plateau run` prints and the dry-run plan.

pub mod table;
