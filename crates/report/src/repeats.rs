//! What the "Repeats" section of report.html and summary.md says, from `repeats.json` (of
//! each run, in a report over several): for each repeated cell and headline number, every
//! run's value, the mean, its 95% interval and the coefficient of variation. Every number
//! is read from the file.

use plateau_model::results::repeats::{RepeatedCell, RepeatsReport};

use crate::per_run::{PerRun, uniform};
use crate::style::number;

/// `vllm · llama-8b · A1 · c8`.
pub fn title(c: &RepeatedCell) -> String {
    let load = c.load.load().map_or_else(|| "?".into(), |l| l.dir_name());
    format!("{} · {} · {} · {load}", c.endpoint, c.model, c.scenario)
}

/// The note above the table of `runs` (at least one).
pub fn note(runs: &[PerRun<RepeatsReport>]) -> String {
    let times = match uniform(runs, |r| r.repeats.to_string()) {
        Ok(k) => format!("{k} times"),
        Err(each) => format!("several times ({each})"),
    };
    format!(
        "Each cell ran {times} (interleaved across endpoints, the same prompts each time). \
         Per headline number: each run's value, their mean with a 95% confidence interval \
         (Student's t over the runs) and the coefficient of variation. The tables and \
         figures above show the first run."
    )
}

/// The table of `runs`: a header and one row per cell x headline number, run by run.
pub fn table(runs: &[PerRun<RepeatsReport>]) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let head = vec!["cell", "metric", "runs", "values", "mean", "95% CI", "CV"];
    let mut rows = Vec::new();
    for c in runs.iter().flat_map(|r| &r.file.cells) {
        let runs = if c.left_out.is_empty() {
            c.runs.len().to_string()
        } else {
            format!("{} (left out: {})", c.runs.len(), list(&c.left_out))
        };
        for s in &c.metrics {
            let unit = if s.unit.is_empty() {
                String::new()
            } else {
                format!(" {}", s.unit)
            };
            let values: Vec<String> = s.values.iter().map(|v| number(*v)).collect();
            rows.push(vec![
                title(c),
                s.metric.clone(),
                runs.clone(),
                values.join(", "),
                format!("{}{unit}", number(s.mean)),
                s.ci95.map_or("–".into(), |[lo, hi]| {
                    format!("{} – {}", number(lo), number(hi))
                }),
                s.cv.map_or("–".into(), |cv| format!("{:.1}%", cv * 100.0)),
            ]);
        }
    }
    (head, rows)
}

/// A few lines for the console after a run: each cell's server output throughput across
/// its runs (the rest is in `repeats.json` and the report).
pub fn console(report: &RepeatsReport) -> String {
    let mut out = format!(
        "server output tok/s across {} runs per cell (mean, 95% CI, CV; all headline numbers \
         in repeats.json):\n",
        report.repeats
    );
    for c in &report.cells {
        let Some(s) = c
            .metrics
            .iter()
            .find(|m| m.metric == "throughput.server_direct_tps")
        else {
            continue;
        };
        let ci = s.ci95.map_or("–".into(), |[lo, hi]| {
            format!("{} – {}", number(lo), number(hi))
        });
        let cv = s.cv.map_or("–".into(), |cv| format!("{:.1}%", cv * 100.0));
        out.push_str(&format!(
            "  {}: {}  [{ci}]  CV {cv}\n",
            title(c),
            number(s.mean)
        ));
    }
    out
}

fn list(repeats: &[u32]) -> String {
    let v: Vec<String> = repeats.iter().map(u32::to_string).collect();
    v.join(", ")
}
