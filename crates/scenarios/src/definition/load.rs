//! Reading definitions: the embedded defaults, then every `*.json` in `scenarios_dir`
//! (overriding a default of the same id), each checked on its own; then `scenario_options`
//! applied on top, with errors naming `scenario_options.<id>.<field>`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::defaults;
use super::{Header, Scenario, Settings};
use crate::error::ScenarioError;

/// Header keys of a definition file; every other key is a setting.
const HEADER_KEYS: &[&str] = &["id", "name", "description", "kind", "caching"];

/// The definitions of a run, resolved with its options.
#[derive(Debug)]
pub struct Definitions {
    /// By id.
    pub scenarios: BTreeMap<String, Scenario>,
}

struct Raw {
    header: Header,
    settings: Settings,
    file: PathBuf,
    base: PathBuf,
}

impl Raw {
    /// Parses one definition's text; `file` names it in errors.
    fn parse(file: PathBuf, text: &str, base: &Path) -> Result<Raw, ScenarioError> {
        let (header, settings) = parse(text).map_err(|message| ScenarioError::Definition {
            file: file.clone(),
            message,
        })?;
        Ok(Raw {
            header,
            settings,
            file,
            base: base.to_owned(),
        })
    }
}

/// Loads the definitions from the embedded defaults and `dir` (none: the defaults alone),
/// then applies `options`. A `dir` that is not a folder is an error: the user named it.
pub fn load(
    dir: Option<&Path>,
    options: &BTreeMap<String, Value>,
) -> Result<Definitions, ScenarioError> {
    let mut raws: BTreeMap<String, Raw> = BTreeMap::new();
    let base = dir.unwrap_or(Path::new("."));
    for (name, text) in defaults::FILES {
        let raw = Raw::parse(PathBuf::from(format!("built-in {name}")), text, base)?;
        raws.insert(raw.header.id.clone(), raw);
    }
    if let Some(dir) = dir {
        for raw in read_folder(dir)? {
            raws.insert(raw.header.id.clone(), raw);
        }
    }
    for raw in raws.values() {
        resolve(raw, &Settings::default(), None)?;
    }
    let known = || raws.keys().cloned().collect::<Vec<_>>().join(", ");
    let mut overrides = BTreeMap::new();
    for (id, value) in options {
        if !raws.contains_key(id) {
            return Err(ScenarioError::config(
                format!("scenario_options.{id}"),
                format!("no scenario `{id}`; known: {}", known()),
            ));
        }
        let field = format!("scenario_options.{id}");
        overrides.insert(
            id.clone(),
            from_value::<Settings>(value.clone())
                .map_err(|(path, m)| ScenarioError::config(join(&field, &path), m))?,
        );
    }
    let mut scenarios = BTreeMap::new();
    for (id, raw) in &raws {
        let over = overrides.get(id).cloned().unwrap_or_default();
        scenarios.insert(id.clone(), resolve(raw, &over, Some(id))?);
    }
    Ok(Definitions { scenarios })
}

/// Every `*.json` definition in `dir`, each named after its id.
fn read_folder(dir: &Path) -> Result<Vec<Raw>, ScenarioError> {
    if !dir.is_dir() {
        return Err(ScenarioError::config(
            "scenarios_dir",
            format!(
                "{} is not a folder (it should hold scenario definition files, `<id>.json`)",
                dir.display()
            ),
        ));
    }
    let mut raws = Vec::new();
    for file in json_files(dir)? {
        let text = std::fs::read_to_string(&file).map_err(|e| ScenarioError::io(&file, e))?;
        let raw = Raw::parse(file.clone(), &text, dir)?;
        let header = &raw.header;
        let err = |message: String| ScenarioError::Definition {
            file: file.clone(),
            message,
        };
        let stem = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if header.id != stem {
            return Err(err(format!(
                "`id`: `{}` must match the file name (`{stem}.json`)",
                header.id
            )));
        }
        if !valid_id(&header.id) {
            return Err(err(format!(
                "`id`: `{}` must be letters, digits, `.`, `_` or `-` (it names a results directory)",
                header.id
            )));
        }
        raws.push(raw);
    }
    Ok(raws)
}

/// Resolves `raw` with `over`; errors name the option (`scenario_options.<id>.<field>`) when
/// the field was overridden, else the file.
fn resolve(raw: &Raw, over: &Settings, id: Option<&str>) -> Result<Scenario, ScenarioError> {
    let settings = raw.settings.clone().overlay(over);
    Scenario::resolve(
        raw.header.clone(),
        &settings,
        &raw.base,
        raw.file.display().to_string(),
    )
    .map_err(|(field, message)| match id {
        Some(id)
            if over
                .present()
                .contains(&field.split('.').next().unwrap_or_default()) =>
        {
            ScenarioError::config(format!("scenario_options.{id}.{field}"), message)
        }
        _ => ScenarioError::Definition {
            file: raw.file.clone(),
            message: format!("`{field}` {message}"),
        },
    })
}

/// Parses a definition file's text into its header and settings.
pub fn parse(text: &str) -> Result<(Header, Settings), String> {
    let map: Map<String, Value> = serde_json::from_str(text).map_err(|e| {
        format!("expected a JSON object with id, name, description, kind and settings: {e}")
    })?;
    let (head, rest): (Map<String, Value>, Map<String, Value>) = map
        .into_iter()
        .partition(|(k, _)| HEADER_KEYS.contains(&k.as_str()));
    let header: Header = from_value(Value::Object(head))
        .map_err(|(p, m)| format!("`{}`: {m}", if p.is_empty() { "." } else { &p }))?;
    let settings: Settings = from_value(Value::Object(rest))
        .map_err(|(p, m)| format!("`{}`: {m}", if p.is_empty() { "." } else { &p }))?;
    Ok((header, settings))
}

/// Deserializes `value`, returning the path of the offending field (`lang[0]`) and the message.
fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, (String, String)> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        (path, e.into_inner().to_string())
    })
}

fn join(prefix: &str, path: &str) -> String {
    if path.is_empty() {
        prefix.to_owned()
    } else {
        format!("{prefix}.{path}")
    }
}

fn json_files(dir: &Path) -> Result<Vec<PathBuf>, ScenarioError> {
    let entries = std::fs::read_dir(dir).map_err(|e| ScenarioError::io(dir, e))?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| ScenarioError::io(dir, e))?.path();
        if path.extension().is_some_and(|e| e == "json") && path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Whether `id` can name a results directory.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id != "."
        && id != ".."
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
}

#[cfg(test)]
mod tests;
