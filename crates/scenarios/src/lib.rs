//! plateau's scenarios: the workloads A1 A2 B1 B2 C D (and custom) behind
//! [`plateau_core::workload::Workload`], the client [`tokenizer::Tokenizer`], and dataset
//! readers.

pub mod tokenizer;
