//! Server counters, gauges and histograms, and their Prometheus text with vLLM's metric
//! names and buckets (vLLM `vllm/v1/metrics/loggers.py`).

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
    /// Time to first token of streamed requests, from the stream's start.
    pub ttft: Histogram,
    /// Time per output token of streamed requests with two tokens or more.
    pub tpot: Histogram,
}

/// vLLM's `vllm:time_to_first_token_seconds` buckets, seconds.
pub(crate) const TTFT_BUCKETS: &[f64] = &[
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
    20.0, 40.0, 80.0, 160.0, 640.0, 2560.0,
];

/// vLLM's `vllm:time_per_output_token_seconds` buckets, seconds.
pub(crate) const TPOT_BUCKETS: &[f64] = &[
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0,
    40.0, 80.0,
];

/// A Prometheus histogram of seconds: a count per bucket (the last is `+Inf`) and the sum
/// in nanoseconds (relaxed atomics).
#[derive(Debug)]
pub(crate) struct Histogram {
    bounds: &'static [f64],
    counts: Vec<AtomicU64>,
    sum_ns: AtomicU64,
}

impl Histogram {
    /// An empty histogram with these upper bounds.
    pub(crate) fn new(bounds: &'static [f64]) -> Self {
        Histogram {
            bounds,
            counts: (0..=bounds.len()).map(|_| AtomicU64::new(0)).collect(),
            sum_ns: AtomicU64::new(0),
        }
    }

    /// Counts one observation of `seconds`.
    pub(crate) fn observe(&self, seconds: f64) {
        let i = self.bounds.partition_point(|&b| b < seconds);
        self.counts[i].fetch_add(1, Relaxed);
        self.sum_ns.fetch_add((seconds * 1e9) as u64, Relaxed);
    }

    /// `name_bucket` (cumulative, `le` last among the labels), `name_count`, `name_sum`.
    fn render(&self, out: &mut String, name: &str, help: &str, label: &str) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} histogram");
        let mut cumulative = 0;
        for (i, count) in self.counts.iter().enumerate() {
            cumulative += count.load(Relaxed);
            let le = self
                .bounds
                .get(i)
                .map_or_else(|| "+Inf".to_owned(), |b| format!("{b:?}"));
            let _ = writeln!(
                out,
                "{name}_bucket{{{label},le=\"{le}\"}} {:?}",
                cumulative as f64
            );
        }
        let _ = writeln!(out, "{name}_count{{{label}}} {:?}", cumulative as f64);
        let sum = self.sum_ns.load(Relaxed) as f64 / 1e9;
        let _ = writeln!(out, "{name}_sum{{{label}}} {sum:?}");
    }
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram::new(&[])
    }
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
            ttft: Histogram::new(TTFT_BUCKETS),
            tpot: Histogram::new(TPOT_BUCKETS),
            ..Metrics::default()
        }
    }

    /// Records a streamed request's TTFT and, with two tokens or more, its time per output
    /// token, in seconds.
    pub(crate) fn record_timing(&self, ttft: f64, tpot: Option<f64>) {
        self.ttft.observe(ttft);
        if let Some(t) = tpot {
            self.tpot.observe(t);
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
        let blocks = format!("num_gpu_blocks=\"{}\",", self.kv_blocks_total);
        metric(
            "vllm:cache_config_info",
            "gauge",
            "Information of the LLMEngine CacheConfig",
            &[(blocks.as_str(), 1.0)],
        );
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
        metric(
            "vllm:num_preemptions_total",
            "counter",
            "Cumulative number of preemption from the engine (the simulator never preempts).",
            &[("", 0.0)],
        );
        self.ttft.render(
            &mut out,
            "vllm:time_to_first_token_seconds",
            "Histogram of time to first token in seconds.",
            &label,
        );
        self.tpot.render(
            &mut out,
            "vllm:time_per_output_token_seconds",
            "Histogram of time per output token in seconds.",
            &label,
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
        assert_eq!(text.matches("# HELP ").count(), 12);
    }

    #[test]
    fn histograms_render_vllm_buckets_cumulatively() {
        let m = Metrics::new(1);
        m.record_timing(0.003, Some(0.02));
        m.record_timing(0.1, None);
        m.record_timing(3000.0, Some(0.02));
        let text = m.render("m");
        let line =
            |name: &str, le: &str| format!("vllm:{name}_bucket{{model_name=\"m\",le=\"{le}\"}} ");
        for (le, n) in [
            ("0.001", 0),
            ("0.005", 1),
            ("0.08", 1),
            ("0.1", 2),
            ("2560.0", 2),
            ("+Inf", 3),
        ] {
            let want = format!(
                "{}{:?}\n",
                line("time_to_first_token_seconds", le),
                f64::from(n)
            );
            assert!(text.contains(&want), "{want}");
        }
        assert!(text.contains("vllm:time_to_first_token_seconds_count{model_name=\"m\"} 3.0\n"));
        assert!(text.contains("vllm:time_to_first_token_seconds_sum{model_name=\"m\"} 3000.103\n"));
        assert!(text.contains(&format!(
            "{}2.0\n",
            line("time_per_output_token_seconds", "0.025")
        )));
        assert!(text.contains(&format!(
            "{}0.0\n",
            line("time_per_output_token_seconds", "0.01")
        )));
        assert_eq!(
            text.matches("vllm:time_to_first_token_seconds_bucket")
                .count(),
            23
        );
        assert_eq!(
            text.matches("vllm:time_per_output_token_seconds_bucket")
                .count(),
            20
        );
        assert!(text.contains("vllm:num_preemptions_total{model_name=\"m\"} 0.0\n"));
    }
}
