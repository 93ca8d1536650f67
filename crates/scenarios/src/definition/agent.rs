//! An agent scenario's `agent` object (E): the shape of its synthetic sessions, every
//! field optional over the documented defaults ([`AgentShape::default`]), so
//! `scenario_options.<id>.agent` can override one; resolved with errors naming
//! `agent.<field>`.

use serde::{Deserialize, Serialize};

use crate::workload::agent::AgentShape;

/// The `agent` setting as written.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSettings {
    /// The system prompt every session shares, tokens (default 3000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_tokens: Option<u32>,
    /// Each session's task, tokens (default 200).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_tokens: Option<u32>,
    /// Turns of a session (default 6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turns: Option<u32>,
    /// Each tool result's length, drawn uniformly from `[min, max]` tokens (default
    /// `[200, 2000]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_result_tokens: Option<[u32; 2]>,
    /// Every turn's `max_tokens` (default 128).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_tokens: Option<u32>,
    /// Sub-agents the fan-out turn spawns (default 3; 0: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fan_out: Option<u32>,
    /// The turn (from 0) that fans out (default 1); it must come before the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fan_out_turn: Option<u32>,
    /// Turns of each sub-agent (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_turns: Option<u32>,
    /// A sub-agent's task, tokens (default 150).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_task_tokens: Option<u32>,
}

impl AgentSettings {
    /// These settings with every field set in `over` replaced.
    pub fn overlay(self, over: &AgentSettings) -> AgentSettings {
        let o = over.clone();
        AgentSettings {
            system_tokens: o.system_tokens.or(self.system_tokens),
            task_tokens: o.task_tokens.or(self.task_tokens),
            turns: o.turns.or(self.turns),
            tool_result_tokens: o.tool_result_tokens.or(self.tool_result_tokens),
            reply_tokens: o.reply_tokens.or(self.reply_tokens),
            fan_out: o.fan_out.or(self.fan_out),
            fan_out_turn: o.fan_out_turn.or(self.fan_out_turn),
            child_turns: o.child_turns.or(self.child_turns),
            child_task_tokens: o.child_task_tokens.or(self.child_task_tokens),
        }
    }
}

/// The most sub-agents one turn may spawn.
const MAX_FAN_OUT: u32 = 64;

/// Resolves `agent` over the defaults; errors name `agent.<field>`.
pub(super) fn resolve(agent: Option<&AgentSettings>) -> Result<AgentShape, (String, String)> {
    let a = agent.cloned().unwrap_or_default();
    let d = AgentShape::default();
    let at = |f: &str| format!("agent.{f}");
    let tokens = |f: &str, v: Option<u32>, default: u32| -> Result<u32, (String, String)> {
        match v.unwrap_or(default) {
            n @ 1..=1_000_000 => Ok(n),
            n => Err((at(f), format!("{n} is not allowed; expected 1 to 1000000"))),
        }
    };
    let (low, high) = match a.tool_result_tokens {
        Some([low, high]) if low == 0 || low > high || high > 1_000_000 => {
            return Err((
                at("tool_result_tokens"),
                format!(
                    "[{low}, {high}] is not allowed; expected [min, max] with 1 <= min <= max <= 1000000"
                ),
            ));
        }
        Some([low, high]) => (low, high),
        None => d.tool_result_tokens,
    };
    let shape = AgentShape {
        system_tokens: tokens("system_tokens", a.system_tokens, d.system_tokens)?,
        task_tokens: tokens("task_tokens", a.task_tokens, d.task_tokens)?,
        turns: tokens("turns", a.turns, d.turns)?,
        tool_result_tokens: (low, high),
        reply_tokens: tokens("reply_tokens", a.reply_tokens, d.reply_tokens)?,
        fan_out: a.fan_out.unwrap_or(d.fan_out),
        fan_out_turn: a.fan_out_turn.unwrap_or(d.fan_out_turn),
        child_turns: tokens("child_turns", a.child_turns, d.child_turns)?,
        child_task_tokens: tokens(
            "child_task_tokens",
            a.child_task_tokens,
            d.child_task_tokens,
        )?,
    };
    if shape.fan_out > MAX_FAN_OUT {
        return Err((
            at("fan_out"),
            format!(
                "{} is not allowed; expected 0 to {MAX_FAN_OUT} sub-agents",
                shape.fan_out
            ),
        ));
    }
    if shape.fan_out > 0 && shape.fan_out_turn + 1 >= shape.turns {
        return Err((
            at("fan_out_turn"),
            format!(
                "{} is not before the last of {} turns: the parent must have a turn after the join",
                shape.fan_out_turn, shape.turns
            ),
        ));
    }
    Ok(shape)
}
