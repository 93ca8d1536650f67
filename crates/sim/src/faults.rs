//! Fault injection: which fault (if any) a request gets, and where a stream is cut.

use rand::Rng;

use crate::config::FaultConfig;

/// What goes wrong with one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fault {
    /// Nothing: the request is served normally.
    None,
    /// 500 with an error body, before any generation.
    Http500,
    /// 429 with `Retry-After: 1`, before any generation.
    Http429,
    /// After `after` tokens, the connection is dropped mid-stream (no `[DONE]`).
    Disconnect {
        /// Tokens sent before the cut.
        after: u32,
    },
    /// Headers (streaming) or nothing (non-streaming), then silence until the client leaves.
    Stall,
    /// After `after` tokens, an SSE error event then `[DONE]` (non-streaming: a 500).
    ErrorEvent {
        /// Tokens sent before the error.
        after: u32,
    },
}

impl Fault {
    /// Draws the fault of a request generating `output_len` tokens. The rates are exclusive
    /// slices of [0, 1) in the order 500, 429, disconnect, stall, error event; the cut point
    /// of a disconnect or error event is uniform in [1, output_len - 1] (0 when
    /// output_len <= 1), so some tokens are streamed first whenever there is room.
    pub(crate) fn draw(config: &FaultConfig, rng: &mut impl Rng, output_len: u32) -> Fault {
        let u: f64 = rng.random();
        let mut edge = 0.0;
        let mut pick = None;
        for (i, (_, rate)) in config.rates().into_iter().enumerate() {
            edge += rate;
            if u < edge {
                pick = Some(i);
                break;
            }
        }
        let mut cut = || {
            if output_len <= 1 {
                0
            } else {
                rng.random_range(1..output_len)
            }
        };
        match pick {
            Some(0) => Fault::Http500,
            Some(1) => Fault::Http429,
            Some(2) => Fault::Disconnect { after: cut() },
            Some(3) => Fault::Stall,
            Some(4) => Fault::ErrorEvent { after: cut() },
            _ => Fault::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn only(f: impl FnOnce(&mut FaultConfig)) -> FaultConfig {
        let mut config = FaultConfig::default();
        f(&mut config);
        config
    }

    #[test]
    fn rate_one_always_picks_that_fault() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        type Check = fn(Fault) -> bool;
        let table: [(FaultConfig, Check); 6] = [
            (FaultConfig::default(), |f| f == Fault::None),
            (only(|c| c.http_500_rate = 1.0), |f| f == Fault::Http500),
            (only(|c| c.http_429_rate = 1.0), |f| f == Fault::Http429),
            (
                only(|c| c.disconnect_rate = 1.0),
                |f| matches!(f, Fault::Disconnect { after } if (1..10).contains(&after)),
            ),
            (only(|c| c.stall_rate = 1.0), |f| f == Fault::Stall),
            (
                only(|c| c.error_event_rate = 1.0),
                |f| matches!(f, Fault::ErrorEvent { after } if (1..10).contains(&after)),
            ),
        ];
        for (config, check) in table {
            for _ in 0..50 {
                let fault = Fault::draw(&config, &mut rng, 10);
                assert!(check(fault), "{config:?} gave {fault:?}");
            }
        }
    }

    #[test]
    fn single_token_outputs_are_cut_before_the_first_token() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let config = only(|c| c.disconnect_rate = 1.0);
        assert_eq!(
            Fault::draw(&config, &mut rng, 1),
            Fault::Disconnect { after: 0 }
        );
    }

    #[test]
    fn rates_are_respected_on_average() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let config = only(|c| {
            c.http_500_rate = 0.1;
            c.stall_rate = 0.2;
        });
        let n = 20_000;
        let (mut e500, mut stall) = (0, 0);
        for _ in 0..n {
            match Fault::draw(&config, &mut rng, 8) {
                Fault::Http500 => e500 += 1,
                Fault::Stall => stall += 1,
                Fault::None => {}
                other => panic!("unexpected {other:?}"),
            }
        }
        assert!((1800..2200).contains(&e500), "{e500}");
        assert!((3700..4300).contains(&stall), "{stall}");
    }
}
