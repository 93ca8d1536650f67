//! plateau's reporting: turns result files (`run.json`, `summary.json`,
//! `requests.jsonl.gz`) into figures, report.html, summary.md and summary.csv. It computes
//! no metric: every number is read from the core's summaries or computed by the core's
//! metric functions (the timeline).
//!
//! [`render`] is the whole pipeline, shared by `plateau report` and `cargo xtask figures`:
//! the results directory is read once ([`plateau_model::results::dir::ResultsDir`]) and
//! checked ([`plateau_model::validate::check_dir`]); [`matrix::Matrix`] places each cell by
//! series (endpoint x model), scenario and load (concurrency N for the closed loop, request
//! rate for the open loop); [`quantity`] names where each shown value lives in a summary;
//! [`figures`] draws every figure as PNG and SVG with the embedded [`font`] and one shared
//! [`style`] (timelines and the latency distributions read each cell's records once);
//! [`headline`] picks each scenario's headline numbers;
//! [`html`], [`markdown`] and core's CSV writer lay out the tables ([`tables`])
//! and, when the run searched for capacity, the answer from `capacity.json` ([`capacity`]);
//! with several results directories, each one's `capacity.json` and `repeats.json` are
//! shown labelled by its run ([`per_run`]).
//! [`table`] formats the text tables `plateau run` prints. [`compare`] tests a baseline
//! run against candidates (`plateau compare`). [`export`] rewrites the results for other
//! tools (`plateau export`): vLLM `--save-result` files and a long-form CSV.

pub mod capacity;
pub mod compare;
pub mod error;
pub mod export;
pub mod figures;
pub mod font;
pub mod headline;
pub mod html;
pub mod markdown;
pub mod matrix;
pub mod per_run;
pub mod pipeline;
pub use plateau_model::quantity;
pub mod repeats;
pub mod style;
pub mod table;
pub mod tables;

pub use error::ReportError;
pub use pipeline::{HTML_FILE, MARKDOWN_FILE, Options, Output, render};
