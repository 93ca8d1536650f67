//! What [`Plan::build`](super::Plan::build) reports: every problem of a configuration, each
//! naming its field.

use std::fmt;

/// Everything wrong with a configuration, one line per problem.
#[derive(Debug, thiserror::Error)]
#[error("{}", problems.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("\n"))]
pub struct PlanError {
    /// The problems found, in config order.
    pub problems: Vec<Problem>,
}

/// One problem: the config field (`endpoints[0].url`) and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Path of the offending key.
    pub field: String,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}
