//! Token-count agreement ([`TokenAgreement`]): where the counts came from, and how far the
//! client tokenizer and the workload's targets are from the server's own counts. Feeds the
//! warning that the client tokenizer disagrees with the server.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::distribution::Distribution;
use crate::sample::{Sample, TokenSource};

/// Agreement of token counts over the measured successful requests.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TokenAgreement {
    /// How many `n_out` came from each source (`usage`, `tokenizer`, `unknown`).
    pub n_out_sources: BTreeMap<String, u64>,
    /// How many `n_in` came from each source (`usage`, `tokenizer`, `unknown`).
    pub n_in_sources: BTreeMap<String, u64>,
    /// Client tokenizer vs server, over requests with both counts; absent when none.
    pub output: Option<OutputAgreement>,
    /// Target prompt length vs server, over requests with both; absent when none.
    pub input: Option<InputAgreement>,
}

/// The client tokenizer's count of each response against the server's `n_out`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OutputAgreement {
    /// Requests with a server `n_out` (from `usage`, above 0) and `n_out_client`.
    pub n: u64,
    /// Mean of `|client - server| / server`.
    pub mean_rel_diff: f64,
    /// Largest `|client - server| / server`.
    pub max_rel_diff: f64,
    /// Mean of `server / client`: how many tokens `usage` claims per token the content
    /// holds. Far from 1 (beyond [`USAGE_FACTOR`]) means `usage` does not describe what
    /// was received.
    #[serde(default = "one")]
    pub mean_usage_ratio: f64,
    /// Requests whose `usage` claims fewer output tokens than events that carried text
    /// (each carries at least one token): `usage` is wrong for them.
    #[serde(default)]
    pub usage_below_events: u64,
}

/// `usage` and the received content may differ by up to this factor either way (client
/// tokenizers differ from the model's by far less on the scenarios' text); beyond it the
/// cell fails validation.
pub const USAGE_FACTOR: f64 = 2.0;

fn one() -> f64 {
    1.0
}

/// The workload's target prompt length against the server's `n_in`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InputAgreement {
    /// Requests with a server `n_in` (from `usage`) and `n_in_target` above 0.
    pub n: u64,
    /// Mean target prompt length, tokens.
    pub mean_target: f64,
    /// Mean server prompt length, tokens.
    pub mean_server: f64,
    /// Mean of `(server - target) / target` (signed: positive when the server counts more).
    pub mean_rel_diff: f64,
}

impl TokenAgreement {
    /// Agreement over `samples` (the measured successful requests).
    pub(crate) fn check<'a>(samples: impl Iterator<Item = &'a Sample> + Clone) -> TokenAgreement {
        let server_count = |n: Option<u32>, source: Option<TokenSource>| {
            n.filter(|_| source == Some(TokenSource::Usage))
                .map(f64::from)
        };
        let out_pairs: Vec<(&Sample, f64, f64)> = samples
            .clone()
            .filter_map(|s| {
                let server = server_count(s.n_out, s.n_out_source).filter(|&n| n > 0.0)?;
                let client = f64::from(s.n_out_client.filter(|&n| n > 0)?);
                Some((s, server, client))
            })
            .collect();
        let out_diffs: Vec<f64> = out_pairs
            .iter()
            .map(|&(_, server, client)| (client - server).abs() / server)
            .collect();
        let ratios: Vec<f64> = out_pairs
            .iter()
            .map(|&(_, server, client)| server / client)
            .collect();
        let below_events = out_pairs
            .iter()
            .filter(|&&(s, server, _)| server < f64::from(s.text_events))
            .count() as u64;
        let inputs: Vec<(f64, f64)> = samples
            .clone()
            .filter_map(|s| {
                let target = s.n_in_target.filter(|&t| t > 0).map(f64::from)?;
                Some((target, server_count(s.n_in, s.n_in_source)?))
            })
            .collect();
        TokenAgreement {
            n_out_sources: count_sources(samples.clone().map(|s| s.n_out_source)),
            n_in_sources: count_sources(samples.map(|s| s.n_in_source)),
            output: Distribution::from_values(&out_diffs).map(|d| OutputAgreement {
                n: d.n,
                mean_rel_diff: d.mean,
                max_rel_diff: d.max,
                mean_usage_ratio: ratios.iter().sum::<f64>() / ratios.len() as f64,
                usage_below_events: below_events,
            }),
            input: input_agreement(&inputs),
        }
    }
}

/// Means over `(target, server)` prompt lengths; `None` when there are none.
fn input_agreement(inputs: &[(f64, f64)]) -> Option<InputAgreement> {
    let mean = |f: fn(&(f64, f64)) -> f64| {
        Distribution::from_values(&inputs.iter().map(f).collect::<Vec<_>>()).map(|d| d.mean)
    };
    Some(InputAgreement {
        n: inputs.len() as u64,
        mean_target: mean(|p| p.0)?,
        mean_server: mean(|p| p.1)?,
        mean_rel_diff: mean(|(target, server)| (server - target) / target)?,
    })
}

/// Counts of each source, `unknown` for a count with no source.
fn count_sources(sources: impl Iterator<Item = Option<TokenSource>>) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for source in sources {
        let key = match source {
            Some(TokenSource::Usage) => "usage",
            Some(TokenSource::Tokenizer) => "tokenizer",
            None => "unknown",
        };
        *counts.entry(key.to_owned()).or_default() += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::fixtures::{ok, sample};

    #[test]
    fn relative_differences_by_hand() {
        let with = |n_out, src, client, n_in, in_src, target| Sample {
            n_out: Some(n_out),
            n_out_source: src,
            n_out_client: client,
            n_in: Some(n_in),
            n_in_source: in_src,
            n_in_target: target,
            ..ok(sample(0, &[(10, n_out)], 10))
        };
        let usage = Some(TokenSource::Usage);
        let tok = Some(TokenSource::Tokenizer);
        let samples = [
            // out: |110 - 100| / 100 = 0.10; in: (52 - 50) / 50 = +0.04
            with(100, usage, Some(110), 52, usage, Some(50)),
            // out: |190 - 200| / 200 = 0.05; in: (45 - 50) / 50 = -0.10
            with(200, usage, Some(190), 45, usage, Some(50)),
            // n_out from the tokenizer: not a server count, left out of both checks' output
            // side; n_in from the tokenizer: left out of the input side.
            with(50, tok, Some(50), 48, tok, Some(50)),
            // no client count: left out of the output side; no target: out of the input side.
            with(80, usage, None, 10, usage, None),
        ];
        let a = TokenAgreement::check(samples.iter());
        let map = |pairs: &[(&str, u64)]| -> BTreeMap<String, u64> {
            pairs.iter().map(|&(k, v)| (k.to_owned(), v)).collect()
        };
        assert_eq!(a.n_out_sources, map(&[("tokenizer", 1), ("usage", 3)]));
        assert_eq!(a.n_in_sources, map(&[("tokenizer", 1), ("usage", 3)]));
        let out = a.output.expect("two requests with both counts");
        assert_eq!(out.n, 2);
        // mean (0.10 + 0.05) / 2 = 0.075; max 0.10
        assert!((out.mean_rel_diff - 0.075).abs() < 1e-12, "{out:?}");
        assert!((out.max_rel_diff - 0.10).abs() < 1e-12, "{out:?}");
        // usage per content token: (100/110 + 200/190) / 2
        let ratio = (100.0 / 110.0 + 200.0 / 190.0) / 2.0;
        assert!((out.mean_usage_ratio - ratio).abs() < 1e-12, "{out:?}");
        assert_eq!(out.usage_below_events, 0);
        let input = a.input.expect("two requests with target and server n_in");
        assert_eq!(input.n, 2);
        assert_eq!(input.mean_target, 50.0);
        assert_eq!(input.mean_server, 48.5); // (52 + 45) / 2
        // (0.04 - 0.10) / 2 = -0.03
        assert!((input.mean_rel_diff + 0.03).abs() < 1e-12, "{input:?}");
    }

    #[test]
    fn usage_below_the_events_that_carried_text_is_counted() {
        // 16 events carried text; usage claims 8 tokens.
        let s = Sample {
            n_out: Some(8),
            n_out_client: Some(16),
            text_events: 16,
            ..ok(sample(0, &[(10, 8)], 10))
        };
        let out = TokenAgreement::check([s].iter()).output.unwrap();
        assert_eq!((out.usage_below_events, out.mean_usage_ratio), (1, 0.5));
    }

    #[test]
    fn nothing_to_compare_gives_none() {
        let a = TokenAgreement::check([ok(sample(0, &[(10, 1)], 10))].iter());
        assert_eq!(a.output, None);
        assert_eq!(a.input, None);
    }
}
