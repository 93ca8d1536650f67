//! `plateau trace stats` and `plateau trace convert` on a BurstGPT fixture (exact upstream
//! columns): the counts and rates printed, the native file written, an existing `--out`
//! refused with exit 2 and left as it was, a bad row named by line and column.

use crate::common::{plateau, run, temp};

const BURSTGPT: &str = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n\
    0,ChatGPT,100,10,110,Conversation log\n\
    0.5,ChatGPT,200,20,220,Conversation log\n\
    1.5,GPT-4,300,30,330,API log\n\
    2.25,ChatGPT,400,40,440,API log\n";

#[test]
fn stats_and_convert_a_burstgpt_trace() {
    let dir = temp("trace-cli");
    let trace = dir.path().join("b.csv");
    std::fs::write(&trace, BURSTGPT).unwrap();
    let t = trace.to_str().unwrap();
    let (code, out, err) = run(&mut plateau(&[
        "trace",
        "stats",
        t,
        "--format",
        "burstgpt",
        "--bucket-s",
        "1",
    ]));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("requests: 4\n"), "{out}");
    assert!(out.contains("duration: 2.2 s"), "{out}");
    assert!(out.contains("model GPT-4: 1 requests"), "{out}");
    assert!(
        out.contains("ideal prefix-cache share: absent (the trace has no hash_ids)"),
        "{out}"
    );
    assert!(
        out.contains("0.0 s        2 requests  2.000 req/s"),
        "{out}"
    );
    assert!(
        out.contains("2.0 s        1 requests  1.000 req/s"),
        "{out}"
    );

    let native = dir.path().join("n.jsonl");
    let n = native.to_str().unwrap();
    let (code, _, err) = run(&mut plateau(&[
        "trace", "convert", t, "--format", "burstgpt", "--out", n,
    ]));
    assert_eq!(code, 0, "{err}");
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&native)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(
        lines[3],
        serde_json::json!({"timestamp_ms": 2250.0, "input_length": 400, "output_length": 40})
    );
    let before = std::fs::read(&native).unwrap();
    let (code, _, err) = run(&mut plateau(&[
        "trace", "convert", t, "--format", "burstgpt", "--out", n,
    ]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(
        std::fs::read(&native).unwrap(),
        before,
        "the existing file is untouched"
    );

    std::fs::write(&trace, format!("{BURSTGPT}3,ChatGPT,many,1,1,API log\n")).unwrap();
    let (code, _, err) = run(&mut plateau(&["trace", "stats", t, "--format", "burstgpt"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("b.csv:6: column `Request tokens`: `many`"),
        "{err}"
    );
}
