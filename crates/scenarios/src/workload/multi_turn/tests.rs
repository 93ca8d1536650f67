//! D's session: history growth with server or dataset replies, conversation ends (last turn,
//! failure, context limit), the turn index, session ids, think times and session ends.

use super::*;
use plateau_model::config::OutputTokens;

fn turn(user: &str, reply: Option<&str>, tokens: u32) -> Turn {
    Turn {
        user: user.into(),
        user_tokens: tokens,
        reply: reply.map(Arc::from),
        reply_tokens: tokens,
    }
}

fn workload(replies: Replies, max_context_tokens: u32) -> MultiTurn {
    workload_with(replies, max_context_tokens, OutputTokens::Fixed(5))
}

fn workload_with(replies: Replies, max_context_tokens: u32, spec: OutputTokens) -> MultiTurn {
    thinking(replies, max_context_tokens, spec, None)
}

fn thinking(
    replies: Replies,
    max_context_tokens: u32,
    spec: OutputTokens,
    think: Option<plateau_model::config::Think>,
) -> MultiTurn {
    let conversations = vec![
        Conversation {
            id: "a".into(),
            turns: vec![
                turn("a0", Some("r0"), 10),
                turn("a1", Some("r1"), 10),
                turn("a2", None, 10),
            ],
        },
        Conversation {
            id: "b".into(),
            turns: vec![turn("b0", Some("s0"), 10), turn("b1", Some("s1"), 10)],
        },
    ];
    let rules = DialogRules {
        replies,
        max_context_tokens,
        lengths: Arc::new(Lengths::new(spec, 0, "D", 7)),
        think: Arc::new(ThinkTimes::new(think, 0, "D")),
    };
    MultiTurn::new(
        WorkloadInfo::default(),
        Arc::new(conversations),
        rules,
        Arc::new(Tokenizer::embedded_cl100k()),
        1,
        1,
    )
}

fn texts(p: &Prompt) -> Vec<String> {
    p.messages
        .iter()
        .map(|m| format!("{}:{}", m.role.as_str(), m.content))
        .collect()
}

#[test]
fn each_turn_resends_the_history_with_the_servers_reply() {
    let mut s = workload(Replies::Server, 10_000).session(0);
    let p0 = s.next();
    assert_eq!(p0.turn, Some(0));
    let first = p0.messages[0].content.clone();
    s.reply(Some("server says hi"));
    let p1 = s.next();
    assert_eq!(p1.turn, Some(1));
    assert_eq!(&p1.messages[..1], &p0.messages[..]);
    assert_eq!(
        p1.messages[1],
        Message::new(Role::Assistant, "server says hi")
    );
    assert_eq!(p1.messages.len(), 3);
    assert_eq!(
        p1.target_tokens,
        Some(10 + 3 + 10),
        "user 10 + reply 3 (counted) + user 10"
    );
    // Walk to the end of the conversation; the next prompt starts another at turn 0.
    let turns = if first == "a0" { 3 } else { 2 };
    for k in 2..turns {
        s.reply(Some("ok"));
        assert_eq!(s.next().turn, Some(k));
    }
    s.reply(Some("bye"));
    let fresh = s.next();
    assert_eq!(fresh.turn, Some(0));
    assert_eq!(fresh.messages.len(), 1);
    assert_ne!(
        fresh.messages[0].content, first,
        "the slot moves to the next conversation"
    );
}

#[test]
fn dataset_replies_fill_the_history() {
    let mut s = workload(Replies::Dataset, 10_000).session(0);
    let p0 = s.next();
    s.reply(Some("ignored"));
    let p1 = s.next();
    let expected_reply = if p0.messages[0].content == "a0" {
        "assistant:r0"
    } else {
        "assistant:s0"
    };
    assert_eq!(texts(&p1)[1], expected_reply);
    assert_eq!(p1.target_tokens, Some(30));
}

#[test]
fn a_failed_request_or_the_context_limit_starts_a_new_conversation() {
    let mut s = workload(Replies::Server, 10_000).session(0);
    s.next();
    s.reply(None);
    assert_eq!(s.next().turn, Some(0));

    // 10 (user) + 10 (reply) + 10 (user) + 5 (max_tokens) = 35 > 30: turn 1 never fits.
    let mut s = workload(Replies::Dataset, 30).session(0);
    for _ in 0..6 {
        let p = s.next();
        assert_eq!(p.turn, Some(0));
        assert!(p.target_tokens.unwrap() + 5 <= 30);
        s.reply(Some("x"));
    }
}

#[test]
fn each_turn_asks_for_its_own_length_within_the_context_limit() {
    // Every turn is 10 user tokens; a dataset reply adds 10 more. Lengths uniform 1..=15
    // against a 45-token context: a turn is only sent when history + 10 + its own length
    // fits, so every prompt's target plus its max_tokens stays within 45.
    let spec = serde_json::from_str(r#"{"dist": "uniform", "min": 1, "max": 15}"#).unwrap();
    let mut s = workload_with(Replies::Dataset, 45, spec).session(0);
    let mut lengths = std::collections::BTreeSet::new();
    let mut later_turns = 0;
    for _ in 0..200 {
        let p = s.next();
        let asked = p.max_tokens.expect("D sets each turn's length");
        assert!(p.target_tokens.unwrap() + asked <= 45, "{p:?}");
        lengths.insert(asked);
        later_turns += usize::from(p.turn > Some(0));
        s.reply(Some("x"));
    }
    assert_eq!(lengths.len(), 15, "{lengths:?}");
    assert!(later_turns > 0);
}

#[test]
fn dataset_lengths_are_each_turns_reply_and_the_fallback_without_one() {
    let spec = serde_json::from_str(r#"{"dist": "dataset"}"#).unwrap();
    let mut s = workload_with(Replies::Dataset, 10_000, spec).session(0);
    for _ in 0..12 {
        let p = s.next();
        let last = p.messages.last().unwrap().content.clone();
        // Turns with a reply are 10 tokens long; `a2` has none and takes the fallback 7.
        let want = if last == "a2" { 7 } else { 10 };
        assert_eq!(p.max_tokens, Some(want), "{last}");
        assert_eq!(p.reply_tokens, (last != "a2").then_some(10));
        s.reply(Some("x"));
    }
}

#[test]
fn sessions_carry_ids_prior_tokens_think_times_and_ends() {
    use std::time::Duration;
    let think = plateau_model::config::Think::Fixed { seconds: 1.5 };
    let w = thinking(
        Replies::Dataset,
        10_000,
        OutputTokens::Fixed(5),
        Some(think),
    );
    let mut s = w.session(3);
    let mut ends = 0;
    let mut session = 0;
    for _ in 0..12 {
        let p = s.next();
        let turn = p.session.clone().expect("D prompts are session turns");
        assert_eq!(turn.id, format!("3-{session}"));
        // Every user turn and dataset reply is 10 tokens: the prior history is all but
        // this turn's new user text.
        assert_eq!(turn.prior_tokens + 10, p.target_tokens.unwrap());
        assert_eq!(turn.prior_tokens, 20 * p.turn.unwrap());
        let last = p.messages.last().unwrap().content.clone();
        s.reply(Some("x"));
        match s.after() {
            After::End => {
                assert!(last == "a2" || last == "b1", "{last} is a last turn");
                ends += 1;
                session += 1;
            }
            After::Think(d) => {
                assert_eq!(d, Duration::from_millis(1500));
                assert!(last != "a2" && last != "b1", "{last} is not a last turn");
            }
            After::Now => panic!("a session turn is followed by think time or an end"),
        }
    }
    assert!(
        ends >= 4,
        "{ends} sessions ended in 12 turns of 2-3 turn conversations"
    );

    // A failure ends the session; so does a next turn that would not fit the context
    // (10 + 10 + 10 + 5 > 30).
    let mut s = workload(Replies::Server, 10_000).session(0);
    s.next();
    s.reply(None);
    assert_eq!(s.after(), After::End);
    let mut s = workload(Replies::Dataset, 30).session(0);
    s.next();
    s.reply(Some("x"));
    assert_eq!(s.after(), After::End);
    assert_eq!(s.next().session.expect("a turn").id, "0-1");
}
