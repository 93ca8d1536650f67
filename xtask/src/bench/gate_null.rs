//! `cargo xtask bench gate`: how often `plateau check` cries wolf. Runs a pool of
//! unchanged simulator runs (realistic profile, A1, N = 4, 6 s Measure, seeds varied: the
//! configuration of `tools/history-proof.sh`), then draws `--sequences` seeded sequences of
//! 12 runs from the pool and gates each run of a sequence against the runs before it (the
//! last 1 and the last 3, as `--against "last N"` would) with the default tolerances and
//! the gate's own code ([`plateau_history::gate::judge_pool`]). Every alarm is a false one:
//! nothing changed. Prints the alarms per check and the sequences with at least one.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use plateau_history::gate::{self, Findings, Judgement};
use plateau_model::config::CheckConfig;
use plateau_model::results::dir::ResultsDir;
use plateau_report::compare::{self, blocks::Loaded, runs};
use rand::SeedableRng;
use rand::seq::SliceRandom;

/// Runs per sequence, as in the proof.
const SEQUENCE: usize = 12;

/// `bench gate` options.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Unchanged simulator runs in the pool the sequences are drawn from.
    #[arg(long, default_value_t = 24)]
    pub pool: usize,
    /// Seeded null sequences of 12 runs.
    #[arg(long, default_value_t = 200)]
    pub sequences: usize,
    /// Bootstrap resamples per check (`plateau check`'s default).
    #[arg(long, default_value_t = 2000)]
    pub resamples: usize,
    /// Where the pool's runs are kept (reused when already there).
    #[arg(long, default_value = "target/bench-gate")]
    pub dir: PathBuf,
    /// A `plateau` binary to run the pool with instead of building this checkout's.
    #[arg(long)]
    pub plateau: Option<PathBuf>,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    if args.pool < SEQUENCE {
        bail!(
            "--pool {} is below the {SEQUENCE} runs of a sequence",
            args.pool
        );
    }
    let plateau = match &args.plateau {
        Some(p) => p.clone(),
        None => super::release_plateau()?,
    };
    let dirs = pool(&plateau, &args.dir, args.pool)?;
    let read: Vec<ResultsDir> = dirs
        .iter()
        .map(|d| ResultsDir::read(d).with_context(|| format!("reading {}", d.display())))
        .collect::<anyhow::Result<_>>()?;
    let loaded: Vec<Loaded> = read
        .iter()
        .zip(&dirs)
        .map(|(r, d)| one_cell(r).with_context(|| format!("loading {}", d.display())))
        .collect::<anyhow::Result<_>>()?;
    let opts = gate::Options {
        resamples: args.resamples,
        allow_unsteady: false,
        tolerances: CheckConfig::default().tolerances(),
    };
    for last in [1, 3] {
        let t = tally(&loaded, args.sequences, last, &opts);
        println!(
            "gate on null sequences ({} of {SEQUENCE} runs from a pool of {}, each run vs the \
             last {last}, default tolerances, {} resamples): {} checks, {} false alarm(s) \
             ({:.2}%), {} sequence(s) with one ({:.1}%), {} check(s) not judged; alarms by \
             number: {:?}",
            args.sequences,
            args.pool,
            args.resamples,
            t.checks,
            t.alarms,
            100.0 * t.alarms as f64 / t.checks.max(1) as f64,
            t.sequences_alarmed,
            100.0 * t.sequences_alarmed as f64 / args.sequences.max(1) as f64,
            t.unjudged,
            t.by_number
        );
    }
    Ok(())
}

/// What the sequences gave.
#[derive(Default)]
struct Tally {
    checks: usize,
    alarms: usize,
    sequences_alarmed: usize,
    unjudged: usize,
    by_number: std::collections::BTreeMap<&'static str, usize>,
}

/// Gates every run but the first of `sequences` seeded draws of [`SEQUENCE`] pool runs
/// against the `last` runs before it.
fn tally(pool: &[Loaded], sequences: usize, last: usize, opts: &gate::Options) -> Tally {
    let mut t = Tally::default();
    for seed in 0..sequences as u64 {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut order: Vec<usize> = (0..pool.len()).collect();
        order.shuffle(&mut rng);
        let mut alarmed = false;
        for i in 1..SEQUENCE {
            let base: Vec<Loaded> = order[i.saturating_sub(last)..i]
                .iter()
                .enumerate()
                .map(|(run, &k)| Loaded {
                    run,
                    ..pool[k].clone()
                })
                .collect();
            let cand = [pool[order[i]].clone()];
            let mut found = Findings::default();
            gate::judge_pool("A1/c4", base, &cand, opts, &mut found);
            t.checks += 1;
            for line in &found.lines {
                match line.judgement {
                    Judgement::Regressed => *t.by_number.entry(line.name).or_default() += 1,
                    Judgement::Unjudged(_) => t.unjudged += 1,
                    _ => {}
                }
            }
            let regressed = found
                .lines
                .iter()
                .any(|l| l.judgement == Judgement::Regressed);
            t.alarms += usize::from(regressed);
            alarmed |= regressed;
        }
        t.sequences_alarmed += usize::from(alarmed);
    }
    t
}

/// The pool's `n` results directories under `dir`, each run now unless already complete.
fn pool(plateau: &Path, dir: &Path, n: usize) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    (1..=n)
        .map(|k| {
            let out = dir.join(format!("null-{k}"));
            if out.join("run.json").is_file() && out.join("sim/m/A1/c4/summary.json").is_file() {
                return Ok(out);
            }
            let config = dir.join(format!("null-{k}.json"));
            std::fs::write(&config, config_text(k, &out))
                .with_context(|| format!("writing {}", config.display()))?;
            eprintln!("pool run {k} of {n}");
            let status = std::process::Command::new(plateau)
                .args(["run", "-q", "--config"])
                .arg(&config)
                .stdout(std::process::Stdio::null())
                .status()
                .with_context(|| format!("running {}", plateau.display()))?;
            // Exit 1 is a failed check (an unsteady cell); the gate judges that itself.
            if !matches!(status.code(), Some(0 | 1)) {
                bail!("pool run {k} ({}) exited {status}", config.display());
            }
            Ok(out)
        })
        .collect()
}

/// `tools/history-proof.sh`'s configuration at decode scale 1, seed `7k + 1`.
fn config_text(k: usize, out: &Path) -> String {
    serde_json::json!({
        "endpoints": [{"name": "sim", "engine": "sim", "sim": {"profile": "realistic",
            "seed": k * 7 + 1, "engine": {"decode_base_ms": 8, "decode_per_seq_ms": 0.5}}}],
        "models": [{"id": "m", "name": "plateau-sim"}],
        "scenarios": ["A1"], "batch_sizes": [4],
        "fill_seconds": 0.5, "stabilize_seconds": 1, "measure_seconds": 6, "drain_seconds": 2,
        "max_tokens": 32, "output_dir": out,
    })
    .to_string()
}

/// The one cell of a pool run, loaded as the gate loads it.
fn one_cell(dir: &ResultsDir) -> anyhow::Result<Loaded<'_>> {
    let groups = runs::groups(dir);
    let [group] = groups.as_slice() else {
        bail!("expected one cell, found {}", groups.len());
    };
    let mut loaded = compare::load(group, 0).map_err(anyhow::Error::msg)?;
    let Some(one) = loaded.pop() else {
        bail!("the cell has no records");
    };
    Ok(one)
}
