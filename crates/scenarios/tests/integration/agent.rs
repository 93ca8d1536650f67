//! Agent sessions (kind `agent`, scenario E's machinery) against the simulator: a turn fans
//! out to sub-agents that start from the parent's prompt and run at once in the parent's
//! slot; the parent's next turn goes only after every child's last reply (join); whole
//! sessions have exactly their planned requests; and the simulator's prefix cache hits
//! what the workload's own structure says an ideal cache could reuse.

use std::collections::BTreeMap;

use plateau_model::sample::Sample;
use plateau_sim::SimConfig;
use serde_json::json;

use crate::common::temp_dir;
use crate::trace::{counter, run, samples};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sub_agents_share_the_prefix_run_at_once_and_are_joined() {
    let dir = temp_dir("agent");
    let def = json!({
        "id": "T", "name": "Agents", "description": "small agent sessions", "kind": "agent",
        "agent": {"system_tokens": 600, "task_tokens": 40, "turns": 3,
            "tool_result_tokens": [60, 120], "reply_tokens": 8, "fan_out": 2,
            "fan_out_turn": 0, "child_turns": 2, "child_task_tokens": 30},
        "think": {"dist": "fixed", "seconds": 0.05},
    });
    std::fs::write(dir.path().join("T.json"), def.to_string()).unwrap();
    let (_report, out, metrics) = run(
        SimConfig::default(),
        dir.path(),
        json!({"batch_sizes": [1]}),
    )
    .await;
    let sent = samples(out.path(), "c1");
    assert!(
        sent.iter().all(|s| s.outcome.is_ok()),
        "every request succeeded"
    );
    assert!(
        sent.iter().all(|s| s.slot == 0),
        "children are requests of their parent's slot"
    );
    let mut sessions: BTreeMap<String, Vec<&Sample>> = BTreeMap::new();
    for s in &sent {
        sessions
            .entry(s.session_id.clone().unwrap())
            .or_default()
            .push(s);
    }
    let turns = |id: &str| sessions.get(id).map_or(0, Vec::len);
    let (mut complete, mut overlapping) = (0, 0);
    for (id, parent) in sessions.iter().filter(|(id, _)| !id.contains('/')) {
        let children: Vec<&Vec<&Sample>> = (0..2)
            .filter_map(|j| sessions.get(&format!("{id}/{j}")))
            .collect();
        if parent.len() < 2 {
            continue; // cut by the cell's end before the join
        }
        // The parent's turn 1 exists: the join happened, so each child ran all its turns.
        complete += 1;
        assert_eq!(children.len(), 2, "session {id}: two sub-agents");
        for (j, child) in children.iter().enumerate() {
            let turn: Vec<Option<u32>> = child.iter().map(|c| c.turn).collect();
            assert_eq!(
                turn,
                [Some(0), Some(1)],
                "session {id}/{j}: its two turns in order"
            );
            assert!(
                child[1].session_end && !child[0].session_end,
                "{id}/{j} ends on its last turn"
            );
            // It starts from the parent's prompt and its own task.
            assert_eq!(
                child[0].n_in_prior, parent[0].n_in_target,
                "{id}/{j}: the parent's prompt is its prior"
            );
            assert!(
                child[0].n_in.unwrap() > parent[0].n_in.unwrap(),
                "{id}/{j} extends the parent's prompt"
            );
            assert!(
                child[0].t_sent_us >= parent[0].t_end_us,
                "{id}/{j} starts after the spawning reply"
            );
            let last_end = child.iter().map(|c| c.t_end_us).max().unwrap();
            assert!(
                parent[1].t_sent_us >= last_end,
                "session {id}: parent turn 1 sent at {} µs before child {j} ended at {last_end} µs",
                parent[1].t_sent_us
            );
        }
        let (a, b) = (children[0][0], children[1][0]);
        if a.t_sent_us < b.t_end_us && b.t_sent_us < a.t_end_us {
            overlapping += 1;
        }
        if parent.len() == 3 {
            assert_eq!(
                turns(id) + turns(&format!("{id}/0")) + turns(&format!("{id}/1")),
                7
            );
        }
    }
    let parents = sessions.keys().filter(|id| !id.contains('/')).count();
    println!(
        "{parents} sessions, {complete} joined, {overlapping} with both sub-agents in flight at once, {} requests",
        sent.len()
    );
    assert!(complete >= 3, "{complete} sessions reached the join");
    assert!(
        overlapping * 2 >= complete,
        "sub-agents ran at once in {overlapping} of {complete}"
    );
    // The workload's own ideal share against the simulator's prefix cache. The simulator
    // falls short of the ideal by what it cannot reuse: the first session's system prompt
    // (600 of ~43k tokens), each prompt's partial last block of 16 tokens and the previous
    // reply (output is not cached): about 4% here.
    let prior: u64 = sent.iter().map(|s| u64::from(s.n_in_prior.unwrap())).sum();
    let target: u64 = sent.iter().map(|s| u64::from(s.n_in_target.unwrap())).sum();
    let ideal = prior as f64 / target as f64;
    let hits = counter(&metrics, "vllm:prefix_cache_hits_total");
    let queries = counter(&metrics, "vllm:prefix_cache_queries_total");
    let observed = hits / queries;
    println!("prefix cache: ideal {ideal:.4}, simulator {observed:.4} ({hits} of {queries})");
    assert!(
        (observed - ideal).abs() < 0.05,
        "observed {observed} vs ideal {ideal}"
    );
}
