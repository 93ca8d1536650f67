//! What a findings registry entry holds: the check's name, severities, scope, meaning and
//! action.

use super::super::Severity;

/// One check: its name as [`crate::validate::Finding::check`] carries it, and its documentation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Entry {
    /// The check's name (`unsteady`, `error_rate`, ...).
    pub check: &'static str,
    /// The severities it is reported with: one, or both where the case decides (the
    /// meaning says when each).
    pub severity: &'static [Severity],
    /// Where it is reported: about one cell, or about a whole results directory.
    pub scope: Scope,
    /// What the finding says about the results.
    pub meaning: &'static str,
    /// What to do about it.
    pub action: &'static str,
}

/// What a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// One cell (`endpoint/model/scenario/cN`): `plateau run`, `plateau validate`, the report.
    Cell,
    /// A whole results directory (`run`, or a cell path from `run.json`): `plateau validate`
    /// and the report.
    Dir,
}

pub(super) const FAIL: &[Severity] = &[Severity::Fail];
pub(super) const WARN: &[Severity] = &[Severity::Warn];
pub(super) const EITHER: &[Severity] = &[Severity::Warn, Severity::Fail];
