//! The load axis of a cell: a closed loop at N in flight, or an open loop at a request
//! rate (or a rate of session starts). One type from the plan through the cell directory
//! (`c<N>`, `r<rate>`, `s<rate>`) to the summary.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::{Arrival, RateUnit};

/// Sessions an open-loop cell's workload is built for when `max_concurrency` does not
/// bound it: each arrival takes an idle session (a user; a conversation in multi-turn
/// scenarios), and prompts stay unique across this many concurrent sessions.
pub const OPEN_LOOP_SESSIONS: u32 = 1024;

/// How a cell loads the server.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Load {
    /// Closed loop: exactly N requests in flight.
    Concurrency(u32),
    /// Open loop: arrivals at a request rate, whatever the server does.
    Rate(Rate),
}

/// An open-loop load.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    /// Target arrivals per second (at most three decimals): requests, or session starts
    /// under [`RateUnit::Sessions`].
    pub rps: f64,
    /// How arrivals are spaced.
    pub arrival: Arrival,
    /// At most this many requests in flight (sessions active under
    /// [`RateUnit::Sessions`]); later arrivals queue client-side.
    pub max_concurrency: Option<u32>,
    /// What each arrival starts: a request, or a session run to its end.
    pub unit: RateUnit,
}

impl Load {
    /// The cell directory's name: `c8`, `r20`, `r2.5`, or `s0.5` for session starts.
    pub fn dir_name(&self) -> String {
        match self {
            Load::Concurrency(n) => format!("c{n}"),
            Load::Rate(r) if r.unit == RateUnit::Sessions => format!("s{}", format_rps(r.rps)),
            Load::Rate(r) => format!("r{}", format_rps(r.rps)),
        }
    }

    /// Target concurrency N of a closed loop.
    pub fn concurrency(&self) -> Option<u32> {
        match self {
            Load::Concurrency(n) => Some(*n),
            Load::Rate(_) => None,
        }
    }

    /// The rate of an open loop.
    pub fn rate(&self) -> Option<&Rate> {
        match self {
            Load::Concurrency(_) => None,
            Load::Rate(r) => Some(r),
        }
    }

    /// How many prompt sessions the cell's workload serves: N slots, or the open loop's
    /// `max_concurrency` (else [`OPEN_LOOP_SESSIONS`]).
    pub fn sessions(&self) -> u32 {
        match self {
            Load::Concurrency(n) => *n,
            Load::Rate(r) => r.max_concurrency.unwrap_or(OPEN_LOOP_SESSIONS),
        }
    }

    /// A number that tells loads apart, for seeding workloads: N, or the rate in
    /// thousandths of a request per second with the top bit set.
    pub fn seed_key(&self) -> u64 {
        match self {
            Load::Concurrency(n) => u64::from(*n),
            Load::Rate(r) => (1 << 63) | (r.rps * 1000.0).round() as u64,
        }
    }
}

impl fmt::Display for Load {
    /// `N=8`, `20 req/s` or `0.5 sessions/s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Load::Concurrency(n) => write!(f, "N={n}"),
            Load::Rate(r) => write!(f, "{} {}", format_rps(r.rps), r.unit.per_second()),
        }
    }
}

/// A cell's load as result files write it (flattened into `cell` and the fingerprint): `concurrency` for a
/// closed loop; `request_rate`, `arrival` and any `max_concurrency` for an open loop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LoadInfo {
    /// Closed loop: target concurrency N.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<u32>,
    /// Open loop: target arrival rate, req/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_rate: Option<f64>,
    /// Open loop: how arrivals were spaced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrival: Option<Arrival>,
    /// Open loop: the cap on requests in flight (sessions active when `rate_unit` is
    /// `sessions`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_concurrency: Option<u32>,
    /// Open loop of sessions: `sessions` (`request_rate` counts session starts per second);
    /// absent: requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_unit: Option<RateUnit>,
}

impl From<&Load> for LoadInfo {
    fn from(load: &Load) -> LoadInfo {
        match load {
            Load::Concurrency(n) => LoadInfo {
                concurrency: Some(*n),
                ..LoadInfo::default()
            },
            Load::Rate(r) => LoadInfo {
                concurrency: None,
                request_rate: Some(r.rps),
                arrival: Some(r.arrival),
                max_concurrency: r.max_concurrency,
                rate_unit: (r.unit == RateUnit::Sessions).then_some(r.unit),
            },
        }
    }
}

impl LoadInfo {
    /// The units of the open-loop rates among `loads`, for labels: `req/s`, `sessions/s`,
    /// or `req/s or sessions/s` when both are there (closed-loop loads are passed over).
    pub fn rate_units<'a>(loads: impl IntoIterator<Item = &'a LoadInfo>) -> String {
        let mut units: Vec<&str> = loads
            .into_iter()
            .filter(|l| l.request_rate.is_some())
            .map(|l| l.rate_unit.unwrap_or_default().per_second())
            .collect();
        units.sort_unstable();
        units.dedup();
        if units.is_empty() {
            units.push(RateUnit::Requests.per_second());
        }
        units.join(" or ")
    }

    /// The load these fields describe; `None` when they name neither N nor a rate.
    pub fn load(&self) -> Option<Load> {
        match (self.concurrency, self.request_rate) {
            (Some(n), None) => Some(Load::Concurrency(n)),
            (None, Some(rps)) => Some(Load::Rate(Rate {
                rps,
                arrival: self.arrival.unwrap_or_default(),
                max_concurrency: self.max_concurrency,
                unit: self.rate_unit.unwrap_or_default(),
            })),
            _ => None,
        }
    }
}

/// A rate with at most three decimals and no trailing zeros: `20`, `2.5`, `0.125`.
pub fn format_rps(rps: f64) -> String {
    let s = format!("{rps:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// `rps` rounded to three significant digits (and at least 0.001): the rates a capacity
/// search probes, so directory names stay short and a rate means the same on every run.
pub fn round_rps(rps: f64) -> f64 {
    if !(rps.is_finite() && rps > 0.0) {
        return 0.001;
    }
    let digits = 2 - rps.log10().floor() as i32;
    let scale = 10f64.powi(digits.min(3));
    ((rps * scale).round() / scale).max(0.001)
}

/// A cell's directory name: its load (`c8`, `r2.5`), then `-<k>` for repeat k >= 2.
pub fn cell_dir_name(load: &Load, repeat: u32) -> String {
    match repeat {
        0 | 1 => load.dir_name(),
        k => format!("{}-{k}", load.dir_name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directory_names_and_labels() {
        let rate = |rps| {
            Load::Rate(Rate {
                rps,
                arrival: Arrival::Poisson,
                max_concurrency: None,
                unit: RateUnit::Requests,
            })
        };
        let sessions = |rps| {
            Load::Rate(Rate {
                unit: RateUnit::Sessions,
                ..*rate(rps).rate().unwrap()
            })
        };
        // (load, directory, label)
        let rows = [
            (Load::Concurrency(8), "c8", "N=8"),
            (rate(20.0), "r20", "20 req/s"),
            (rate(2.5), "r2.5", "2.5 req/s"),
            (rate(0.125), "r0.125", "0.125 req/s"),
            (rate(1000.0), "r1000", "1000 req/s"),
            (sessions(0.5), "s0.5", "0.5 sessions/s"),
        ];
        for (load, dir, label) in rows {
            assert_eq!(load.dir_name(), dir);
            assert_eq!(load.to_string(), label);
        }
        assert_ne!(rate(8.0).seed_key(), Load::Concurrency(8).seed_key());
        assert_eq!(rate(8.0).sessions(), OPEN_LOOP_SESSIONS);
        // The unit survives the result files' fields; a request rate writes none.
        for load in [rate(2.5), sessions(2.5)] {
            assert_eq!(LoadInfo::from(&load).load(), Some(load));
        }
        assert_eq!(LoadInfo::from(&rate(2.5)).rate_unit, None);
        assert_eq!(
            LoadInfo::from(&sessions(2.5)).rate_unit,
            Some(RateUnit::Sessions)
        );
    }

    #[test]
    fn probe_rates_keep_three_significant_digits() {
        // (raw, rounded)
        let rows = [
            (22.3456, 22.3),
            (1234.5, 1230.0),
            (0.04567, 0.046),
            (7.0, 7.0),
            (0.0001, 0.001),
            (f64::NAN, 0.001),
        ];
        for (raw, want) in rows {
            assert!(
                (round_rps(raw) - want).abs() < 1e-9,
                "{raw} -> {}",
                round_rps(raw)
            );
        }
    }

    #[test]
    fn rate_units_name_what_the_open_loop_rates_count() {
        let load = |rps: Option<f64>, unit: Option<RateUnit>| LoadInfo {
            concurrency: rps.is_none().then_some(4),
            request_rate: rps,
            rate_unit: unit,
            ..LoadInfo::default()
        };
        let requests = load(Some(2.0), None);
        let sessions = load(Some(0.5), Some(RateUnit::Sessions));
        let closed = load(None, None);
        let units = |ls: &[&LoadInfo]| LoadInfo::rate_units(ls.iter().copied());
        assert_eq!(units(&[&closed, &requests]), "req/s");
        assert_eq!(units(&[&closed, &sessions, &sessions]), "sessions/s");
        assert_eq!(units(&[&sessions, &requests]), "req/s or sessions/s");
        assert_eq!(units(&[&closed]), "req/s");
    }
}
