//! `--set key=value` on the merged config: the key path parsed (`endpoints[0].url`), each
//! list index checked against the entries there are, the value merged in (objects key by
//! key, anything else replaced), in command-line order.
//!
//! The `config` crate's `set_override` is not used: it pads a list with nulls up to any
//! index (`endpoints[5]` on a one-endpoint file was then reported as `endpoints[1]`), and it
//! keeps overrides in a hash map, so two `--set`s on overlapping keys applied in any order.

use std::fmt;

use serde_json::{Map, Value};

/// One step of a key path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `.name` (or the leading name).
    Key(String),
    /// `[i]`; negative counts from the end, as in the `config` crate.
    Index(i64),
}

/// A parsed key path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyPath(pub Vec<Step>);

impl KeyPath {
    /// Parses `a.b[0].c`: names of letters, digits, `_` and `-`; integer indexes.
    pub fn parse(text: &str) -> Result<KeyPath, String> {
        let mut steps = Vec::new();
        let mut rest = text;
        let mut first = true;
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('[')
                && !first
            {
                let (index, tail) = after
                    .split_once(']')
                    .ok_or_else(|| format!("`{text}`: `[` without `]`"))?;
                let index = index
                    .trim()
                    .parse::<i64>()
                    .map_err(|_| format!("`{text}`: `[{index}]` is not a list index"))?;
                steps.push(Step::Index(index));
                rest = tail;
            } else {
                let name = if first {
                    rest
                } else {
                    rest.strip_prefix('.').ok_or_else(|| {
                        format!(
                            "`{text}`: expected `.` or `[` after `{}`",
                            KeyPath(steps.clone())
                        )
                    })?
                };
                let end = name
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                    .unwrap_or(name.len());
                if end == 0 {
                    return Err(format!("`{text}`: expected a key name"));
                }
                steps.push(Step::Key(name[..end].to_owned()));
                rest = &name[end..];
            }
            first = false;
        }
        if steps.is_empty() {
            return Err("the key is empty".to_owned());
        }
        Ok(KeyPath(steps))
    }
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            match step {
                Step::Key(k) if i == 0 => write!(f, "{k}")?,
                Step::Key(k) => write!(f, ".{k}")?,
                Step::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// A `--set` value: JSON when it parses as JSON; else a list of bare words when it is
/// bracketed (`[A1,B1]`, `[1, 4, 8]`: each item read the same way); else the text itself.
pub fn parse_value(text: &str) -> Value {
    if let Ok(v) = serde_json::from_str(text) {
        return v;
    }
    match text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        Some(items) if !items.contains(['[', ']', '{', '}']) => Value::Array(
            items
                .split(',')
                .map(str::trim)
                .filter(|item| !item.is_empty())
                .map(parse_value)
                .collect(),
        ),
        _ => Value::String(text.to_owned()),
    }
}

/// Sets `value` at `path` in `root`, creating objects on the way. Returns the paths it
/// wrote (each key of an object merged into an object, recursively; the path itself
/// otherwise), with negative indexes resolved.
pub fn apply(root: &mut Value, path: &KeyPath, value: Value) -> Result<Vec<String>, String> {
    let mut target = root;
    let mut at = String::new();
    for step in &path.0 {
        target = match step {
            Step::Key(key) => {
                if target.is_array() {
                    return Err(format!("{at} is a list; name an entry, e.g. {at}[0].{key}"));
                }
                if !target.is_object() {
                    *target = Value::Object(Map::new());
                }
                if !at.is_empty() {
                    at.push('.');
                }
                at.push_str(key);
                let Some(map) = target.as_object_mut() else {
                    return Err(format!("{at}: cannot be set"));
                };
                map.entry(key.clone()).or_insert(Value::Null)
            }
            Step::Index(index) => {
                let len = match target {
                    Value::Array(items) => items.len(),
                    Value::Null => {
                        return Err(format!(
                            "{at} is not set, so `[{index}]` names nothing (to set the whole list, --set '{at}=[...]')"
                        ));
                    }
                    _ => return Err(format!("{at} is not a list, so `[{index}]` names nothing")),
                };
                let entry = resolve(*index, len).and_then(|i| Some((i, target.get_mut(i)?)));
                let Some((i, item)) = entry else {
                    return Err(out_of_range(&at, *index, len));
                };
                at.push_str(&format!("[{i}]"));
                item
            }
        };
    }
    let mut written = Vec::new();
    merge(target, value, at, &mut written);
    Ok(written)
}

/// `index` (negative from the end) as a position in a list of `len`, if there is one.
fn resolve(index: i64, len: usize) -> Option<usize> {
    let len = i64::try_from(len).ok()?;
    let i = if index < 0 { len + index } else { index };
    if (0..len).contains(&i) {
        usize::try_from(i).ok()
    } else {
        None
    }
}

fn out_of_range(list: &str, index: i64, len: usize) -> String {
    let has = match len {
        0 => format!("{list} is empty"),
        1 => format!("{list} has 1 entry, {list}[0]"),
        n => format!("{list} has {n} entries, {list}[0] to {list}[{}]", n - 1),
    };
    format!(
        "{list}[{index}] is out of range: {has}; --set changes an entry but cannot add one \
         (to replace the whole list, --set '{list}=[...]')"
    )
}

/// An object merges into an object key by key (as the `config` crate merges them);
/// anything else replaces what was there.
fn merge(target: &mut Value, value: Value, at: String, written: &mut Vec<String>) {
    match (target.as_object_mut(), value) {
        (Some(into), Value::Object(from)) if !from.is_empty() => {
            for (key, v) in from {
                let path = format!("{at}.{key}");
                merge(into.entry(key).or_insert(Value::Null), v, path, written);
            }
        }
        (Some(_), Value::Object(_)) => written.push(at),
        (_, value) => {
            *target = value;
            written.push(at);
        }
    }
}
