//! A trace scenario's material: the trace read once, cut to its window, and the built-in
//! corpus its prompts are synthesised from.

use std::sync::Arc;

use plateau_core::workload::WorkloadInfo;

use super::{Material, Sources};
use crate::definition::{Scenario, TraceSpec};
use crate::error::ScenarioError;
use crate::trace;
use crate::workload::trace::Timing;

impl Sources<'_> {
    /// The records of the trace's window with their instants, and the corpus.
    pub(super) fn trace(
        &mut self,
        s: &Scenario,
        info: &mut WorkloadInfo,
        spec: &TraceSpec,
    ) -> Result<Material, ScenarioError> {
        let records = trace::read(&spec.path, spec.format)?;
        let all = records.len();
        let window = trace::window(&records, spec.start_s, spec.duration_s, spec.speedup);
        if window.is_empty() {
            return Err(ScenarioError::Definition {
                file: s.origin.clone().into(),
                message: format!(
                    "`trace.start_s` {} and `trace.duration_s` {:?} select none of the {all} requests of {}",
                    spec.start_s,
                    spec.duration_s,
                    spec.path.display()
                ),
            });
        }
        let last = window.last().map_or(0.0, |(at, _)| at.as_secs_f64());
        info.source = format!("{} trace {}", spec.format.as_str(), spec.path.display());
        info.notes.push(format!(
            "{} of {all} requests (trace time {} s from {} s, speedup {}): {last:.1} s of arrivals; prompts synthesised from built-in text in blocks of {} tokens per hash id; each request's max_tokens is its output_length",
            window.len(),
            spec.duration_s.map_or("to the end".to_owned(), |d| d.to_string()),
            spec.start_s,
            spec.speedup,
            spec.block_tokens,
        ));
        let sessions: std::collections::HashSet<&str> = window
            .iter()
            .filter_map(|(_, r)| r.session_id.as_deref())
            .collect();
        if !sessions.is_empty() {
            info.notes.push(format!(
                "{} sessions named by session_id: in the closed loop a slot replays one session's turns in order, waiting each turn's delay_ms (else the gap since the previous turn's arrival) divided by the speedup, at most {} s",
                sessions.len(),
                spec.think_cap.as_secs_f64()
            ));
        }
        Ok(Material::Trace {
            corpus: self.builtin(),
            window: Arc::new(window),
            timing: Timing {
                block_tokens: spec.block_tokens,
                speedup: spec.speedup,
                think_cap: spec.think_cap,
            },
        })
    }
}
