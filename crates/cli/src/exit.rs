//! Exit codes (SPEC.md section 2) and how a failure is printed: the error chain on one
//! line, each cause once, on stderr.

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
/// Results could not be written (disk full, read-only, a file where the directory goes).
pub const IO: u8 = 4;
/// Ctrl-C, SIGTERM or SIGHUP (128 + SIGINT, for all three: SPEC.md section 2).
pub const INTERRUPTED: u8 = 130;

impl Failure {
    /// The exit code this failure earns.
    #[cfg(test)]
    pub fn code(&self) -> u8 {
        self.code
    }

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

    /// Results could not be written: exit 4.
    pub fn io(error: anyhow::Error) -> Self {
        Failure { code: IO, error }
    }

    /// A stopping signal ended the run: exit 130.
    pub fn interrupted() -> Self {
        Failure {
            code: INTERRUPTED,
            error: anyhow::anyhow!("interrupted; rerun with --resume to finish"),
        }
    }

    /// A stopping signal ended the run `while_` it was getting ready, before any cell:
    /// exit 130.
    pub fn interrupted_while(while_: &str) -> Self {
        Failure {
            code: INTERRUPTED,
            error: anyhow::anyhow!(
                "interrupted while {while_}, before any cell ran (run.json records it)"
            ),
        }
    }

    /// A stopping signal came after the last cell was written, as the run printed its
    /// results: exit 130, though nothing is missing.
    pub fn interrupted_at_end() -> Self {
        Failure {
            code: INTERRUPTED,
            error: anyhow::anyhow!(
                "interrupted as the run ended: every cell was already written (run.json says complete)"
            ),
        }
    }

    /// The same failure, `what` said before its cause.
    pub fn context(self, what: String) -> Self {
        Failure {
            code: self.code,
            error: self.error.context(what),
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
    eprintln!("error: {}", redactions.scrub(&chain(&failure.error)));
    ExitCode::from(failure.code)
}

/// The error and its causes joined with `: ` like `{:#}`, leaving out a cause whose text
/// the message already holds (an error that prints its source, such as `path: os error`,
/// and also returns it as `source()` would otherwise name the OS error twice).
fn chain(error: &anyhow::Error) -> String {
    let mut line = error.to_string();
    for cause in error.chain().skip(1) {
        let text = cause.to_string();
        if !line.contains(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
    }
    line
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Prints its source and returns it, as thiserror does for `#[error("{source}")]`.
    #[derive(Debug)]
    struct Repeats {
        source: std::io::Error,
    }

    impl std::fmt::Display for Repeats {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "results/run.json: {}", self.source)
        }
    }

    impl std::error::Error for Repeats {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.source)
        }
    }

    #[test]
    fn each_cause_is_printed_once() {
        let os = || std::io::Error::from_raw_os_error(28);
        let e = anyhow::Error::new(Repeats { source: os() }).context("cannot write results");
        assert_eq!(
            chain(&e),
            format!("cannot write results: results/run.json: {}", os())
        );
        let e = anyhow::Error::new(os()).context("reading x.json");
        assert_eq!(chain(&e), format!("reading x.json: {}", os()));
    }
}
