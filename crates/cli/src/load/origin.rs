//! Where each config value came from: the file, a `PLATEAU__…` environment variable or a
//! `--set`, so an error names the source the user typed the value in (SPEC.md section 2).

use std::fmt::Display;
use std::path::{Path, PathBuf};

use plateau_core::plan::Problem;

/// The sources of the keys given outside the config file; every other key is the file's.
#[derive(Clone, Debug, Default)]
pub struct Origins {
    file: PathBuf,
    /// (key path, source label), latest last; paths as `endpoints[0].url`.
    given: Vec<(String, String)>,
}

impl Origins {
    /// Every key from `file` until [`Origins::record`] says otherwise.
    pub fn new(file: &Path) -> Origins {
        Origins {
            file: file.to_owned(),
            given: Vec::new(),
        }
    }

    /// `path` and everything under it now comes from `source` (`--set k=v`,
    /// `PLATEAU__K (environment)`, `--output-dir`).
    pub fn record(&mut self, path: &str, source: &str) {
        self.given.retain(|(p, _)| !within(p, path));
        self.given.push((path.to_owned(), source.to_owned()));
    }

    /// The source of the value at `field`: the `--set` or environment variable that wrote it
    /// or one of its parents, else the config file.
    pub fn of(&self, field: &str) -> String {
        self.given
            .iter()
            .filter(|(p, _)| within(field, p))
            .max_by_key(|(p, _)| p.len())
            .map_or_else(|| self.file.display().to_string(), |(_, s)| s.clone())
    }

    /// `what` prefixed by the source of `field`.
    pub fn blame(&self, field: &str, what: impl Display) -> String {
        format!("{}: {what}", self.of(field))
    }

    /// One line per problem, each prefixed by its source.
    pub fn problems<'a>(&self, problems: impl IntoIterator<Item = &'a Problem>) -> String {
        problems
            .into_iter()
            .map(|p| self.blame(&p.field, p))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Whether `path` is `parent` or lies under it (`endpoints[0].url` under `endpoints`).
fn within(path: &str, parent: &str) -> bool {
    path.strip_prefix(parent)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.') || rest.starts_with('['))
}
