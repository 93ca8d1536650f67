//! Loads `benchmark_config.json` with the `config` crate: the file, then `PLATEAU__KEY`
//! environment variables (`__` separates nesting, lists comma-separated), then `--set
//! key=value` overrides in command-line order ([`set`]); decodes it into [`RunConfig`] with
//! unknown keys rejected and every error naming its source ([`Origins`]: the file, the
//! variable or the `--set`) and the key path. Without `--config`, [`Source`] picks
//! `benchmark_config.json` in the current directory, else the copy built into the binary.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, anyhow, bail};
use config::{Config, Environment, File, FileFormat};
use plateau_model::config::RunConfig;

pub use origin::Origins;

/// Keys whose environment values are comma-separated lists.
const LIST_KEYS: &[&str] = &["batch_sizes", "request_rates", "scenarios"];

/// The environment variables read, `PLATEAU__SECTION__KEY`.
const ENV_PREFIX: &str = "PLATEAU__";

/// A decoded configuration and where its values came from.
#[derive(Debug)]
pub struct Loaded {
    /// The configuration.
    pub config: RunConfig,
    /// The source of each value, for naming it in later errors.
    pub origins: Origins,
    /// The keys given (by the file, the environment and `--set`), before defaults fill
    /// in the rest: what `--url` shows and `--save-config` writes.
    pub given: serde_json::Value,
}

/// The config file read when neither `--config` nor `--url` is given.
pub const DEFAULT_FILE: &str = "benchmark_config.json";

/// The repository's `benchmark_config.json`, built in: what runs where there is no file.
pub const BUILT_IN: &str = include_str!("../benchmark_config.json");

/// Where a command's configuration comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source<'a> {
    /// A file: `--config`, or `benchmark_config.json` in the current directory.
    File(&'a Path),
    /// [`BUILT_IN`]: no `--config` and no `benchmark_config.json` here.
    BuiltIn,
}

impl<'a> Source<'a> {
    /// `given` (`--config`), else `benchmark_config.json` when the current directory has
    /// one, else the built-in default.
    pub fn of(given: Option<&'a Path>) -> Source<'a> {
        match given {
            Some(path) => Source::File(path),
            None if Path::new(DEFAULT_FILE).is_file() => Source::File(Path::new(DEFAULT_FILE)),
            None => Source::BuiltIn,
        }
    }

    /// How errors and `run.json` name it.
    pub fn name(&self) -> String {
        match self {
            Source::File(path) => path.display().to_string(),
            Source::BuiltIn => format!("{DEFAULT_FILE} (built in)"),
        }
    }

    /// Reads it, with `sets` and the environment applied (see [`load_text`]).
    pub fn load(
        &self,
        sets: &[String],
        env: Option<HashMap<String, String>>,
    ) -> anyhow::Result<Loaded> {
        match self {
            Source::File(path) => load(path, sets, env),
            Source::BuiltIn => load_text(BUILT_IN, Path::new(&self.name()), sets, env),
        }
    }
}

/// Reads the configuration. `env` replaces the process environment (tests).
pub fn load(
    file: &Path,
    sets: &[String],
    env: Option<HashMap<String, String>>,
) -> anyhow::Result<Loaded> {
    if !file.is_file() {
        bail!(
            "{}: no such config file (pass --config PATH, or --url and --model for a first \
             look without one)",
            file.display()
        );
    }
    let text = std::fs::read_to_string(file).with_context(|| format!("{}", file.display()))?;
    load_text(&text, file, sets, env)
}

/// Reads the configuration from `text`, named `file` in errors (a path, or what built it).
pub fn load_text(
    text: &str,
    file: &Path,
    sets: &[String],
    env: Option<HashMap<String, String>>,
) -> anyhow::Result<Loaded> {
    unique::check(text).map_err(|e| anyhow!("{}: {e}", file.display()))?;
    load_source(File::from_str(text, FileFormat::Json), file, sets, env)
}

/// Reads the configuration from `value`, a config already built as JSON (`--url` and its
/// flags), named `file` in errors, with the same environment and `--set` overrides as a
/// file: no text in between.
pub fn load_value(
    value: &serde_json::Value,
    file: &Path,
    sets: &[String],
    env: Option<HashMap<String, String>>,
) -> anyhow::Result<Loaded> {
    let built = Config::try_from(value).with_context(|| format!("{}", file.display()))?;
    load_source(built, file, sets, env)
}

/// The configuration from `source` (named `file`), with the environment (`env`, else the
/// process's) over it and then `sets`, decoded with every error naming its source.
fn load_source(
    source: impl config::Source + Send + Sync + 'static,
    file: &Path,
    sets: &[String],
    env: Option<HashMap<String, String>>,
) -> anyhow::Result<Loaded> {
    let mut origins = Origins::new(file);
    let env: Vec<(String, String)> = match env {
        Some(map) => map.into_iter().collect(),
        None => std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect(),
    };
    for (name, _) in &env {
        if let Some(key) = env_key(name) {
            origins.record(&key, &format!("{name} (environment)"));
        }
    }
    let mut merged = with_environment(source, env, file)?;
    for arg in sets {
        apply_set(&mut merged, arg, &mut origins)?;
    }
    let given = merged.clone();
    let config = serde_path_to_error::deserialize::<_, RunConfig>(merged).map_err(|e| {
        // The path ends at an unknown key itself (`endpoints[0].urll`), so its source is found.
        let path = e.path().to_string();
        let inner = e.into_inner();
        if path == "." {
            anyhow!(origins.blame(&path, inner))
        } else {
            anyhow!(origins.blame(&path, format!("{path}: {inner}")))
        }
    })?;
    Ok(Loaded {
        config,
        origins,
        given,
    })
}

/// `source` with the `PLATEAU__` variables of `env` over it, as JSON.
fn with_environment(
    source: impl config::Source + Send + Sync + 'static,
    env: Vec<(String, String)>,
    file: &Path,
) -> anyhow::Result<serde_json::Value> {
    let mut environment = Environment::with_prefix("PLATEAU")
        .prefix_separator("__")
        .separator("__")
        .try_parsing(true)
        .list_separator(",");
    for key in LIST_KEYS {
        environment = environment.with_list_parse_key(key);
    }
    let merged = Config::builder()
        .add_source(source)
        .add_source(environment.source(Some(env.into_iter().collect())))
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
    Ok(merged)
}

/// Applies one `--set key=value` to `merged`, recording it as the source of what it wrote.
fn apply_set(
    merged: &mut serde_json::Value,
    arg: &str,
    origins: &mut Origins,
) -> anyhow::Result<()> {
    let (key, value) = arg
        .split_once('=')
        .ok_or_else(|| anyhow!("--set {arg}: expected KEY=VALUE, e.g. --set measure_seconds=30"))?;
    let source = format!("--set {arg}");
    let path = set::KeyPath::parse(key.trim()).map_err(|e| anyhow!("{source}: {e}"))?;
    let written = set::apply(merged, &path, set::parse_value(value.trim()))
        .map_err(|e| anyhow!("{source}: {e}"))?;
    for key in written {
        origins.record(&key, &source);
    }
    Ok(())
}

/// The key path `PLATEAU__SLO__TTFT_MS` sets (`slo.ttft_ms`), as the `config` crate reads it.
fn env_key(name: &str) -> Option<String> {
    let lower = name.to_lowercase();
    let rest = lower.strip_prefix(&ENV_PREFIX.to_lowercase())?;
    Some(rest.replace("__", "."))
}

mod origin;
mod set;
mod unique;

#[cfg(test)]
mod tests;
