//! The `ignore_eos` finding: each reply against its own request's length, and the median
//! against the cell's `max_tokens` in summaries without requested lengths.

use super::*;
use crate::config::OutputTokens;
use crate::metrics::{Distribution, RequestedTokens};
use crate::results::workload::OutputTokensInfo;

/// A real cell summary from the report's fixtures: ignore_eos sent, max_tokens 12, every
/// measured reply 12 tokens.
fn summary() -> CellSummary {
    let text =
        include_str!("../../../report/tests/fixtures/clean/sglang/llama-8b/A1/c2/summary.json");
    serde_json::from_str(text).expect("fixture summary")
}

fn eos(s: &CellSummary) -> Vec<String> {
    check_cell(s, &Thresholds::default())
        .into_iter()
        .filter(|f| f.check == "ignore_eos")
        .map(|f| f.message)
        .collect()
}

fn with_replies(replies: u64, short_replies: u64) -> CellSummary {
    let mut s = summary();
    s.cell.max_tokens = None;
    s.workload.output_tokens = Some(OutputTokensInfo {
        spec: serde_json::from_str::<OutputTokens>(r#"{"dist": "uniform", "min": 4, "max": 40}"#)
            .expect("a distribution"),
        requested: Some(RequestedTokens {
            max_tokens: Distribution::from_values(&[4.0, 40.0]).expect("values"),
            replies,
            short_replies,
        }),
    });
    s
}

#[test]
fn replies_are_compared_with_their_own_requests() {
    // The fixture's median reply (12) is below 40, the longest asked for, but what counts
    // is each reply against its own request.
    assert_eq!(eos(&with_replies(52, 0)), Vec::<String>::new());
    assert_eq!(
        eos(&with_replies(52, 26)),
        Vec::<String>::new(),
        "half is not most"
    );
    assert_eq!(
        eos(&with_replies(52, 27)),
        vec![
            "ignore_eos was sent but 27 of 52 measured replies are shorter than the max_tokens \
             they asked for: the engine ignored it, so reply lengths vary with the model"
                .to_owned()
        ]
    );
}

#[test]
fn old_summaries_compare_the_median_with_max_tokens() {
    assert_eq!(eos(&summary()), Vec::<String>::new(), "12 of max_tokens 12");
    let mut s = summary();
    s.cell.max_tokens = Some(16);
    assert_eq!(
        eos(&s),
        vec![
            "ignore_eos was sent but the median reply is 12 tokens of max_tokens 16: the engine \
             ignored it, so reply lengths vary with the model"
                .to_owned()
        ]
    );
}
