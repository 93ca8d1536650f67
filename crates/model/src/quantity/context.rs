//! What the run's context adds, one constant per quantity: per-GPU throughput and cost
//! (only where the endpoint states its hardware) and the server's own view of Measure (only
//! where its `/metrics` was scraped).

use super::{Quantity, Reading};
use crate::results::cost::Cost;
use crate::results::summary::CellSummary;
use crate::scrape::summary::PhaseServer;

fn cost(s: &CellSummary, f: fn(&Cost) -> Option<f64>) -> Option<Reading> {
    s.cost.as_ref().and_then(f).map(Reading::plain)
}

/// The server's own metrics over Measure, when it was scraped.
fn server(s: &CellSummary) -> Option<&PhaseServer> {
    s.server.as_ref().map(|m| &m.measure)
}

// Hardware and cost (only where the endpoint states them).
quantity!(
    GPU_COUNT,
    "cost.gpu_count",
    "gpu_count",
    "GPUs",
    "",
    Count,
    Neither,
    |s| cost(s, |c| c.gpu_count.map(f64::from))
);
quantity!(
    TPS_PER_GPU,
    "cost.output_tps_per_gpu",
    "output_tps_per_gpu",
    "output per GPU",
    "tok/s",
    Measure,
    Higher,
    |s| { cost(s, |c| c.output_tps_per_gpu) }
);
quantity!(
    COST_PER_HOUR,
    "cost.cost_per_hour",
    "cost_per_hour",
    "cost per hour",
    "USD/h",
    Measure,
    Neither,
    |s| { cost(s, |c| c.cost_per_hour) }
);
quantity!(
    USD_PER_MILLION,
    "cost.usd_per_million_output_tokens",
    "usd_per_million_output_tokens",
    "cost",
    "USD/M out tok",
    Measure,
    Lower,
    |s| { cost(s, |c| c.usd_per_million_output_tokens) }
);

// The server's own view of Measure (only where its /metrics was scraped).
quantity!(
    SERVER_RUNNING_MEAN,
    "server.measure.running.mean",
    "server_running_mean",
    "server running, mean",
    "",
    Measure,
    Neither,
    |s| { server(s)?.running.map(|g| Reading::plain(g.mean)) }
);
quantity!(
    SERVER_WAITING_MEAN,
    "server.measure.waiting.mean",
    "server_waiting_mean",
    "server waiting, mean",
    "",
    Measure,
    Lower,
    |s| { server(s)?.waiting.map(|g| Reading::plain(g.mean)) }
);
quantity!(
    SERVER_WAITING_MAX,
    "server.measure.waiting.max",
    "server_waiting_max",
    "server waiting, max",
    "",
    Measure,
    Lower,
    |s| { server(s)?.waiting.map(|g| Reading::plain(g.max)) }
);
quantity!(
    SERVER_KV_MAX,
    "server.measure.kv_cache_usage.max",
    "server_kv_cache_usage_max",
    "KV cache usage, max",
    "",
    Measure,
    Neither,
    |s| { server(s)?.kv_cache_usage.map(|g| Reading::plain(g.max)) }
);
quantity!(
    SERVER_PREFIX_HIT_RATE,
    "server.measure.prefix_cache_hit_rate",
    "server_prefix_cache_hit_rate",
    "prefix-cache hit rate",
    "",
    Measure,
    Higher,
    |s| { server(s)?.prefix_cache_hit_rate.map(Reading::plain) }
);
quantity!(
    SERVER_PREEMPTIONS,
    "server.measure.preemptions",
    "server_preemptions",
    "preemptions",
    "",
    Count,
    Lower,
    |s| { server(s)?.preemptions.map(Reading::plain) }
);

// The server's `/tokenize` count of the scenario's prompts (where it has the endpoint).
quantity!(
    SERVER_PROMPT_TOKENS_DIFF,
    "token_check.rel_diff",
    "server_prompt_tokens_diff",
    "server tokenizer vs plateau's",
    "",
    Measure,
    Neither,
    |s| { s.token_check.as_ref()?.rel_diff.map(Reading::plain) }
);
quantity!(
    SERVER_CHAT_PROMPT_TOKENS,
    "token_check.templated_tokens_mean",
    "server_chat_prompt_tokens",
    "server's chat prompt tokens",
    "tok",
    Measure,
    Neither,
    |s| {
        s.token_check
            .as_ref()?
            .templated_tokens_mean
            .map(Reading::plain)
    }
);
