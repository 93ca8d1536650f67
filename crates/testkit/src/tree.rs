//! Copies a fixture tree (the report, `plateau validate` and results tests change their
//! copies, never the fixture), or one cell of it many times over: a large run without
//! running one ([`cell_copies`]).

use std::fs;
use std::path::Path;

/// Copies the tree at `from` into `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The shape of a run made of copies of one cell ([`cell_copies`]): `endpoints` series
/// (`e0`, `e1`, ...), each with `scenarios` scenarios (`s0`, ...) at `loads` concurrencies
/// (1, 2, 4, ...).
#[derive(Clone, Copy, Debug)]
pub struct Copies {
    /// Endpoints, each a series.
    pub endpoints: usize,
    /// Scenarios per endpoint.
    pub scenarios: usize,
    /// Concurrencies per scenario: 1, 2, 4, ... 2^(loads - 1).
    pub loads: u32,
}

impl Copies {
    /// Cells in the run.
    pub fn cells(&self) -> usize {
        self.endpoints * self.scenarios * self.loads as usize
    }
}

/// Writes a results directory at `out` of copies of the cell at `cell` (a cell directory
/// of a fixture, `<results>/<endpoint>/<model>/<scenario>/<load>`, whose run.json is four
/// levels up): each copy's summary rewritten to its own endpoint, scenario and
/// concurrency, so that it lies where it says it is, its records hard-linked (copied where
/// links fail), and a run.json listing every copy. Returns the copies' paths, in order.
/// A large run without running one: what `cargo xtask bench report` and the report's
/// paging test read.
pub fn cell_copies(cell: &Path, out: &Path, shape: Copies) -> std::io::Result<Vec<String>> {
    let summary: serde_json::Value = serde_json::from_slice(&fs::read(cell.join("summary.json"))?)?;
    let model = summary["cell"]["model"]
        .as_str()
        .unwrap_or("model")
        .to_owned();
    let mut run: serde_json::Value =
        serde_json::from_slice(&fs::read(cell.join("../../../../run.json"))?)?;
    let mut listed = Vec::with_capacity(shape.cells());
    for e in 0..shape.endpoints {
        for s in 0..shape.scenarios {
            for l in 0..shape.loads {
                let load = 1u32 << l;
                let rel = format!("e{e}/{model}/s{s}/c{load}");
                let dir = out.join(&rel);
                fs::create_dir_all(&dir)?;
                let mut copy = summary.clone();
                copy["cell"]["endpoint"] = format!("e{e}").into();
                copy["cell"]["scenario"] = format!("s{s}").into();
                copy["cell"]["concurrency"] = load.into();
                fs::write(dir.join("summary.json"), serde_json::to_vec(&copy)?)?;
                let records = cell.join("requests.jsonl.gz");
                let to = dir.join("requests.jsonl.gz");
                fs::hard_link(&records, &to).or_else(|_| fs::copy(&records, &to).map(|_| ()))?;
                listed.push(rel);
            }
        }
    }
    run["cells"] = listed
        .iter()
        .map(|rel| serde_json::json!({"path": rel, "state": "complete"}))
        .collect();
    fs::write(out.join("run.json"), serde_json::to_vec(&run)?)?;
    Ok(listed)
}
