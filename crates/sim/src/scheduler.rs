//! The engine's pure core: FIFO admission, chunked prefill, per-step emission, step time.
//!
//! No clocks or channels here: `engine` calls `plan` (admit and assign this step's prefill
//! work), sleeps `step_time`, then calls `finish_step`, which emits one token per decoding
//! sequence and the first token of each sequence whose prefill completed in the step.

use std::collections::VecDeque;
use std::time::Duration;

use crate::config::EngineConfig;
use crate::prefix_cache::PrefixCache;

/// A request handed to the engine; `sink` receives its tokens.
#[derive(Debug)]
pub(crate) struct Request<S> {
    /// Prompt length in tokens.
    pub prompt_len: u32,
    /// Chained hashes of the prompt's full blocks (empty without prefix caching).
    pub block_hashes: Vec<u64>,
    /// Completion tokens to generate before the request finishes.
    pub output_len: u32,
    /// Where tokens go; `emit` returning false means the client is gone.
    pub sink: S,
}

#[derive(Debug)]
struct Seq<S> {
    req: Request<S>,
    /// Prompt tokens computed so far (cached ones included).
    computed: u32,
    /// Prompt tokens prefilled in the current step.
    chunk: u32,
    emitted: u32,
}

/// The work of one step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct StepPlan {
    /// Sequences in the running batch.
    pub running: usize,
    /// Prompt tokens prefilled in this step.
    pub prefill_tokens: u32,
    /// Attention work of this step's prefill: each prefilled token times the context before
    /// it, in thousands of token pairs.
    pub prefill_context_ktokens: f64,
    /// Context of the decoding sequences (prompt plus output so far), in thousands of tokens.
    pub decode_context_ktokens: f64,
}

/// Waiting queue, running batch and prefix cache.
#[derive(Debug)]
pub(crate) struct Scheduler<S> {
    config: EngineConfig,
    cache: PrefixCache,
    waiting: VecDeque<Request<S>>,
    running: Vec<Seq<S>>,
    /// Prompt tokens looked up in the prefix cache.
    pub cache_queries: u64,
    /// Prompt tokens found in the prefix cache.
    pub cache_hits: u64,
}

/// Duration of a step: `decode_base + decode_per_seq * running + prefill_us * tokens` plus the
/// attention terms (prefill tokens x context, decode context), times `1 + noise * z` (z a
/// standard normal draw), the factor clamped to at least 0.1.
pub(crate) fn step_time(config: &EngineConfig, plan: StepPlan, z: f64) -> Duration {
    let ms = config.decode_base_ms
        + config.decode_per_seq_ms * plan.running as f64
        + config.prefill_us_per_token * f64::from(plan.prefill_tokens) / 1000.0
        + config.prefill_attention_us_per_ktoken * plan.prefill_context_ktokens / 1000.0
        + config.decode_us_per_ktoken * plan.decode_context_ktokens / 1000.0;
    let factor = (1.0 + config.noise * z).max(0.1);
    Duration::from_secs_f64((ms * factor / 1000.0).clamp(0.0, 1e7))
}

impl<S> Scheduler<S> {
    /// An idle scheduler.
    pub(crate) fn new(config: &EngineConfig) -> Self {
        Scheduler {
            config: config.clone(),
            cache: PrefixCache::new(config.cache_blocks as usize),
            waiting: VecDeque::new(),
            running: Vec::new(),
            cache_queries: 0,
            cache_hits: 0,
        }
    }

    /// Queues a request behind the ones already waiting.
    pub(crate) fn enqueue(&mut self, req: Request<S>) {
        self.waiting.push_back(req);
    }

    /// True when nothing waits and nothing runs.
    pub(crate) fn is_idle(&self) -> bool {
        self.waiting.is_empty() && self.running.is_empty()
    }

    /// Sequences in the running batch.
    pub(crate) fn running(&self) -> usize {
        self.running.len()
    }

    /// Requests in the waiting queue.
    pub(crate) fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// KV blocks held by running sequences (prompt computed so far plus output).
    pub(crate) fn kv_blocks_used(&self) -> u64 {
        let bs = u64::from(self.config.block_size);
        let tokens = |s: &Seq<S>| u64::from(s.computed) + u64::from(s.emitted);
        self.running.iter().map(|s| tokens(s).div_ceil(bs)).sum()
    }

    /// Drops waiting and running requests whose client is gone.
    pub(crate) fn retain(&mut self, mut alive: impl FnMut(&S) -> bool) {
        self.waiting.retain(|r| alive(&r.sink));
        self.running.retain(|s| alive(&s.req.sink));
    }

    /// Admits waiting requests while the batch has room, then hands out this step's prefill
    /// budget to prefilling sequences in batch order (chunked prefill).
    pub(crate) fn plan(&mut self) -> StepPlan {
        while self.running.len() < self.config.max_num_seqs as usize {
            let Some(req) = self.waiting.pop_front() else {
                break;
            };
            let computed = if self.config.prefix_caching {
                let blocks = self.cache.lookup(&req.block_hashes) as u64;
                let hit = blocks * u64::from(self.config.block_size);
                // A full hit still recomputes the last token, as vLLM does.
                let cached = hit.min(u64::from(req.prompt_len.saturating_sub(1))) as u32;
                self.cache_queries += u64::from(req.prompt_len);
                self.cache_hits += u64::from(cached);
                cached
            } else {
                0
            };
            self.running.push(Seq {
                req,
                computed,
                chunk: 0,
                emitted: 0,
            });
        }
        let mut budget = self.config.max_num_batched_tokens;
        let mut prefill_context = 0.0;
        let mut decode_context = 0.0;
        for seq in &mut self.running {
            let left = seq.req.prompt_len - seq.computed;
            seq.chunk = left.min(budget);
            budget -= seq.chunk;
            if seq.chunk > 0 {
                // Token i of the chunk attends to the `computed + i` tokens before it.
                let t = f64::from(seq.chunk);
                prefill_context += t * (f64::from(seq.computed) + (t - 1.0) / 2.0) / 1000.0;
            } else if seq.computed >= seq.req.prompt_len {
                decode_context += f64::from(seq.computed + seq.emitted) / 1000.0;
            }
        }
        StepPlan {
            running: self.running.len(),
            prefill_tokens: self.config.max_num_batched_tokens - budget,
            prefill_context_ktokens: prefill_context,
            decode_context_ktokens: decode_context,
        }
    }

    /// Ends the step: applies prefill progress, emits tokens through `emit` (false = client
    /// gone) and removes finished or abandoned sequences.
    pub(crate) fn finish_step(&mut self, mut emit: impl FnMut(&S) -> bool) {
        let prefix_caching = self.config.prefix_caching;
        let cache = &mut self.cache;
        self.running.retain_mut(|seq| {
            if seq.chunk > 0 {
                seq.computed += seq.chunk;
                seq.chunk = 0;
                if seq.computed < seq.req.prompt_len {
                    return true;
                }
                if prefix_caching {
                    cache.insert(&seq.req.block_hashes);
                }
            } else if seq.computed < seq.req.prompt_len {
                return true; // still waiting for prefill budget
            }
            seq.emitted += 1;
            emit(&seq.req.sink) && seq.emitted < seq.req.output_len
        });
    }
}

#[cfg(test)]
mod tests;
