//! `nvidia-smi --query-gpu=... --format=csv` into [`GpuReading`]s: the header names each
//! column with its unit in brackets (`power.draw [W]`), each line is one GPU (`312.45 W`,
//! `97 %`, `71234 MiB`; `[N/A]` or `[Not Supported]` where the GPU has no value). With
//! `-lms N` it prints every GPU's line each N ms; [`Lines`] groups them into one sample per
//! round, which is complete when every GPU seen in the first round has its line.

use super::GpuReading;

/// The fields plateau asks for, in order.
pub const QUERY: &str = "index,uuid,name,power.draw,utilization.gpu,memory.used";

/// The expected unit of each numeric field.
const UNITS: [(&str, &str); 3] = [
    ("power.draw", "W"),
    ("utilization.gpu", "%"),
    ("memory.used", "MiB"),
];

/// Where each field is, read from the header.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Columns {
    index: Option<usize>,
    uuid: Option<usize>,
    name: Option<usize>,
    power: Option<usize>,
    util: Option<usize>,
    memory: Option<usize>,
}

/// The columns of a header line; an error when a unit is not the one plateau reads (a
/// different `nvidia-smi` would be misread rather than refused).
pub fn header(line: &str) -> Result<Columns, String> {
    let mut c = Columns::default();
    for (i, cell) in line.split(',').enumerate() {
        let cell = cell.trim();
        let (name, unit) = match cell.split_once(" [") {
            Some((n, u)) => (n.trim(), Some(u.trim_end_matches(']'))),
            None => (cell, None),
        };
        if let Some((_, want)) = UNITS.iter().find(|(n, _)| *n == name)
            && unit != Some(*want)
        {
            return Err(format!(
                "nvidia-smi's `{name}` is in `{}`, expected `{want}`",
                unit.unwrap_or("no unit")
            ));
        }
        let slot = match name {
            "index" => &mut c.index,
            "uuid" => &mut c.uuid,
            "name" => &mut c.name,
            "power.draw" => &mut c.power,
            "utilization.gpu" => &mut c.util,
            "memory.used" => &mut c.memory,
            _ => continue,
        };
        *slot = Some(i);
    }
    if c.index.is_none() && c.uuid.is_none() {
        return Err(format!(
            "not nvidia-smi's CSV header (no index or uuid): `{line}`"
        ));
    }
    Ok(c)
}

/// One GPU's line, read with `columns`; `None` when it has too few fields.
pub fn reading(columns: &Columns, line: &str) -> Option<GpuReading> {
    let cells: Vec<&str> = line.split(',').map(str::trim).collect();
    let cell = |i: Option<usize>| i.and_then(|i| cells.get(i).copied());
    let id = cell(columns.uuid)
        .filter(|u| !u.is_empty())
        .map(str::to_owned)
        .or_else(|| cell(columns.index).map(|i| format!("/{i}")))?;
    let mut r = GpuReading::new(id);
    r.name = cell(columns.name).map(str::to_owned);
    r.power_w = cell(columns.power).and_then(number);
    r.util_pct = cell(columns.util).and_then(number);
    r.memory_used_mib = cell(columns.memory).and_then(number);
    Some(r)
}

/// A value with its unit after it (`312.45 W`); `None` for `[N/A]` and the like.
fn number(cell: &str) -> Option<f64> {
    cell.split_whitespace()
        .next()?
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
}

/// Groups a running `nvidia-smi -lms` output into one sample per round.
#[derive(Debug, Default)]
pub struct Lines {
    columns: Option<Columns>,
    /// GPUs per round, known once a GPU's line comes a second time.
    per_round: Option<usize>,
    round: Vec<GpuReading>,
}

impl Lines {
    /// Feeds one line; returns the round it completes, if any. A repeated header is
    /// skipped; a bad header is an error.
    pub fn feed(&mut self, line: &str) -> Result<Option<Vec<GpuReading>>, String> {
        let line = line.trim();
        if line.is_empty() {
            return Ok(None);
        }
        let Some(columns) = &self.columns else {
            self.columns = Some(header(line)?);
            return Ok(None);
        };
        if line.starts_with("index") || line.starts_with("uuid") {
            return Ok(None);
        }
        let Some(r) = reading(columns, line) else {
            return Ok(None);
        };
        let mut done = None;
        if self.round.iter().any(|g| g.gpu == r.gpu) {
            self.per_round.get_or_insert(self.round.len());
            done = Some(std::mem::take(&mut self.round));
        }
        self.round.push(r);
        if self.per_round == Some(self.round.len()) {
            done = done.or_else(|| Some(std::mem::take(&mut self.round)));
        }
        Ok(done)
    }

    /// Whether the line just fed started a new round (its sample is stamped then).
    pub fn starts_round(&self) -> bool {
        self.round.len() == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `nvidia-smi --query-gpu=index,uuid,name,power.draw,utilization.gpu,memory.used
    /// --format=csv -lms 250` prints on a two-GPU host: the header once, then each round.
    const CSV: &str = include_str!("fixtures/nvidia-smi.csv");

    #[test]
    fn the_header_names_the_columns_with_their_units() {
        let c = header("index, uuid, name, power.draw [W], utilization.gpu [%], memory.used [MiB]")
            .expect("a header");
        assert_eq!(c.power, Some(3));
        let err = header("index, power.draw [mW]").unwrap_err();
        assert_eq!(err, "nvidia-smi's `power.draw` is in `mW`, expected `W`");
        assert!(header("timestamp, name").is_err());
    }

    #[test]
    fn rounds_group_one_line_per_gpu_and_na_is_absent() {
        let mut lines = Lines::default();
        let mut rounds = Vec::new();
        for line in CSV.lines() {
            if let Some(r) = lines.feed(line).expect("valid") {
                rounds.push(r);
            }
        }
        assert_eq!(
            rounds.len(),
            3,
            "the third completes with its last GPU's line"
        );
        let first = &rounds[0];
        assert_eq!(first.len(), 2);
        assert_eq!(first[0].gpu, "GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52");
        assert_eq!(first[0].name.as_deref(), Some("NVIDIA H100 80GB HBM3"));
        assert_eq!(first[0].power_w, Some(312.45));
        assert_eq!(first[0].util_pct, Some(97.0));
        assert_eq!(first[0].memory_used_mib, Some(71234.0));
        assert_eq!(
            first[0].energy_j, None,
            "nvidia-smi has no energy counter here"
        );
        assert_eq!(rounds[2][1].power_w, None, "[N/A]");
    }
}
