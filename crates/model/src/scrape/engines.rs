//! One mapping table per engine: which Prometheus series is each quantity plateau
//! summarizes. Names come from the engines' sources (vLLM `vllm/v1/metrics/loggers.py`,
//! SGLang `python/sglang/srt/metrics/collector.py`, TGI `router/src/server.rs` and
//! `backends/v3`, llama.cpp `tools/server` `/metrics`); a quantity an engine does not expose
//! is an empty list, and the summary names it absent. Candidates are tried in order (a
//! renamed metric keeps working with older servers).

use crate::config::Engine;

/// How an engine exposes KV-cache usage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KvUsage {
    /// A gauge already in 0..=1.
    Fraction(&'static [&'static str]),
    /// Used / capacity, two gauges (TGI: tokens of the current batch / the batch budget).
    Ratio {
        /// The numerator gauge.
        used: &'static str,
        /// The denominator gauge.
        total: &'static str,
    },
    /// Not exposed.
    Absent,
}

/// Which series is which quantity, for one engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Table {
    /// The engine family (`vllm`, `sglang`, `tgi`, `llamacpp`), as `summary.json` names it.
    pub name: &'static str,
    /// Requests in the running batch (gauge).
    pub running: &'static [&'static str],
    /// Requests queued in the server (gauge).
    pub waiting: &'static [&'static str],
    /// KV-cache usage.
    pub kv_usage: KvUsage,
    /// Prompt tokens looked up in the prefix cache (counter).
    pub prefix_queries: &'static [&'static str],
    /// Prompt tokens found in the prefix cache (counter).
    pub prefix_hits: &'static [&'static str],
    /// Requests preempted (counter).
    pub preemptions: &'static [&'static str],
    /// Prompt tokens processed (counter, or a histogram's `_sum`).
    pub prompt_tokens: &'static [&'static str],
    /// Tokens generated (counter, or a histogram's `_sum`).
    pub generation_tokens: &'static [&'static str],
    /// TTFT histogram, seconds (base name, without `_bucket`).
    pub ttft: &'static [&'static str],
    /// Time per output token (or inter-token latency) histogram, seconds (base name).
    pub tpot: &'static [&'static str],
}

/// vLLM (also NVIDIA NIM's vLLM backend and plateau's simulator).
pub const VLLM: Table = Table {
    name: "vllm",
    running: &["vllm:num_requests_running"],
    waiting: &["vllm:num_requests_waiting"],
    kv_usage: KvUsage::Fraction(&["vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"]),
    prefix_queries: &[
        "vllm:prefix_cache_queries_total",
        "vllm:gpu_prefix_cache_queries_total",
    ],
    prefix_hits: &[
        "vllm:prefix_cache_hits_total",
        "vllm:gpu_prefix_cache_hits_total",
    ],
    preemptions: &["vllm:num_preemptions_total"],
    prompt_tokens: &["vllm:prompt_tokens_total"],
    generation_tokens: &["vllm:generation_tokens_total"],
    ttft: &["vllm:time_to_first_token_seconds"],
    tpot: &[
        "vllm:time_per_output_token_seconds",
        "vllm:inter_token_latency_seconds",
    ],
};

/// SGLang. Its prefix-cache counters are cached prompt tokens over prompt tokens.
pub const SGLANG: Table = Table {
    name: "sglang",
    running: &["sglang:num_running_reqs"],
    waiting: &["sglang:num_queue_reqs"],
    kv_usage: KvUsage::Fraction(&["sglang:token_usage"]),
    prefix_queries: &["sglang:prompt_tokens_total"],
    prefix_hits: &["sglang:cached_tokens_total"],
    // Retracted requests (SGLang's preemption) as a counter; the older
    // `sglang:num_retracted_reqs` is a gauge of the last batch, not a count.
    preemptions: &["sglang:num_retracted_requests_total"],
    prompt_tokens: &["sglang:prompt_tokens_total"],
    generation_tokens: &["sglang:generation_tokens_total"],
    ttft: &["sglang:time_to_first_token_seconds"],
    tpot: &["sglang:inter_token_latency_seconds"],
};

/// Hugging Face TGI: token counts are the `_sum`s of its per-request histograms.
pub const TGI: Table = Table {
    name: "tgi",
    running: &["tgi_batch_current_size"],
    waiting: &["tgi_queue_size"],
    kv_usage: KvUsage::Ratio {
        used: "tgi_batch_current_max_tokens",
        total: "tgi_batch_max_total_tokens",
    },
    prefix_queries: &[],
    prefix_hits: &[],
    preemptions: &[],
    prompt_tokens: &["tgi_request_input_length_sum"],
    generation_tokens: &["tgi_request_generated_tokens_sum"],
    ttft: &[],
    tpot: &["tgi_request_mean_time_per_token_duration"],
};

/// llama.cpp's `llama-server --metrics`: slots processing and requests deferred (no free
/// slot); KV usage only in older builds.
pub const LLAMACPP: Table = Table {
    name: "llamacpp",
    running: &["llamacpp:requests_processing"],
    waiting: &["llamacpp:requests_deferred"],
    kv_usage: KvUsage::Fraction(&["llamacpp:kv_cache_usage_ratio"]),
    prefix_queries: &[],
    prefix_hits: &[],
    preemptions: &[],
    prompt_tokens: &["llamacpp:prompt_tokens_total"],
    generation_tokens: &["llamacpp:tokens_predicted_total"],
    ttft: &[],
    tpot: &[],
};

/// Every table, in the order an unknown engine tries them.
pub const ALL: [&Table; 4] = [&VLLM, &SGLANG, &TGI, &LLAMACPP];

/// The table of `engine`; `None` when the engine is not known (`openai`): then
/// [`detect`] picks one from the names a server exposes.
pub fn of(engine: Engine) -> Option<&'static Table> {
    match engine {
        Engine::Vllm | Engine::Nim | Engine::Sim => Some(&VLLM),
        Engine::Sglang => Some(&SGLANG),
        Engine::Tgi => Some(&TGI),
        Engine::Llamacpp => Some(&LLAMACPP),
        Engine::Openai => None,
    }
}

/// The table named `name` (as `summary.json`'s `server.engine` records it).
pub fn by_name(name: &str) -> Option<&'static Table> {
    ALL.into_iter().find(|t| t.name == name)
}

/// The table whose running or waiting gauge appears among `names`, if any.
pub fn detect(mut names: impl FnMut(&str) -> bool) -> Option<&'static Table> {
    ALL.into_iter()
        .find(|t| t.running.iter().chain(t.waiting).any(|n| names(n)))
}

impl Table {
    /// Whether a sample named `name` belongs to a series this table maps (histograms with
    /// their `_bucket`, `_sum` and `_count`).
    pub fn wants(&self, name: &str) -> bool {
        let flat = [
            self.running,
            self.waiting,
            self.prefix_queries,
            self.prefix_hits,
            self.preemptions,
            self.prompt_tokens,
            self.generation_tokens,
        ];
        if flat.iter().any(|list| list.contains(&name)) {
            return true;
        }
        let kv = match self.kv_usage {
            KvUsage::Fraction(names) => names.contains(&name),
            KvUsage::Ratio { used, total } => name == used || name == total,
            KvUsage::Absent => false,
        };
        kv || self.ttft.iter().chain(self.tpot).any(|base| {
            name.strip_prefix(base)
                .is_some_and(|s| matches!(s, "_bucket" | "_sum" | "_count"))
        })
    }

    /// The quantities this engine does not expose, by their `summary.json` names.
    pub fn absent(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        let mut check = |list: &[&str], name| {
            if list.is_empty() {
                out.push(name);
            }
        };
        check(self.running, "running");
        check(self.waiting, "waiting");
        check(self.prefix_hits, "prefix_cache_hit_rate");
        check(self.preemptions, "preemptions");
        check(self.prompt_tokens, "prompt_tokens_per_s");
        check(self.generation_tokens, "generation_tokens_per_s");
        check(self.ttft, "ttft_s");
        check(self.tpot, "tpot_s");
        if self.kv_usage == KvUsage::Absent {
            out.push("kv_cache_usage");
        }
        out
    }
}
