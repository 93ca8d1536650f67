//! plateau's memory of past runs and the verdicts drawn from it: a SQLite history of runs
//! and their cells ([`store`], [`record`]), selections of it ([`filter`]), the regression
//! gate that judges a run against its baseline with `compare`'s statistics ([`gate`],
//! [`table`]), and the trends across runs with change points ([`trend`]).

pub mod error;
pub mod filter;
pub mod gate;
pub mod record;
pub mod report;
pub mod store;
pub mod table;
pub mod trend;

pub use error::HistoryError;
pub use filter::{Against, Filter};
pub use store::Store;
