//! A trace scenario's `trace` object: which file in which format, the block size of its
//! `hash_ids`, and the window replayed (`start_s`, `duration_s`, `speedup`); resolved into
//! [`TraceSpec`] with errors naming `trace.<field>`.

use std::path::{Path, PathBuf};

use plateau_model::config::MAX_THINK_S;
use serde::{Deserialize, Serialize};

use super::custom::inside;
use crate::trace::Format;

/// The `trace` setting as written (every field optional, so `scenario_options.<id>.trace`
/// can override one).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSettings {
    /// `mooncake`, `burstgpt`, `azure` or `plateau`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<Format>,
    /// The trace file, relative to the definition's folder (and inside it unless
    /// `allow_outside`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// Lets `path` be absolute or lead out of the definition's folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_outside: Option<bool>,
    /// Prompt tokens per `hash_ids` entry (default 512, Mooncake's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_tokens: Option<u32>,
    /// Replay this many times faster than recorded (default 1; 2 halves every gap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speedup: Option<f64>,
    /// Replay from this many seconds after the trace's first request (trace time; default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_s: Option<f64>,
    /// Replay this many seconds of the trace (trace time; default: to its end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    /// The longest think time between two turns of a trace session in the closed loop,
    /// seconds (default and most: one hour, as the `think` key caps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub think_cap_s: Option<f64>,
}

impl TraceSettings {
    /// These settings with every field set in `over` replaced.
    pub fn overlay(self, over: &TraceSettings) -> TraceSettings {
        let o = over.clone();
        TraceSettings {
            format: o.format.or(self.format),
            path: o.path.or(self.path),
            allow_outside: o.allow_outside.or(self.allow_outside),
            block_tokens: o.block_tokens.or(self.block_tokens),
            speedup: o.speedup.or(self.speedup),
            start_s: o.start_s.or(self.start_s),
            duration_s: o.duration_s.or(self.duration_s),
            think_cap_s: o.think_cap_s.or(self.think_cap_s),
        }
    }
}

/// A trace scenario, resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceSpec {
    /// The file's format.
    pub format: Format,
    /// The file.
    pub path: PathBuf,
    /// Prompt tokens per `hash_ids` entry.
    pub block_tokens: u32,
    /// Replay speed.
    pub speedup: f64,
    /// Start of the window, s of trace time.
    pub start_s: f64,
    /// Length of the window, s of trace time (`None`: to the end).
    pub duration_s: Option<f64>,
    /// The longest think time between turns of a trace session.
    pub think_cap: std::time::Duration,
}

/// Resolves `trace` against the definition's folder `base`; errors name `trace.<field>`.
pub(super) fn resolve(
    trace: Option<&TraceSettings>,
    base: &Path,
) -> Result<TraceSpec, (String, String)> {
    let at = |f: &str| format!("trace.{f}");
    let t = trace.ok_or_else(|| {
        (
            "trace".to_owned(),
            "is required for kind trace: {\"format\": \"mooncake\"|\"burstgpt\"|\"azure\"|\"plateau\", \"path\": \"...\"}".to_owned(),
        )
    })?;
    let format = t.format.ok_or_else(|| {
        (
            at("format"),
            "is required: mooncake, burstgpt, azure or plateau".to_owned(),
        )
    })?;
    let path = match &t.path {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => return Err((at("path"), "is required: the trace file".to_owned())),
    };
    let path = inside(
        path,
        base,
        t.allow_outside.unwrap_or(false),
        "a trace scenario reads its trace",
    )
    .map_err(|m| (at("path"), m))?;
    let block_tokens = t.block_tokens.unwrap_or(512);
    if block_tokens == 0 {
        return Err((at("block_tokens"), "expected at least 1 token".to_owned()));
    }
    let positive = |f: &str, v: f64| -> Result<f64, (String, String)> {
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err((
                at(f),
                format!("{v} is not allowed; expected a number above 0"),
            ))
        }
    };
    let speedup = positive("speedup", t.speedup.unwrap_or(1.0))?;
    let start_s = t.start_s.unwrap_or(0.0);
    if !start_s.is_finite() || start_s < 0.0 {
        return Err((
            at("start_s"),
            format!("{start_s} is not allowed; expected 0 or more seconds"),
        ));
    }
    let duration_s = t
        .duration_s
        .map(|d| positive("duration_s", d))
        .transpose()?;
    let think_cap_s = t.think_cap_s.unwrap_or(MAX_THINK_S);
    if !(0.0..=MAX_THINK_S).contains(&think_cap_s) {
        return Err((
            at("think_cap_s"),
            format!("{think_cap_s} is not allowed; expected 0 to {MAX_THINK_S} seconds"),
        ));
    }
    Ok(TraceSpec {
        format,
        path,
        block_tokens,
        speedup,
        start_s,
        duration_s,
        think_cap: std::time::Duration::from_secs_f64(think_cap_s),
    })
}
