//! `plateau history report`: per cell (endpoint, model, scenario, load) and headline
//! number, the value of each selected run with its interval, oldest first, with the change
//! points of [`trend`](crate::trend) marked: trends.md (tables) and trends.html (the same
//! tables and one SVG figure per series, inline, so the page is self-contained). Repeats of
//! a cell in one run are averaged (values and interval ends).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use plateau_model::results::write_atomic;
use plateau_report::compare::metric::HEADLINE;
use plateau_report::figures::frame::{Frame, Swatch};
use plateau_report::quantity::{Quantity, number};
use plateau_report::style;
use plotters::prelude::*;

use crate::trend::{ChangePoint, change_points};
use crate::{Filter, HistoryError, Store};

/// A recorded value and its interval.
type Reading = (f64, Option<[f64; 2]>);

/// One run's point of a series.
#[derive(Clone, Debug)]
pub struct Point {
    /// The run id.
    pub run: i64,
    /// Its x label: the start time, or the chosen label's value.
    pub x: String,
    /// The value (mean over repeats).
    pub value: f64,
    /// The interval (ends averaged over repeats).
    pub ci: Option<[f64; 2]>,
}

/// One cell's number across runs.
#[derive(Clone, Debug)]
pub struct Series {
    /// `sim/m/A1/c8`.
    pub cell: String,
    /// The number.
    pub quantity: Quantity,
    /// Oldest first.
    pub points: Vec<Point>,
    /// Its change points.
    pub changes: Vec<ChangePoint>,
}

/// Every series of the runs `filter` selects; x is the start time (`time`) or label `x`.
pub fn series(store: &Store, filter: &Filter, x: &str) -> Result<Vec<Series>, HistoryError> {
    let mut map: BTreeMap<(String, usize), Vec<Point>> = BTreeMap::new();
    for run in store.runs(filter)? {
        let x_value = if x == "time" {
            run.started_at.clone()
        } else {
            match run.labels.iter().find(|(k, _)| k == x) {
                Some((_, v)) => v.clone(),
                None => continue,
            }
        };
        let mut by_cell: BTreeMap<(String, usize), Vec<Reading>> = BTreeMap::new();
        for c in store.cells(run.id)? {
            let name = format!("{}/{}/{}/{}", c.endpoint, c.model, c.scenario, c.load);
            for (i, q) in HEADLINE.iter().enumerate() {
                if let Some((_, v, ci)) = c.values.iter().find(|(f, _, _)| f == q.field) {
                    by_cell
                        .entry((name.clone(), i))
                        .or_default()
                        .push((*v, *ci));
                }
            }
        }
        for (key, vals) in by_cell {
            let n = vals.len() as f64;
            let value = vals.iter().map(|v| v.0).sum::<f64>() / n;
            let cis: Vec<[f64; 2]> = vals.iter().filter_map(|v| v.1).collect();
            let ci = (cis.len() == vals.len()).then(|| {
                [
                    cis.iter().map(|c| c[0]).sum::<f64>() / n,
                    cis.iter().map(|c| c[1]).sum::<f64>() / n,
                ]
            });
            map.entry(key).or_default().push(Point {
                run: run.id,
                x: x_value.clone(),
                value,
                ci,
            });
        }
    }
    Ok(map
        .into_iter()
        .map(|((cell, i), points)| {
            let values: Vec<f64> = points.iter().map(|p| p.value).collect();
            Series {
                cell,
                quantity: HEADLINE[i],
                changes: change_points(&values),
                points,
            }
        })
        .collect())
}

/// Writes trends.md and trends.html into `out`.
pub fn write(
    store: &Store,
    filter: &Filter,
    x: &str,
    out: &Path,
) -> Result<Vec<PathBuf>, HistoryError> {
    let all = series(store, filter, x)?;
    if all.is_empty() {
        return Err(HistoryError::NoBaseline(format!(
            "no recorded run matches the filter{}",
            if x == "time" {
                String::new()
            } else {
                format!(" and has label {x:?}")
            }
        )));
    }
    plateau_report::font::register()?;
    std::fs::create_dir_all(out).map_err(|source| HistoryError::Folder {
        path: out.to_owned(),
        source,
    })?;
    let md: String = all.iter().map(table).collect::<Vec<_>>().join("\n");
    let mut html = String::from(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>plateau trends</title>\
         <style>body{font-family:sans-serif;max-width:1100px;margin:auto}table{border-collapse:\
         collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}</style></head>\
         <body><h1>plateau trends</h1><p>Change points: binary segmentation on the mean-shift \
         statistic, each split kept when a seeded permutation test finds it significant at 5%.</p>",
    );
    for s in &all {
        html.push_str(&format!(
            "<h2>{} — {}</h2>{}<pre>{}</pre>",
            escape(&s.cell),
            escape(s.quantity.label),
            figure(s)?,
            escape(&table(s))
        ));
    }
    html.push_str("</body></html>\n");
    let mut written = Vec::new();
    for (name, text) in [("trends.md", md), ("trends.html", html)] {
        let path = out.join(name);
        write_atomic(&path, text.as_bytes()).map_err(|e| HistoryError::Results {
            path: path.clone(),
            why: e.to_string(),
        })?;
        written.push(path);
    }
    Ok(written)
}

/// One series as a markdown table, change points marked.
pub fn table(s: &Series) -> String {
    let mut out = format!(
        "### {} — {} ({})\n\n| run | x | value | interval | change point |\n|---:|---|---:|---|---|\n",
        s.cell, s.quantity.label, s.quantity.unit
    );
    for (i, p) in s.points.iter().enumerate() {
        let mark = s
            .changes
            .iter()
            .find(|c| c.at == i)
            .map_or(String::new(), |c| {
                format!("◆ {:+.1}% (p = {:.3})", c.shift_pct, c.p)
            });
        let ci = p.ci.map_or("–".to_owned(), |[a, b]| {
            format!("{} … {}", number(a), number(b))
        });
        out.push_str(&format!(
            "| {} | {} | {} | {ci} | {mark} |\n",
            p.run,
            p.x,
            number(p.value)
        ));
    }
    out
}

/// One series as an SVG line with interval bars and change points as vertical lines.
fn figure(s: &Series) -> Result<String, HistoryError> {
    let draw = |e: String| {
        HistoryError::Report(plateau_report::ReportError::Draw {
            path: PathBuf::from("trends.html"),
            message: e,
        })
    };
    let frame = Frame {
        title: format!("{} — {}", s.cell, s.quantity.label),
        subtitle: "each run's value with its 95% interval, oldest run first".into(),
        legend: vec![
            (
                Swatch::Line(style::series_color(0)),
                s.quantity.label.to_owned(),
            ),
            (Swatch::Line(style::ALERT), "change point".into()),
        ],
    };
    let width = style::PANEL_W.max(frame.min_width());
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, frame.height(width) + style::PANEL_H))
            .into_drawing_area();
        let body = frame.draw(&root).map_err(|e| draw(e.0))?;
        let lo = s
            .points
            .iter()
            .map(|p| p.ci.map_or(p.value, |c| c[0]))
            .fold(f64::INFINITY, f64::min);
        let hi = s
            .points
            .iter()
            .map(|p| p.ci.map_or(p.value, |c| c[1]))
            .fold(f64::NEG_INFINITY, f64::max);
        let pad = ((hi - lo) * 0.1).max(hi.abs() * 0.01).max(1e-9);
        let n = s.points.len();
        let mut chart = ChartBuilder::on(&body)
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(60)
            .build_cartesian_2d(-0.5..(n as f64 - 0.5), (lo - pad)..(hi + pad))
            .map_err(|e| draw(e.to_string()))?;
        chart
            .configure_mesh()
            .light_line_style(style::GRID)
            .x_desc("run (oldest first)")
            .y_desc(format!("{} ({})", s.quantity.label, s.quantity.unit))
            .x_label_formatter(&|x| {
                s.points
                    .get(x.round().max(0.0) as usize)
                    .map_or(String::new(), |p| p.run.to_string())
            })
            .y_label_formatter(&|y| style::tick(*y))
            .label_style(style::small())
            .draw()
            .map_err(|e| draw(e.to_string()))?;
        let color = style::series_color(0);
        for c in &s.changes {
            let x = c.at as f64 - 0.5;
            chart
                .draw_series(LineSeries::new(
                    [(x, lo - pad), (x, hi + pad)],
                    style::ALERT.stroke_width(2),
                ))
                .map_err(|e| draw(e.to_string()))?;
        }
        chart
            .draw_series(s.points.iter().enumerate().filter_map(|(i, p)| {
                p.ci.map(|[a, b]| {
                    PathElement::new(vec![(i as f64, a), (i as f64, b)], color.stroke_width(1))
                })
            }))
            .map_err(|e| draw(e.to_string()))?;
        chart
            .draw_series(
                LineSeries::new(
                    s.points
                        .iter()
                        .enumerate()
                        .map(|(i, p)| (i as f64, p.value)),
                    color.stroke_width(2),
                )
                .point_size(3),
            )
            .map_err(|e| draw(e.to_string()))?;
        root.present().map_err(|e| draw(e.to_string()))?;
    }
    Ok(svg)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
