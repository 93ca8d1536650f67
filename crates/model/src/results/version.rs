//! Result files from another plateau. A `summary.json` in a layout this plateau does not
//! write (its `schema_version`, the layout's major version, differs) is not read as if it
//! were: an error names both versions. A file a newer plateau wrote in this layout is read,
//! and the reader warns, naming both versions, that what the newer one added is not shown.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::ResultsError;

/// Version of the `summary.json` layout; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// This plateau's version.
pub const THIS: &str = env!("CARGO_PKG_VERSION");

/// The version fields of a result file (any other field is skipped).
#[derive(Debug, Default, Deserialize)]
pub struct Stamp {
    /// The layout version (`summary.json`).
    #[serde(default)]
    pub schema_version: Option<u32>,
    /// The plateau that wrote it.
    #[serde(default)]
    pub plateau_version: Option<String>,
}

impl Stamp {
    /// The stamp of the JSON in `bytes`; an unreadable file has none (its reader names why).
    pub fn of(bytes: &[u8]) -> Stamp {
        serde_json::from_slice(bytes).unwrap_or_default()
    }

    /// An error when the file at `path` is a summary in another layout than this plateau's.
    pub fn check_layout(&self, path: &Path) -> Result<(), ResultsError> {
        match self.schema_version {
            Some(v) if v != SCHEMA_VERSION => Err(ResultsError::Format {
                path: path.to_owned(),
                line: None,
                message: format!(
                    "written by plateau {} in summary layout version {v}; this plateau ({THIS}) \
                     reads layout version {SCHEMA_VERSION}: read it with the plateau that \
                     wrote it",
                    self.plateau_version.as_deref().unwrap_or("(unknown)")
                ),
            }),
            _ => Ok(()),
        }
    }

    /// The version of the plateau that wrote the file, when it is newer than this one.
    pub fn newer(&self) -> Option<&str> {
        self.plateau_version
            .as_deref()
            .filter(|v| is_newer(v, THIS))
    }
}

/// Files a newer plateau wrote, by its version: how many and the first one's path.
#[derive(Debug, Default)]
pub struct Newer(BTreeMap<String, (usize, PathBuf)>);

impl Newer {
    /// Notes the file at `path` if a newer plateau wrote it.
    pub fn note(&mut self, stamp: &Stamp, path: &Path) {
        if let Some(v) = stamp.newer() {
            self.0
                .entry(v.to_owned())
                .or_insert_with(|| (0, path.to_owned()))
                .0 += 1;
        }
    }

    /// One warning per newer version.
    pub fn warnings(&self) -> Vec<String> {
        self.0
            .iter()
            .map(|(v, (n, first))| {
                format!(
                    "{n} file(s) written by plateau {v}, newer than this plateau ({THIS}), e.g. \
                     {}: read in the same layout, but anything plateau {v} added is not shown; \
                     upgrade plateau to see it",
                    first.display()
                )
            })
            .collect()
    }
}

/// Whether version `a` is newer than `b`, compared as dot-separated numbers
/// (`0.10.0` > `0.9.3`); a part that is not a number (`1.0.0-rc1`) counts up to its digits.
pub fn is_newer(a: &str, b: &str) -> bool {
    let parts = |v: &str| -> Vec<u64> {
        v.split('.')
            .map(|p| {
                let digits: String = p.chars().take_while(char::is_ascii_digit).collect();
                digits.parse().unwrap_or(0)
            })
            .collect()
    };
    parts(a) > parts(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_as_numbers() {
        assert!(is_newer("0.10.0", "0.9.3"));
        assert!(is_newer("1.0.0", "0.99.99"));
        assert!(is_newer("0.1.1", "0.1.0"));
        assert!(!is_newer("0.1.0", "0.1.0"));
        assert!(!is_newer("0.1.0-rc1", "0.1.0"));
        assert!(!is_newer("0.0.9", "0.1.0"));
    }

    #[test]
    fn another_layout_is_an_error_naming_both_versions() {
        let stamp = Stamp::of(br#"{"schema_version": 999, "plateau_version": "9.0.0"}"#);
        let err = stamp
            .check_layout(Path::new("c4/summary.json"))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "c4/summary.json: written by plateau 9.0.0 in summary layout version 999; this \
                 plateau ({THIS}) reads layout version 1: read it with the plateau that wrote it"
            )
        );
        let same = Stamp::of(br#"{"schema_version": 1, "plateau_version": "9.0.0"}"#);
        assert!(same.check_layout(Path::new("x")).is_ok());
        assert_eq!(same.newer(), Some("9.0.0"));
        let ours = Stamp::of(format!(r#"{{"plateau_version": "{THIS}"}}"#).as_bytes());
        assert_eq!(ours.newer(), None);
    }

    #[test]
    fn newer_files_give_one_warning_per_version() {
        let mut newer = Newer::default();
        let stamp = Stamp::of(br#"{"plateau_version": "9.0.0"}"#);
        newer.note(&stamp, Path::new("a/summary.json"));
        newer.note(&stamp, Path::new("b/summary.json"));
        newer.note(&Stamp::default(), Path::new("c/summary.json"));
        let w = newer.warnings();
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with(&format!(
                "2 file(s) written by plateau 9.0.0, newer than this plateau ({THIS}), e.g. a/summary.json"
            )),
            "{}",
            w[0]
        );
    }
}
