//! A small strict parser of the Prometheus text exposition format (0.0.4): every sample
//! line as a metric name, its labels and a value; `# HELP` / `# TYPE` and other comments
//! skipped. Histograms arrive as their `_bucket{le=...}`, `_sum` and `_count` samples.
//!
//! Written here rather than taken from a crate: `prometheus-parse` (the common choice) is
//! regex-based, undocumented and pulls in `regex`, `lazy_static` and `chrono` for what is
//! one line grammar; plateau needs only flat samples and must reject what is not
//! Prometheus text (an HTML 404 page) instead of guessing.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One sample line.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Metric name, e.g. `vllm:num_requests_running` or `..._bucket`.
    pub name: String,
    /// Labels in the order written.
    pub labels: Vec<(String, String)>,
    /// The value (`NaN`, `+Inf` and `-Inf` allowed).
    pub value: f64,
}

impl Sample {
    /// The label `name`'s value.
    pub fn label(&self, name: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The series as one string, labels sorted: `name{a="1",b="2"}` (`name` alone when it
    /// has none). The key of `server_metrics.jsonl.gz`'s values.
    pub fn key(&self) -> String {
        if self.labels.is_empty() {
            return self.name.clone();
        }
        let mut labels: Vec<&(String, String)> = self.labels.iter().collect();
        labels.sort();
        let mut out = format!("{}{{", self.name);
        for (i, (k, v)) in labels.iter().enumerate() {
            let sep = if i == 0 { "" } else { "," };
            let _ = write!(out, "{sep}{k}=\"{}\"", escape(v));
        }
        out.push('}');
        out
    }
}

/// Text that is not Prometheus exposition: the 1-based line and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    /// What was expected.
    pub message: String,
}

/// Every sample of `text`, in order.
pub fn parse(text: &str) -> Result<Vec<Sample>, ParseError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        out.push(sample(line).map_err(|message| ParseError {
            line: i + 1,
            message,
        })?);
    }
    Ok(out)
}

/// For every metric whose name ends in `_info` (vLLM's `vllm:cache_config_info`), its
/// labels: how engines expose their configuration as metrics. Text that does not parse
/// gives nothing; when a metric has several series, the last one's labels are kept.
pub fn info_labels(text: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    parse(text)
        .unwrap_or_default()
        .into_iter()
        .filter(|s| s.name.ends_with("_info"))
        .map(|s| (s.name, s.labels.into_iter().collect()))
        .collect()
}

fn sample(line: &str) -> Result<Sample, String> {
    let name_end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(line.len());
    let name = &line[..name_end];
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(format!("expected a metric name, got `{}`", clip(line)));
    }
    let mut rest = &line[name_end..];
    let mut labels = Vec::new();
    if let Some(after) = rest.strip_prefix('{') {
        let (parsed, tail) = label_set(after)?;
        labels = parsed;
        rest = tail;
    }
    let mut fields = rest.split_whitespace();
    let value = fields
        .next()
        .ok_or_else(|| format!("`{name}` has no value"))?;
    let value = number(value).ok_or_else(|| format!("`{name}`: `{value}` is not a number"))?;
    if let Some(ts) = fields.next()
        && ts.parse::<i64>().is_err()
    {
        return Err(format!("`{name}`: `{ts}` is not a timestamp"));
    }
    if fields.next().is_some() {
        return Err(format!("`{name}`: unexpected text after the value"));
    }
    Ok(Sample {
        name: name.to_owned(),
        labels,
        value,
    })
}

/// Label name and value pairs, in the order written.
type Labels = Vec<(String, String)>;

/// Labels up to the closing `}`, and what follows it.
fn label_set(mut s: &str) -> Result<(Labels, &str), String> {
    let mut labels = Vec::new();
    loop {
        s = s.trim_start();
        if let Some(tail) = s.strip_prefix('}') {
            return Ok((labels, tail));
        }
        let eq = s
            .find('=')
            .ok_or_else(|| "expected `label=\"value\"` or `}`".to_owned())?;
        let key = s[..eq].trim();
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("`{}` is not a label name", clip(key)));
        }
        let after = s[eq + 1..].trim_start();
        let body = after
            .strip_prefix('"')
            .ok_or_else(|| format!("label `{key}`: expected a quoted value"))?;
        let (value, tail) =
            quoted(body).ok_or_else(|| format!("label `{key}`: unterminated value"))?;
        labels.push((key.to_owned(), value));
        s = tail.trim_start();
        s = s.strip_prefix(',').unwrap_or(s);
    }
}

/// A label value up to its closing quote, unescaped, and the text after the quote.
fn quoted(s: &str) -> Option<(String, &str)> {
    let mut out = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &s[i + 1..])),
            '\\' => match chars.next()?.1 {
                'n' => out.push('\n'),
                other => out.push(other),
            },
            other => out.push(other),
        }
    }
    None
}

fn number(s: &str) -> Option<f64> {
    match s {
        "+Inf" | "Inf" => Some(f64::INFINITY),
        "-Inf" => Some(f64::NEG_INFINITY),
        "NaN" => Some(f64::NAN),
        _ => s.parse().ok(),
    }
}

fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

fn clip(s: &str) -> &str {
    match s.char_indices().nth(40) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}
