//! Server counters and gauges, and their Prometheus text with vLLM's metric names.

use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Counters shared by the HTTP handlers, the streams and the engine (relaxed atomics).
#[derive(Debug, Default)]
pub(crate) struct Metrics {
    /// Sequences running (engine batch, or in-flight requests in the fixed profile).
    pub running: AtomicU64,
    /// Requests in the engine's waiting queue.
    pub waiting: AtomicU64,
    /// KV blocks held by running sequences.
    pub kv_blocks_used: AtomicU64,
    /// Capacity of the KV cache in blocks (the denominator of the usage gauge).
    pub kv_blocks_total: u64,
    /// Prompt tokens looked up in the prefix cache.
    pub cache_queries: AtomicU64,
    /// Prompt tokens found in the prefix cache.
    pub cache_hits: AtomicU64,
    /// Prompt tokens of requests that started generating.
    pub prompt_tokens: AtomicU64,
    /// Completion tokens sent.
    pub generation_tokens: AtomicU64,
    /// Requests finished with `finish_reason: "length"`.
    pub success_length: AtomicU64,
    /// Requests finished with `finish_reason: "stop"`.
    pub success_stop: AtomicU64,
}

/// Counts one in-flight request as running for as long as it lives (fixed profile).
#[derive(Debug)]
pub(crate) struct RunningGuard(Arc<Metrics>);

impl RunningGuard {
    pub(crate) fn new(metrics: &Arc<Metrics>) -> Self {
        metrics.running.fetch_add(1, Relaxed);
        RunningGuard(Arc::clone(metrics))
    }
}

impl Drop for RunningGuard {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Relaxed);
    }
}

impl Metrics {
    /// Metrics for a KV cache of `kv_blocks_total` blocks.
    pub(crate) fn new(kv_blocks_total: u64) -> Self {
        Metrics {
            kv_blocks_total,
            ..Metrics::default()
        }
    }

    /// Records a finished request.
    pub(crate) fn record_success(&self, stopped: bool) {
        let counter = if stopped {
            &self.success_stop
        } else {
            &self.success_length
        };
        counter.fetch_add(1, Relaxed);
    }

    /// Prometheus text exposition (format 0.0.4), every sample labelled with `model_name`.
    pub(crate) fn render(&self, model_name: &str) -> String {
        let label = format!("model_name=\"{}\"", escape_label(model_name));
        let usage = if self.kv_blocks_total == 0 {
            0.0
        } else {
            (self.kv_blocks_used.load(Relaxed) as f64 / self.kv_blocks_total as f64).min(1.0)
        };
        let mut out = String::with_capacity(2048);
        let mut metric = |name: &str, kind: &str, help: &str, samples: &[(&str, f64)]| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
            for (extra, value) in samples {
                let _ = writeln!(out, "{name}{{{extra}{label}}} {value:?}");
            }
        };
        let get = |a: &AtomicU64| a.load(Relaxed) as f64;
        metric(
            "vllm:num_requests_running",
            "gauge",
            "Number of requests in model execution batches.",
            &[("", get(&self.running))],
        );
        metric(
            "vllm:num_requests_waiting",
            "gauge",
            "Number of requests waiting to be processed.",
            &[("", get(&self.waiting))],
        );
        metric(
            "vllm:kv_cache_usage_perc",
            "gauge",
            "KV-cache usage. 1 means 100 percent usage.",
            &[("", usage)],
        );
        metric(
            "vllm:prefix_cache_queries_total",
            "counter",
            "Prefix cache queries, in terms of number of queried tokens.",
            &[("", get(&self.cache_queries))],
        );
        metric(
            "vllm:prefix_cache_hits_total",
            "counter",
            "Prefix cache hits, in terms of number of cached tokens.",
            &[("", get(&self.cache_hits))],
        );
        metric(
            "vllm:prompt_tokens_total",
            "counter",
            "Number of prefill tokens processed.",
            &[("", get(&self.prompt_tokens))],
        );
        metric(
            "vllm:generation_tokens_total",
            "counter",
            "Number of generation tokens processed.",
            &[("", get(&self.generation_tokens))],
        );
        metric(
            "vllm:request_success_total",
            "counter",
            "Count of successfully processed requests.",
            &[
                ("finished_reason=\"length\",", get(&self.success_length)),
                ("finished_reason=\"stop\",", get(&self.success_stop)),
            ],
        );
        out
    }
}

/// Escapes a Prometheus label value.
fn escape_label(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_vllm_names_with_model_label() {
        let m = Arc::new(Metrics::new(100));
        m.kv_blocks_used.store(25, Relaxed);
        m.cache_hits.store(48, Relaxed);
        m.record_success(false);
        let guard = RunningGuard::new(&m);
        let text = m.render("m\"x");
        assert!(text.contains("# TYPE vllm:num_requests_running gauge\n"));
        assert!(text.contains("vllm:num_requests_running{model_name=\"m\\\"x\"} 1.0\n"));
        assert!(text.contains("vllm:kv_cache_usage_perc{model_name=\"m\\\"x\"} 0.25\n"));
        assert!(text.contains("vllm:prefix_cache_hits_total{model_name=\"m\\\"x\"} 48.0\n"));
        assert!(text.contains(
            "vllm:request_success_total{finished_reason=\"length\",model_name=\"m\\\"x\"} 1.0\n"
        ));
        drop(guard);
        assert!(
            m.render("m")
                .contains("vllm:num_requests_running{model_name=\"m\"} 0.0\n")
        );
        assert_eq!(text.matches("# HELP ").count(), 8);
    }
}
