//! Exit codes (SPEC.md section 2) and how a failure is printed: the error chain with
//! `{:#}`, once, on stderr.

use std::process::ExitCode;

use crate::redact::Redactions;

/// A command that did not succeed, with the exit code it earns.
#[derive(Debug)]
pub struct Failure {
    code: u8,
    error: anyhow::Error,
}

/// Some cells failed validation.
pub const VALIDATION: u8 = 1;
/// Bad config, flags or files.
pub const BAD_INPUT: u8 = 2;
/// A target did not answer at preflight.
pub const UNREACHABLE: u8 = 3;
/// Ctrl-C, SIGTERM or SIGHUP (128 + SIGINT, for all three: SPEC.md section 2).
pub const INTERRUPTED: u8 = 130;

impl Failure {
    /// Bad config, flags or files: exit 2.
    pub fn bad_input(error: anyhow::Error) -> Self {
        Failure {
            code: BAD_INPUT,
            error,
        }
    }

    /// Unreachable target: exit 3.
    pub fn unreachable(error: anyhow::Error) -> Self {
        Failure {
            code: UNREACHABLE,
            error,
        }
    }

    /// A stopping signal ended the run: exit 130.
    pub fn interrupted() -> Self {
        Failure {
            code: INTERRUPTED,
            error: anyhow::anyhow!("interrupted; rerun with --resume to finish"),
        }
    }

    /// Anything else that stops a command: exit 1.
    pub fn other(error: anyhow::Error) -> Self {
        Failure {
            code: VALIDATION,
            error,
        }
    }
}

/// Prints `failure`, scrubbed of `redactions`, and returns its exit code.
pub fn report(failure: Failure, redactions: &Redactions) -> ExitCode {
    let text = format!("{:#}", failure.error);
    eprintln!("error: {}", redactions.scrub(&text));
    ExitCode::from(failure.code)
}

/// Converts any error into a bad-input failure (for `?` on config and flag errors).
pub trait BadInput<T> {
    /// Marks the error as bad input.
    fn bad_input(self) -> Result<T, Failure>;
}

impl<T, E: Into<anyhow::Error>> BadInput<T> for Result<T, E> {
    fn bad_input(self) -> Result<T, Failure> {
        self.map_err(|e| Failure::bad_input(e.into()))
    }
}
