//! Which runs of the history a command means: label filters (`engine=vllm,gpu=h100`), the
//! latest N (`last 5`), both together, or one run by its id (`--against 42`).

use crate::HistoryError;

/// A selection of runs: every label must match; `last` keeps the latest N of those.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// `(key, value)` pairs a run must all carry.
    pub labels: Vec<(String, String)>,
    /// Keep only the latest N matching runs.
    pub last: Option<usize>,
}

/// What `plateau check --against` names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Against {
    /// One run, by id.
    Run(i64),
    /// Every run the filter selects (pooled).
    Select(Filter),
}

/// Parses `key=value`; the error names the text.
pub fn label(text: &str) -> Result<(String, String), HistoryError> {
    let (k, v) = text
        .split_once('=')
        .ok_or_else(|| HistoryError::Filter(format!("label {text:?}: expected key=value")))?;
    let (k, v) = (k.trim(), v.trim());
    if k.is_empty() || k.contains(char::is_whitespace) || v.is_empty() {
        return Err(HistoryError::Filter(format!(
            "label {text:?}: expected key=value with a key without spaces and a value"
        )));
    }
    Ok((k.to_owned(), v.to_owned()))
}

impl Filter {
    /// Parses words such as `engine=vllm gpu=h100 last 5` (commas or spaces between them).
    pub fn parse(text: &str) -> Result<Filter, HistoryError> {
        let mut f = Filter::default();
        let mut words = text.split([',', ' ']).filter(|w| !w.is_empty()).peekable();
        while let Some(w) = words.next() {
            if w == "last" {
                let n = words.next().and_then(|n| n.parse::<usize>().ok());
                match n {
                    Some(n) if n > 0 && f.last.is_none() => f.last = Some(n),
                    _ => {
                        return Err(HistoryError::Filter(format!(
                            "{text:?}: `last` takes one number of runs, at least 1"
                        )));
                    }
                }
            } else {
                f.labels.push(label(w)?);
            }
        }
        Ok(f)
    }

    /// Whether a run with these labels passes the label part of the filter.
    pub fn matches(&self, labels: &[(String, String)]) -> bool {
        self.labels.iter().all(|l| labels.contains(l))
    }
}

impl Against {
    /// A run id (a bare number) or a filter.
    pub fn parse(text: &str) -> Result<Against, HistoryError> {
        let t = text.trim();
        if let Ok(id) = t.parse::<i64>() {
            return Ok(Against::Run(id));
        }
        let f = Filter::parse(t)?;
        if f == Filter::default() {
            return Err(HistoryError::Filter(
                "--against is empty: give a run id, key=value labels, or `last N`".into(),
            ));
        }
        Ok(Against::Select(f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ids_labels_and_last() {
        assert_eq!(Against::parse("42").unwrap(), Against::Run(42));
        let Against::Select(f) = Against::parse("engine=vllm, gpu=h100 last 5").unwrap() else {
            panic!("a filter")
        };
        assert_eq!(f.last, Some(5));
        assert_eq!(
            f.labels,
            vec![
                ("engine".into(), "vllm".into()),
                ("gpu".into(), "h100".into())
            ]
        );
        assert!(f.matches(&[
            ("gpu".into(), "h100".into()),
            ("engine".into(), "vllm".into()),
            ("x".into(), "y".into())
        ]));
        assert!(!f.matches(&[("engine".into(), "vllm".into())]));
        for bad in [
            "last",
            "last 0",
            "last x",
            "engine",
            "=x",
            "",
            "last 2 last 3",
        ] {
            assert!(Against::parse(bad).is_err(), "{bad:?}");
        }
    }
}
