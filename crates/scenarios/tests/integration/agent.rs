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
use crate::trace_sessions::only_the_end_is_cut;

/// Scenario T: agent sessions of 3 turns, the first fanning out to 2 sub-agents of 2 turns
/// each, 50 ms of think time.
fn write_agents(dir: &std::path::Path) {
    let def = json!({
        "id": "T", "name": "Agents", "description": "small agent sessions", "kind": "agent",
        "agent": {"system_tokens": 600, "task_tokens": 40, "turns": 3,
            "tool_result_tokens": [60, 120], "reply_tokens": 8, "fan_out": 2,
            "fan_out_turn": 0, "child_turns": 2, "child_task_tokens": 30},
        "think": {"dist": "fixed", "seconds": 0.05},
    });
    std::fs::write(dir.join("T.json"), def.to_string()).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sub_agents_share_the_prefix_run_at_once_and_are_joined() {
    let dir = temp_dir("agent");
    write_agents(dir.path());
    let (_report, out, metrics) = run(
        SimConfig::default(),
        dir.path(),
        json!({"batch_sizes": [1]}),
    )
    .await;
    let sent = samples(out.path(), "c1");
    only_the_end_is_cut(&sent);
    assert!(
        sent.iter().all(|s| s.slot == 0),
        "children are requests of their parent's slot"
    );
    let sessions = by_session(&sent);
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
        if joined(id, parent, &children) {
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
    // The workload's own ideal share against the simulator's prefix cache. The cell's very
    // first request finds the fresh simulator's cache empty: its system prompt, which the
    // workload counts as reusable (every later session does reuse it), is taken out of the
    // ideal, so the comparison does not depend on how many sessions the cell ran. What
    // remains of the gap is what the simulator cannot reuse: each prompt's partial last
    // block of 16 tokens and the previous reply (output is not cached), about 2.5% here.
    let first = u64::from(sent[0].n_in_prior.unwrap());
    let prior: u64 = sent
        .iter()
        .map(|s| u64::from(s.n_in_prior.unwrap()))
        .sum::<u64>()
        - first;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_loop_of_agent_sessions_joins_its_sub_agents() {
    let dir = temp_dir("agent-open");
    write_agents(dir.path());
    let extra = json!({"batch_sizes": [], "request_rates": [2], "rate_unit": "sessions"});
    let (_report, out, _) = run(SimConfig::default(), dir.path(), extra).await;
    let sent = samples(out.path(), "s2");
    only_the_end_is_cut(&sent);
    let sessions = by_session(&sent);
    let mut complete = 0;
    for (id, parent) in sessions.iter().filter(|(id, _)| !id.contains('/')) {
        let children: Vec<&Vec<&Sample>> = (0..2)
            .filter_map(|j| sessions.get(&format!("{id}/{j}")))
            .collect();
        assert!(
            parent[0].t_intended_us.is_some(),
            "{id} starts at an arrival"
        );
        let slot = parent[0].slot;
        assert!(
            parent
                .iter()
                .chain(children.iter().copied().flatten())
                .all(|s| s.slot == slot),
            "session {id} and its sub-agents: one sender"
        );
        if parent.len() >= 2 {
            joined(id, parent, &children);
            complete += 1;
        }
    }
    assert!(complete >= 3, "{complete} sessions reached the join");
}

/// The records of `sent` by session id, each session's in the order sent lists them.
fn by_session(sent: &[Sample]) -> BTreeMap<String, Vec<&Sample>> {
    let mut sessions: BTreeMap<String, Vec<&Sample>> = BTreeMap::new();
    for s in sent {
        sessions
            .entry(s.session_id.clone().unwrap())
            .or_default()
            .push(s);
    }
    sessions
}

/// Checks session `id`'s two sub-agents against its parent (each from the parent's prompt,
/// after the spawning reply, both turns in order, ended before the parent's next turn);
/// whether the two were in flight at once.
fn joined(id: &str, parent: &[&Sample], children: &[&Vec<&Sample>]) -> bool {
    // The parent's turn 1 exists: the join happened, so each child ran all its turns.
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
    a.t_sent_us < b.t_end_us && b.t_sent_us < a.t_end_us
}

/// The workload of the agent definition `agent` (with `think` none) in scenario T.
fn agent_workload(
    agent: serde_json::Value,
) -> std::sync::Arc<dyn plateau_core::workload::Workload> {
    use plateau_core::workload::WorkloadFactory;
    let dir = temp_dir("agent-unit");
    let def =
        json!({"id": "T", "name": "Agents", "description": "d", "kind": "agent", "agent": agent});
    std::fs::write(dir.path().join("T.json"), def.to_string()).unwrap();
    let mut cfg = crate::common::config(&["T"], json!({"scenarios_dir": dir.path()}));
    cfg.output_dir = dir.path().join("out");
    let catalog = plateau_scenarios::Catalog::load(&cfg, crate::common::tokenizer()).unwrap();
    catalog
        .workload(&crate::common::plan(&cfg), &crate::common::cell("T", 1))
        .unwrap()
}

#[test]
fn a_turn_sends_back_the_servers_call_else_its_own_and_children_extend_the_prompt() {
    use plateau_core::workload::{After, Role, ToolCall};
    let shape = json!({"system_tokens": 300, "task_tokens": 20, "turns": 4, "tool_result_tokens": [50, 50],
        "reply_tokens": 8, "fan_out": 2, "fan_out_turn": 1, "child_turns": 1, "child_task_tokens": 10});
    let workload = agent_workload(shape);
    assert!(workload.info().synthetic, "marked synthetic");
    let mut s = workload.session(0);
    let first = s.next();
    assert_eq!(
        first.tools.as_ref().unwrap().as_array().unwrap().len(),
        4,
        "four tools"
    );
    assert_eq!(
        first.messages.iter().map(|m| m.role).collect::<Vec<_>>(),
        [Role::System, Role::User]
    );
    let server = ToolCall {
        id: "srv-1".into(),
        name: "read_file".into(),
        arguments: r#"{"path":"x"}"#.into(),
    };
    s.tool_calls(std::slice::from_ref(&server));
    s.reply(Some("let me look"));
    assert!(matches!(s.after(), After::Think(_)));
    assert!(s.children().is_empty(), "turn 0 does not fan out");
    let second = s.next();
    let [.., call, result] = second.messages.as_slice() else {
        panic!("history")
    };
    assert_eq!(
        (call.role, call.content.as_str()),
        (Role::Assistant, "let me look")
    );
    assert_eq!(call.tool_calls, [server], "the server's call goes back");
    assert_eq!(
        (result.role, result.tool_call_id.as_deref()),
        (Role::Tool, Some("srv-1"))
    );
    assert_eq!(
        second.session.as_ref().unwrap().prior_tokens,
        first.target_tokens.unwrap() + 3
    );
    // Turn 1 fans out: two `spawn_agent` calls, two children from this very prompt.
    s.reply(Some("splitting"));
    let children = s.children();
    assert_eq!(children.len(), 2);
    for (k, mut child) in children.into_iter().enumerate() {
        let p = child.next();
        assert_eq!(
            p.messages[..second.messages.len()],
            second.messages[..],
            "child {k} extends the prompt"
        );
        assert_eq!(p.session.as_ref().unwrap().id, format!("0-0/{k}"));
        assert_eq!(
            p.session.as_ref().unwrap().prior_tokens,
            second.target_tokens.unwrap()
        );
        child.reply(Some(&format!("answer {k}")));
        assert_eq!(child.after(), After::End, "one turn each");
    }
    // The join: each child's answer is its call's result.
    let third = s.next();
    let n = third.messages.len();
    let spawn = &third.messages[n - 3];
    assert_eq!(
        spawn
            .tool_calls
            .iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>(),
        ["spawn_agent"; 2]
    );
    for k in 0..2 {
        let m = &third.messages[n - 2 + k];
        assert_eq!(
            (m.content.as_str(), m.tool_call_id.as_ref()),
            (
                format!("answer {k}").as_str(),
                Some(&spawn.tool_calls[k].id)
            )
        );
    }
    // Without a server call, the turn's own.
    s.reply(Some("more"));
    let fourth = s.next();
    let call = &fourth.messages[fourth.messages.len() - 2];
    assert_eq!(call.tool_calls[0].id, "call-0-0-2");
    s.reply(Some("done"));
    assert_eq!(s.after(), After::End, "the last turn ends the session");
    assert_eq!(
        s.next().session.unwrap().id,
        "0-1",
        "then the slot's next session"
    );
}

#[test]
fn agent_settings_errors_name_the_field() {
    let cases = [
        (
            json!({"agent": {"turns": 2, "fan_out_turn": 1}}),
            "scenario_options.T.agent.fan_out_turn",
        ),
        (
            json!({"agent": {"tool_result_tokens": [10, 5]}}),
            "scenario_options.T.agent.tool_result_tokens",
        ),
        (
            json!({"agent": {"fan_out": 1000}}),
            "scenario_options.T.agent.fan_out",
        ),
        (
            json!({"agent": {"turns": 0}}),
            "scenario_options.T.agent.turns",
        ),
        (json!({"agent": {"turn": 3}}), "scenario_options.T.agent"),
        (json!({"max_tokens": 5}), "scenario_options.T.max_tokens"),
    ];
    let dir = temp_dir("agent-errors");
    let def = json!({"id": "T", "name": "A", "description": "d", "kind": "agent"});
    std::fs::write(dir.path().join("T.json"), def.to_string()).unwrap();
    for (options, field) in cases {
        let cfg = crate::common::config(
            &["T"],
            json!({"scenarios_dir": dir.path(), "scenario_options": {"T": options}}),
        );
        let e = plateau_scenarios::Catalog::load(&cfg, crate::common::tokenizer())
            .unwrap_err()
            .to_string();
        assert!(e.starts_with(field), "{options}: {e}");
    }
}
