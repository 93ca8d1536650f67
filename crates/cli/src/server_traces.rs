//! `server_traces` at the start of `plateau run`: the span receiver started before
//! preflight, its address printed for the engines' `--otlp-traces-endpoint`, and every
//! in-process simulator pointed at it.

use plateau_core::plan::Plan;
use plateau_core::server_traces::Spans;
use plateau_model::config::{Engine, RunConfig};
use plateau_sim::SimConfig;

use crate::exit::{BadInput as _, Failure};

/// Starts the receiver `config.server_traces` asks for (`None` when it is off) and points
/// the in-process simulators without an exporter endpoint of their own at it.
pub fn start(
    config: &RunConfig,
    plan: &Plan,
    sims: &mut [Option<SimConfig>],
) -> Result<Option<Spans>, Failure> {
    let Some(traces) = &config.server_traces else {
        return Ok(None);
    };
    let spans = Spans::start(traces).bad_input()?;
    println!("OTLP/HTTP span receiver: {}", spans.url());
    for sim in sims.iter_mut().flatten() {
        sim.export_spans_to(&spans.url());
    }
    for e in plan
        .endpoints
        .iter()
        .filter(|e| e.engine == Engine::Llamacpp)
    {
        tracing::warn!(
            "endpoint {}: llama.cpp exports no spans; its `timings` are read from its \
             responses without `server_traces`",
            e.name
        );
    }
    Ok(Some(spans))
}
