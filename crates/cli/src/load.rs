//! Loads `benchmark_config.json` with the `config` crate: the file, then `PLATEAU__KEY`
//! environment variables (`__` separates nesting, lists comma-separated), then `--set
//! key=value` overrides; decodes it into [`RunConfig`] with unknown keys rejected and every
//! error naming the file and the key path.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, anyhow, bail};
use config::{Config, Environment, File, FileFormat, Value, ValueKind};
use plateau_core::config::RunConfig;

/// Keys whose environment values are comma-separated lists.
const LIST_KEYS: &[&str] = &["batch_sizes", "scenarios"];

/// Reads the configuration. `env` replaces the process environment (tests).
pub fn load(
    file: &Path,
    sets: &[String],
    env: Option<HashMap<String, String>>,
) -> anyhow::Result<RunConfig> {
    if !file.is_file() {
        bail!(
            "{}: no such config file (pass --config PATH)",
            file.display()
        );
    }
    let text = std::fs::read_to_string(file).with_context(|| format!("{}", file.display()))?;
    unique::check(&text).map_err(|e| anyhow!("{}: {e}", file.display()))?;
    let mut environment = Environment::with_prefix("PLATEAU")
        .prefix_separator("__")
        .separator("__")
        .try_parsing(true)
        .list_separator(",");
    for key in LIST_KEYS {
        environment = environment.with_list_parse_key(key);
    }
    let mut builder = Config::builder()
        .add_source(File::from(file).format(FileFormat::Json))
        .add_source(environment.source(env.map(|m| m.into_iter().collect())));
    for set in sets {
        let (key, value) = set.split_once('=').ok_or_else(|| {
            anyhow!("--set {set}: expected KEY=VALUE, e.g. --set measure_seconds=30")
        })?;
        let key = key.trim();
        if key.is_empty() {
            bail!("--set {set}: the key is empty");
        }
        builder = builder
            .set_override(key, parse_value(value.trim()))
            .with_context(|| format!("--set {set}"))?;
    }
    let merged = builder
        .build()
        .with_context(|| format!("{}", file.display()))?;
    // Through JSON, whose numbers keep their kind: `2.5` for an integer is an error, not a
    // silent rounding to 3.
    let mut merged: serde_json::Value = merged
        .try_deserialize()
        .with_context(|| format!("{}", file.display()))?;
    // Environment lists arrive as text: `PLATEAU__BATCH_SIZES=4,8` holds "4" and "8".
    for key in LIST_KEYS {
        for item in merged
            .get_mut(*key)
            .and_then(|v| v.as_array_mut())
            .into_iter()
            .flatten()
        {
            if let Some(n) = item
                .as_str()
                .and_then(|s| s.parse::<serde_json::Number>().ok())
            {
                *item = serde_json::Value::Number(n);
            }
        }
    }
    serde_path_to_error::deserialize::<_, RunConfig>(merged).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            anyhow!("{}: {inner}", file.display())
        } else {
            anyhow!("{}: {path}: {inner}", file.display())
        }
    })
}

/// A `--set` value: JSON when it parses as JSON, else the text itself.
fn parse_value(text: &str) -> Value {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(json) => to_config(json),
        Err(_) => Value::new(None, ValueKind::String(text.to_owned())),
    }
}

fn to_config(json: serde_json::Value) -> Value {
    let kind = match json {
        serde_json::Value::Null => ValueKind::Nil,
        serde_json::Value::Bool(b) => ValueKind::Boolean(b),
        serde_json::Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => ValueKind::I64(i),
            (None, Some(u), _) => ValueKind::U64(u),
            (_, _, f) => ValueKind::Float(f.unwrap_or(f64::NAN)),
        },
        serde_json::Value::String(s) => ValueKind::String(s),
        serde_json::Value::Array(items) => {
            ValueKind::Array(items.into_iter().map(to_config).collect())
        }
        serde_json::Value::Object(map) => {
            ValueKind::Table(map.into_iter().map(|(k, v)| (k, to_config(v))).collect())
        }
    };
    Value::new(None, kind)
}

mod unique;

#[cfg(test)]
mod tests;
