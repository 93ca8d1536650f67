//! Presets, JSON decoding (defaults, unknown keys) and validation errors.

use super::*;

#[test]
fn presets_differ_only_where_documented() {
    let fixed = SimConfig::from_profile("fixed").unwrap();
    assert_eq!(fixed.profile, Profile::Fixed);
    assert_eq!(fixed.fixed.ttft_ms, 100.0);
    assert_eq!(fixed.fixed.itl_ms, 20.0);
    assert_eq!(
        SimConfig::from_profile("realistic").unwrap(),
        SimConfig::default()
    );
    let faulty = SimConfig::from_profile("faulty").unwrap();
    assert_eq!(faulty.profile, Profile::Realistic);
    assert_eq!(faulty.faults.http_500_rate, 0.05);
    assert_eq!(faulty.faults.http_429_rate, 0.0);
    assert!(faulty.validate().is_ok());
}

#[test]
fn unknown_profile_lists_valid_names() {
    let err = SimConfig::from_profile("fast").unwrap_err().to_string();
    assert!(err.contains("`fast`"), "{err}");
    assert!(err.contains("fixed, realistic, faulty"), "{err}");
}

#[test]
fn json_defaults_fill_missing_keys() {
    let config = SimConfig::from_json(r#"{"profile": "fixed", "fixed": {"itl_ms": 5}}"#).unwrap();
    assert_eq!(config.profile, Profile::Fixed);
    assert_eq!(config.fixed.ttft_ms, 100.0);
    assert_eq!(config.fixed.itl_ms, 5.0);
    assert_eq!(config.engine.max_num_seqs, 32);
    assert_eq!(SimConfig::from_json("{}").unwrap(), SimConfig::default());
}

#[test]
fn unknown_keys_are_rejected_with_their_path() {
    let err = SimConfig::from_json(r#"{"engine": {"max_num_seq": 4}}"#).unwrap_err();
    let SimError::ParseConfig { path, message } = &err else {
        panic!("unexpected {err:?}")
    };
    assert_eq!(path, "engine.max_num_seq");
    assert!(message.contains("unknown field `max_num_seq`"), "{message}");
    assert!(SimConfig::from_json(r#"{"seeed": 1}"#).is_err());
    assert!(SimConfig::from_json(r#"{"profile": "slow"}"#).is_err());
}

#[test]
fn documented_defaults_are_the_defaults() {
    let doc = include_str!("../config.rs");
    let start = doc.find("/// ```json\n").unwrap() + "/// ```json\n".len();
    let end = start + doc[start..].find("/// ```").unwrap();
    let json: String = doc[start..end].lines().map(|l| &l[3..]).collect();
    assert_eq!(SimConfig::from_json(&json).unwrap(), SimConfig::default());
}

#[test]
fn round_trips_through_json() {
    let config = SimConfig::from_profile("faulty").unwrap();
    let text = serde_json::to_string(&config).unwrap();
    assert_eq!(SimConfig::from_json(&text).unwrap(), config);
}

#[test]
fn validation_names_the_field() {
    let cases: [(&str, &str); 5] = [
        (r#"{"engine": {"max_num_seqs": 0}}"#, "engine.max_num_seqs"),
        (r#"{"engine": {"block_size": 0}}"#, "engine.block_size"),
        (r#"{"fixed": {"ttft_ms": -1}}"#, "fixed.ttft_ms"),
        (r#"{"faults": {"stall_rate": 1.5}}"#, "faults.stall_rate"),
        (
            r#"{"faults": {"stall_rate": 0.6, "http_500_rate": 0.6}}"#,
            "`faults`",
        ),
    ];
    for (json, field) in cases {
        let err = SimConfig::from_json(json).unwrap_err().to_string();
        assert!(err.contains(field), "{json}: {err}");
    }
}

#[test]
fn wire_switches_decode_and_validate() {
    let config = SimConfig::from_json(
        r#"{"wire": {"close_after_response": true, "events_per_write": 3, "usage": "scaled",
            "usage_scale": 2.0, "empty_text_every": 4, "tool_calls": true,
            "reasoning_tokens": 5}}"#,
    )
    .unwrap();
    assert!(config.wire.close_after_response && config.wire.tool_calls);
    assert_eq!(config.wire.events_per_write, 3);
    assert_eq!(config.wire.usage, crate::UsageMode::Scaled);
    assert_eq!(config.wire.usage_scale, 2.0);
    assert_eq!(
        (config.wire.empty_text_every, config.wire.reasoning_tokens),
        (4, 5)
    );
    let err = SimConfig::from_json(r#"{"wire": {"usage": "wrong"}}"#).unwrap_err();
    assert!(err.to_string().contains("wire.usage"), "{err}");
    let err = SimConfig::from_json(r#"{"wire": {"events_per_writes": 2}}"#).unwrap_err();
    assert!(err.to_string().contains("wire.events_per_writes"), "{err}");

    let cases: [(&str, &str); 7] = [
        (
            r#"{"wire": {"events_per_write": 0}}"#,
            "wire.events_per_write",
        ),
        (
            r#"{"wire": {"events_per_write": 2, "whole_stream_at_end": true}}"#,
            "more than one of",
        ),
        (
            r#"{"wire": {"burst_after_first": true, "whole_stream_at_end": true}}"#,
            "more than one of",
        ),
        (
            r#"{"wire": {"burst_after_first": true, "events_per_write": 3}}"#,
            "more than one of",
        ),
        (
            r#"{"keepalive_ms": 10, "wire": {"whole_stream_at_end": true}}"#,
            "keepalive_ms",
        ),
        (
            r#"{"wire": {"usage_scale": 2.0}}"#,
            "only applies with usage",
        ),
        (
            r#"{"wire": {"usage": "scaled", "usage_scale": -1}}"#,
            "wire.usage_scale",
        ),
    ];
    for (json, message) in cases {
        let err = SimConfig::from_json(json).unwrap_err().to_string();
        assert!(err.contains(message), "{json}: {err}");
    }
    // Switches that are orthogonal combine.
    let fine = r#"{"keepalive_ms": 10, "tokens_per_chunk": 2, "wire": {"burst_after_first": true,
        "close_after_response": true, "usage": "none", "empty_text_every": 2,
        "tool_calls": true, "reasoning_tokens": 1}}"#;
    assert!(SimConfig::from_json(fine).is_ok());
}
