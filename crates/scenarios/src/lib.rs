//! plateau's scenarios: the workloads A1 A2 B1 B2 C D S (and custom) behind
//! [`plateau_core::workload::Workload`], the client [`tokenizer::Tokenizer`], the dataset
//! readers, and the code that fetches the datasets.
//!
//! How the parts connect:
//!
//! - [`definition`]: a scenario is data, one JSON file per scenario; the seven of
//!   `scenarios/` are embedded, and a folder of files ([`Folders`]) overrides and adds to
//!   them. [`definition::Scenario`] is a definition resolved with the
//!   run's `scenario_options` ([`definition::Settings`]).
//! - [`catalog::Catalog`] reads the definitions, validates the options, loads and tokenizes
//!   every dataset the configured scenarios need once ([`data`], [`text::Corpus`]), and, as
//!   the core's [`plateau_core::workload::WorkloadFactory`], builds each cell's workload.
//! - [`workload`]: one module per scenario kind; a workload hands each slot a session whose
//!   `next` only slices and copies what the catalog prepared (no tokenizing between
//!   requests). [`workload::with_lengths`] gives every request its own `max_tokens` from
//!   [`lengths`] (a number, or a distribution drawn per request index). Every random choice comes from [`rng`], seeded by the plan's seed, the
//!   scenario id and the load (N or rate).
//! - [`text`]: the built-in prose generator (word lists) and the one window-cutting function
//!   that gives prompts of a target length in tokens of the configured tokenizer.
//! - [`fetch`]: `plateau fetch-datasets` — get LongBench-v2, oasst2 and ShareGPT from the
//!   Hugging Face hub ([`plateau_hub`]: the standard hub cache, resumable, verified, offline
//!   from the cache, the token sent to the hub's host only) and normalise them into the
//!   compact files under `datasets/` that [`data`] reads; [`plateau_hub`] also serves the
//!   [`tokenizer`] of a hub model.

pub mod catalog;
pub mod data;
pub mod definition;
pub mod error;
pub mod fetch;
pub mod lengths;
pub mod rng;
pub mod text;
pub mod tokenizer;
pub mod trace;
pub mod workload;

pub use catalog::{Catalog, Conversion, Folders};
pub use error::ScenarioError;
pub use tokenizer::Tokenizer;
