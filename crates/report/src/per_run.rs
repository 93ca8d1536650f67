//! The files a run writes beside its cells, `capacity.json` and `repeats.json`, in a report
//! over one or several results directories: read from each directory ([`read`]) and, with
//! several, relabelled ([`Relabel`]) so every search, probe and repeated cell names its run
//! the way the merged cells do ([`crate::matrix::merge`]: `run-a/vllm`,
//! `run-a/vllm/llama-8b/A1/r4`).

use std::path::PathBuf;

use plateau_model::results::capacity::CapacityReport;
use plateau_model::results::read_json_if_present;
use plateau_model::results::repeats::RepeatsReport;
use serde::de::DeserializeOwned;

/// One run's file, with the run's label in a report over several runs.
#[derive(Clone, Debug)]
pub struct PerRun<T> {
    /// The run's label (its directory's name), `None` when the report has one run.
    pub label: Option<String>,
    /// The file as read, relabelled when `label` is set.
    pub file: T,
}

/// A file whose rows name endpoints and cells.
pub trait Relabel {
    /// Prefixes every endpoint and cell path with `run/`.
    fn relabel(&mut self, run: &str);
}

impl Relabel for CapacityReport {
    fn relabel(&mut self, run: &str) {
        for s in &mut self.searches {
            s.endpoint = format!("{run}/{}", s.endpoint);
            for p in &mut s.probes {
                p.dir = format!("{run}/{}", p.dir);
            }
        }
        for s in &mut self.sessions {
            s.endpoint = format!("{run}/{}", s.endpoint);
            for c in &mut s.cells {
                c.dir = format!("{run}/{}", c.dir);
            }
        }
    }
}

impl Relabel for RepeatsReport {
    fn relabel(&mut self, run: &str) {
        for c in &mut self.cells {
            c.endpoint = format!("{run}/{}", c.endpoint);
        }
    }
}

/// The file `name` of each run (`(label, results directory)`), in the runs' order, those
/// without one left out; with several runs each is relabelled by its run. A file that
/// cannot be read is left out too, and why (naming the file) goes to `unreadable`.
pub fn read<T: DeserializeOwned + Relabel>(
    runs: &[(String, PathBuf)],
    name: &str,
    unreadable: &mut Vec<String>,
) -> Vec<PerRun<T>> {
    let several = runs.len() > 1;
    runs.iter()
        .filter_map(|(label, dir)| {
            let mut file: T = read_json_if_present(&dir.join(name)).unwrap_or_else(|e| {
                unreadable.push(e.to_string());
                None
            })?;
            if several {
                file.relabel(label);
            }
            Some(PerRun {
                label: several.then(|| label.clone()),
                file,
            })
        })
        .collect()
}

/// What `f` says of the runs (at least one): `Ok(text)` when every run says the same, else
/// `Err` with each run's as `label: text`, joined by `; `.
pub fn uniform<T>(runs: &[PerRun<T>], f: impl Fn(&T) -> String) -> Result<String, String> {
    let texts: Vec<String> = runs.iter().map(|r| f(&r.file)).collect();
    match texts.first() {
        Some(first) if texts.iter().all(|t| t == first) => Ok(first.clone()),
        _ => Err(runs
            .iter()
            .zip(&texts)
            .map(|(r, t)| format!("{}: {t}", r.label.as_deref().unwrap_or("?")))
            .collect::<Vec<_>>()
            .join("; ")),
    }
}

#[cfg(test)]
mod tests {
    use super::{PerRun, uniform};

    fn run(label: &str, file: u32) -> PerRun<u32> {
        PerRun {
            label: Some(label.into()),
            file,
        }
    }

    #[test]
    fn uniform_says_one_text_when_the_runs_agree_and_each_runs_when_not() {
        let text = |k: &u32| k.to_string();
        assert_eq!(uniform(&[run("a", 3), run("b", 3)], text), Ok("3".into()));
        assert_eq!(
            uniform(&[run("a", 3), run("b", 2)], text),
            Err("a: 3; b: 2".into())
        );
    }
}
