//! Admission, chunked prefill, prefix-cache hits and step time, with hand-computed values.

use super::*;

fn config(max_num_seqs: u32, budget: u32) -> EngineConfig {
    EngineConfig {
        max_num_seqs,
        max_num_batched_tokens: budget,
        block_size: 4,
        noise: 0.0,
        ..EngineConfig::default()
    }
}

fn req(id: usize, prompt: &[u32], out: u32) -> Request<usize> {
    Request {
        prompt_len: prompt.len() as u32,
        block_hashes: crate::prefix_cache::block_hashes(prompt, 4),
        output_len: out,
        sink: id,
    }
}

/// Runs one step, returning the ids that got a token.
fn step(s: &mut Scheduler<usize>) -> (StepPlan, Vec<usize>) {
    let plan = s.plan();
    let mut got = Vec::new();
    s.finish_step(|id| {
        got.push(*id);
        true
    });
    (plan, got)
}

#[test]
fn step_time_adds_the_three_terms() {
    let c = config(32, 4096);
    let plan = StepPlan {
        running: 4,
        prefill_tokens: 200,
        prefill_context_ktokens: 0.0,
        decode_context_ktokens: 0.0,
    };
    // 8 + 0.25 * 4 + 25us * 200 = 8 + 1 + 5 = 14 ms
    assert_eq!(step_time(&c, plan, 0.0), Duration::from_millis(14));
    let noisy = EngineConfig { noise: 0.5, ..c };
    assert_eq!(step_time(&noisy, plan, 1.0), Duration::from_millis(21));
    assert_eq!(
        step_time(&noisy, plan, -10.0),
        Duration::from_secs_f64(0.0014)
    );
}

#[test]
fn attention_terms_grow_with_context() {
    let c = EngineConfig {
        prefill_attention_us_per_ktoken: 10.0,
        decode_us_per_ktoken: 20.0,
        ..config(32, 4096)
    };
    let plan = StepPlan {
        running: 2,
        prefill_tokens: 100,
        prefill_context_ktokens: 300.0,
        decode_context_ktokens: 5.0,
    };
    // 8 + 0.25 * 2 + 25us * 100 + 10us * 300 + 20us * 5 = 8 + 0.5 + 2.5 + 3 + 0.1 = 14.1 ms
    assert_eq!(step_time(&c, plan, 0.0), Duration::from_secs_f64(0.0141));

    // A 100-token chunk after 2,900 cached tokens: 100 x (2900 + 49.5) / 1000 = 294.95.
    let mut s = Scheduler::new(&c);
    let prefix = [3u32; 2900];
    s.enqueue(req(0, &prefix, 1));
    step(&mut s);
    let mut longer = prefix.to_vec();
    longer.extend([4u32; 100]);
    s.enqueue(req(1, &longer, 2));
    let (plan, _) = step(&mut s);
    assert_eq!(plan.prefill_tokens, 100);
    assert!(
        (plan.prefill_context_ktokens - 294.95).abs() < 1e-9,
        "{plan:?}"
    );
    // Next step it decodes with 3,000 prompt + 1 output tokens of context.
    let (plan, _) = step(&mut s);
    assert!(
        (plan.decode_context_ktokens - 3.001).abs() < 1e-9,
        "{plan:?}"
    );
}

#[test]
fn admission_is_fifo_and_bounded_by_max_num_seqs() {
    let mut s = Scheduler::new(&config(2, 4096));
    for id in 0..3 {
        s.enqueue(req(id, &[id as u32; 8], 2));
    }
    let (plan, got) = step(&mut s);
    assert_eq!(
        plan,
        StepPlan {
            running: 2,
            prefill_tokens: 16,
            // Each 8-token prompt: tokens see 0..7 before them, 8 x 3.5 = 28 pairs.
            prefill_context_ktokens: 0.056,
            decode_context_ktokens: 0.0,
        }
    );
    assert_eq!(got, [0, 1]); // first tokens at the end of the prefill step
    assert_eq!(s.waiting(), 1);
    let (plan, got) = step(&mut s);
    assert_eq!(plan.running, 2);
    assert_eq!(got, [0, 1]); // second tokens: both finish (output_len 2)
    let (plan, got) = step(&mut s);
    assert_eq!(
        plan,
        StepPlan {
            running: 1,
            prefill_tokens: 8,
            prefill_context_ktokens: 0.028,
            decode_context_ktokens: 0.0,
        }
    );
    assert_eq!(got, [2]);
    assert!(!s.is_idle());
    step(&mut s);
    assert!(s.is_idle());
}

#[test]
fn prefill_is_chunked_by_the_token_budget() {
    let mut s = Scheduler::new(&config(8, 10));
    s.enqueue(req(0, &[1; 25], 1));
    s.enqueue(req(1, &[2; 3], 1));
    let budgets: Vec<(u32, Vec<usize>)> = (0..3)
        .map(|_| {
            let (plan, got) = step(&mut s);
            (plan.prefill_tokens, got)
        })
        .collect();
    // Step 1: 10 of request 0. Step 2: 10 more. Step 3: last 5 of 0, then 3 of 1.
    assert_eq!(budgets, [(10, vec![]), (10, vec![]), (8, vec![0, 1])]);
    assert!(s.is_idle());
}

#[test]
fn prefix_cache_skips_cached_blocks_after_prefill() {
    let mut s = Scheduler::new(&config(8, 4096));
    let shared = [7u32; 12]; // three blocks of 4
    let mut second = shared.to_vec();
    second.extend([8, 9, 10]);
    s.enqueue(req(0, &shared, 1));
    assert_eq!(step(&mut s).0.prefill_tokens, 12);
    s.enqueue(req(1, &second, 1));
    // 12 cached tokens, only the 3 new ones are prefilled.
    assert_eq!(step(&mut s).0.prefill_tokens, 3);
    s.enqueue(req(2, &shared, 1));
    // Full hit: the last token is recomputed.
    assert_eq!(step(&mut s).0.prefill_tokens, 1);
    assert_eq!(s.cache_queries, 12 + 15 + 12);
    assert_eq!(s.cache_hits, 12 + 11);
}

#[test]
fn gone_clients_leave_at_once() {
    let mut s = Scheduler::new(&config(1, 4096));
    s.enqueue(req(0, &[1; 4], 100));
    s.enqueue(req(1, &[2; 4], 100));
    step(&mut s);
    assert_eq!((s.running(), s.waiting()), (1, 1));
    // Emission to 0 fails: it leaves the batch and 1 is admitted next step.
    s.plan();
    s.finish_step(|id| *id != 0);
    assert_eq!((s.running(), s.waiting()), (0, 1));
    s.retain(|id| *id != 1);
    assert!(s.is_idle());
}

#[test]
fn kv_blocks_count_prompt_and_output() {
    let mut s = Scheduler::new(&config(8, 4096));
    s.enqueue(req(0, &[1; 6], 10));
    step(&mut s); // 6 prompt + 1 output = 7 tokens = 2 blocks of 4
    assert_eq!(s.kv_blocks_used(), 2);
    step(&mut s);
    step(&mut s); // 9 tokens = 3 blocks
    assert_eq!(s.kv_blocks_used(), 3);
}
