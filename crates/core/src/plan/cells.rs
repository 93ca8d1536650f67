//! The plan's matrix and its geometry: the cells in run order, the in-flight bound, each
//! load's phase schedule, the wall-time estimate and where each cell's files go.

use std::path::PathBuf;
use std::time::Duration;

use super::{Cell, Load, OPEN_LOOP_SESSIONS, Plan, Rate, cell_dir_name};
use plateau_model::config::RateUnit;
use plateau_model::phase::{Adaptive, Schedule};
use plateau_model::shard::{Shard, ShardBy};

impl Plan {
    /// Every cell of the listed loads. One run of each: endpoints outermost, then models,
    /// scenarios, concurrencies, then rates. With `repeats` K > 1, K passes over the
    /// matrix, each with the endpoints innermost and rotated by one per pass, so drift over
    /// time (thermals, other tenants) falls on every endpoint alike and none always runs
    /// first. Capacity-search probes are not listed: they are decided as the run goes.
    /// Under `--shard-by cells`, only this runner's: every K-th of that order.
    pub fn cells(&self) -> Vec<Cell> {
        let all = self.all_cells();
        match self.shard {
            Some(shard) => all
                .into_iter()
                .enumerate()
                .filter(|(position, _)| shard.runs(*position))
                .map(|(_, cell)| cell)
                .collect(),
            None => all,
        }
    }

    /// Every cell of the matrix, whichever runner runs it (see [`Plan::cells`]).
    fn all_cells(&self) -> Vec<Cell> {
        let loads = self.loads();
        let cell = |endpoint, model, scenario: &String, load, repeat| Cell {
            endpoint,
            model,
            scenario: scenario.clone(),
            load,
            repeat,
            measure: None,
        };
        let endpoints = self.endpoints.len();
        let mut cells = Vec::new();
        if self.repeats <= 1 {
            for endpoint in 0..endpoints {
                for model in 0..self.models.len() {
                    for scenario in &self.scenarios {
                        for &load in &loads {
                            cells.push(cell(endpoint, model, scenario, load, 1));
                        }
                    }
                }
            }
            return cells;
        }
        for repeat in 1..=self.repeats {
            for model in 0..self.models.len() {
                for scenario in &self.scenarios {
                    for &load in &loads {
                        for i in 0..endpoints {
                            let endpoint = (i + repeat as usize - 1) % endpoints;
                            cells.push(cell(endpoint, model, scenario, load, repeat));
                        }
                    }
                }
            }
        }
        cells
    }

    /// The listed loads: every N, then every rate.
    pub fn loads(&self) -> Vec<Load> {
        self.batch_sizes
            .iter()
            .map(|&n| Load::Concurrency(n))
            .chain(self.request_rates.iter().map(|&rps| self.rate(rps)))
            .collect()
    }

    /// The most requests the run may hold in flight at once: the largest N, or for open
    /// loops `max_concurrency` (else [`OPEN_LOOP_SESSIONS`], past which an open loop is
    /// far beyond any server's capacity anyway). Sizes the connection pool and the
    /// open-file limit.
    pub fn max_in_flight(&self) -> u32 {
        let closed = self.batch_sizes.iter().copied().max().unwrap_or(1);
        let open = !self.request_rates.is_empty() || self.capacity.is_some();
        let open = if open {
            self.max_concurrency.unwrap_or(OPEN_LOOP_SESSIONS)
        } else {
            1
        };
        closed.max(open)
    }

    /// The open-loop load at `rps` with the plan's arrival process and cap.
    pub fn rate(&self, rps: f64) -> Load {
        Load::Rate(Rate {
            rps,
            arrival: self.arrival,
            max_concurrency: self.max_concurrency,
            unit: self.rate_unit,
        })
    }

    /// The phase schedule of `cell`: the plan's, with the cell's own Measure when it has
    /// one (a capacity probe).
    pub fn schedule_of(&self, cell: &Cell) -> Schedule {
        let mut schedule = self.schedule(&self.load_of(cell));
        if let Some(measure) = cell.measure {
            schedule.measure = measure;
            if let Some(a) = &mut schedule.adaptive {
                a.measure_min = None;
            }
        }
        schedule
    }

    /// What this runner holds of `cell`'s load: its share under `--shard-by load`, else
    /// the cell's load.
    pub fn load_of(&self, cell: &Cell) -> Load {
        self.shard.map_or(cell.load, |s| s.part(&cell.load))
    }

    /// Makes this plan runner `shard.index` of `shard.count`. Under load sharding each
    /// runner's seed is its own (derived from the config's seed and the index), so the K
    /// runners send different prompts and their arrival processes are independent: K
    /// independent Poisson processes of rate r/K superpose into one of rate r. Refused:
    /// a capacity search under load sharding (each probe's rate follows from the last
    /// probe's verdict, which runners without a coordinator do not share) and an N
    /// smaller than K (a runner would hold nothing).
    pub fn shard(&mut self, shard: Shard) -> Result<(), String> {
        if shard.by == ShardBy::Load {
            if self.capacity.is_some() {
                return Err(format!(
                    "--shard-by load: a capacity search picks each probe's rate from the last \
                     probe's verdict, which {} runners without a coordinator do not share; \
                     shard by cells or run the search on one runner",
                    shard.count
                ));
            }
            if let Some(n) = self.batch_sizes.iter().find(|&&n| n < shard.count) {
                return Err(format!(
                    "--shard-by load: batch_sizes has N = {n}, fewer than the {} runners \
                     (each must hold at least one request)",
                    shard.count
                ));
            }
            let mut mix = crate::splitmix::SplitMix::new(u64::from(shard.index));
            self.seed ^= (mix.unit() * (1u64 << 53) as f64) as u64;
        }
        self.shard = Some(shard);
        Ok(())
    }

    /// The phase schedule of a cell under `load` (its slots: N, or the open loop's
    /// session count).
    pub fn schedule(&self, load: &Load) -> Schedule {
        Schedule {
            slots: load.sessions(),
            fill: self.phases.fill,
            stabilize: self.phases.stabilize,
            measure: self.phases.measure,
            drain: self.phases.drain,
            adaptive: self.phases.adaptive.map(|a| Adaptive {
                stabilize_min: Some(Duration::from_secs_f64(a.stabilize.min)),
                measure_min: Some(Duration::from_secs_f64(a.measure.min)),
                precision: a.precision,
            }),
        }
    }

    /// The run's shortest and longest wall time: adaptive phases take between their
    /// minimum and maximum lengths, Drain between nothing and its limit
    /// (for a derived limit, its typical value, 30 s: longer only for cells whose requests
    /// take over 15 s), and capacity searches between 2 and `max_probes` probes each (none
    /// under `rate_unit: sessions`).
    pub fn estimated_duration(&self) -> (Duration, Duration) {
        let listed = u32::try_from(self.cells().len()).unwrap_or(u32::MAX);
        // A capacity search runs at least 2 probes (a pass and a failure), at most
        // `max_probes`, for every endpoint x model x scenario.
        let searches = (self.endpoints.len() * self.models.len() * self.scenarios.len()) as u32;
        // Under rate_unit sessions the listed session rates are the answer: no probes.
        let probes = self
            .capacity
            .as_ref()
            .filter(|_| self.rate_unit != RateUnit::Sessions);
        let (fewest, most) = probes.map_or((0, 0), |c| {
            (2 * searches, c.max_probes.saturating_mul(searches))
        });
        let p = self.phases;
        let base = p.fill + p.stabilize + p.measure;
        // Adaptive phases end between their minimum and their maximum (the schedule's).
        let shortest = p.adaptive.map_or(base, |a| {
            p.fill + Duration::from_secs_f64(a.stabilize.min + a.measure.min)
        });
        (
            shortest * (listed + fewest),
            (base + p.drain.typical()) * (listed + most),
        )
    }

    /// The results directory of `cell`: `<output_dir>/<endpoint>/<model>/<scenario>/c<N>`
    /// (or `r<rate>` for an open loop).
    pub fn cell_dir(&self, cell: &Cell) -> PathBuf {
        self.output_dir
            .join(&self.endpoints[cell.endpoint].name)
            .join(&self.models[cell.model].id)
            .join(&cell.scenario)
            .join(cell_dir_name(&cell.load, cell.repeat))
    }

    /// `endpoint/model/scenario/c8-2`: the cell's directory under the results directory.
    pub fn cell_label(&self, cell: &Cell) -> String {
        format!(
            "{}/{}/{}/{}",
            self.endpoints[cell.endpoint].name,
            self.models[cell.model].id,
            cell.scenario,
            cell_dir_name(&cell.load, cell.repeat)
        )
    }
}
