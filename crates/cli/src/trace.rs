//! `plateau trace`: a trace's statistics (`stats`: arrival rate over time, length
//! distributions, the ideal prefix-cache share from `hash_ids`) and its conversion to
//! plateau's own JSONL (`convert`), both over [`plateau_scenarios::trace`].

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::anyhow;
use clap::{Args, Subcommand};
use plateau_model::metrics::Distribution;
use plateau_scenarios::trace::{self, Format, stats::Stats};

use crate::exit::Failure;

/// `plateau trace`.
#[derive(Args)]
pub struct TraceArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: TraceCommand,
}

/// `plateau trace <command>`.
#[derive(Subcommand)]
pub enum TraceCommand {
    /// Arrival rate over time, input and output length distributions, and the share of
    /// input tokens an ideal prefix cache could reuse (from `hash_ids`).
    Stats {
        /// The trace file.
        path: PathBuf,
        /// Its format: mooncake, burstgpt, azure or plateau.
        #[arg(long, value_parser = parse_format)]
        format: Format,
        /// Width of the arrival-rate buckets, seconds.
        #[arg(long, default_value_t = 60.0, value_name = "SECONDS")]
        bucket_s: f64,
        /// Prompt tokens per `hash_ids` entry.
        #[arg(long, default_value_t = 512)]
        block_tokens: u32,
        /// Print the statistics as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write the trace in plateau's JSONL format (never over an existing file).
    Convert {
        /// The trace file.
        path: PathBuf,
        /// Its format: mooncake, burstgpt, azure or plateau.
        #[arg(long, value_parser = parse_format)]
        format: Format,
        /// The file to write.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
}

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse()
}

/// Runs `plateau trace`.
pub fn trace(args: TraceArgs) -> Result<ExitCode, Failure> {
    match args.command {
        TraceCommand::Stats {
            path,
            format,
            bucket_s,
            block_tokens,
            json,
        } => {
            if !(bucket_s.is_finite() && bucket_s > 0.0) {
                return Err(Failure::bad_input(anyhow!(
                    "--bucket-s: {bucket_s} is not allowed; expected seconds above 0"
                )));
            }
            let records = read(&path, format)?;
            let stats = trace::stats::stats(&records, bucket_s, block_tokens);
            if json {
                let text =
                    serde_json::to_string_pretty(&stats).map_err(|e| Failure::other(e.into()))?;
                println!("{text}");
            } else {
                print!("{}", render(&stats, bucket_s));
            }
        }
        TraceCommand::Convert { path, format, out } => {
            let records = read(&path, format)?;
            convert(&records, &out)?;
            println!(
                "wrote {} requests to {} (plateau format)",
                records.len(),
                out.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn read(path: &Path, format: Format) -> Result<Vec<trace::Record>, Failure> {
    trace::read(path, format).map_err(|e| Failure::bad_input(e.into()))
}

/// Writes `records` to a new file `out` (an existing one is an error, not overwritten).
fn convert(records: &[trace::Record], out: &Path) -> Result<(), Failure> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(out)
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                Failure::bad_input(anyhow!(
                    "--out {}: already exists; plateau does not overwrite it: choose another --out",
                    out.display()
                ))
            } else {
                Failure::io(anyhow!("--out {}: {e}", out.display()))
            }
        })?;
    let mut w = std::io::BufWriter::new(file);
    trace::write(records, &mut w, out).map_err(|e| Failure::io(e.into()))?;
    w.flush()
        .map_err(|e| Failure::io(anyhow!("{}: {e}", out.display())))?;
    Ok(())
}

/// The statistics as text.
fn render(s: &Stats, bucket_s: f64) -> String {
    let mut out = format!("requests: {}\n", s.requests);
    if let Some(d) = s.duration_s {
        out += &format!("duration: {d:.1} s (first to last arrival)\n");
    }
    if let Some(r) = s.mean_rps {
        out += &format!("mean rate: {r:.3} req/s\n");
    }
    let lengths = |name: &str, d: &Option<Distribution>| match d {
        Some(d) => format!(
            "{name} tokens: mean {:.0}, p50 {:.0}, p90 {:.0}, p99 {:.0}, max {:.0}\n",
            d.mean, d.p50, d.p90, d.p99, d.max
        ),
        None => format!("{name} tokens: absent (no record gives a length)\n"),
    };
    out += &lengths("input", &s.input_tokens);
    out += &lengths("output", &s.output_tokens);
    if let Some(n) = s.sessions {
        out += &format!("sessions: {n}\n");
    }
    for (model, n) in &s.models {
        out += &format!("model {model}: {n} requests\n");
    }
    out += &match (s.ideal_prefix_share, &s.prefix_share_absent) {
        (Some(p), _) => format!(
            "ideal prefix-cache share: {:.1}% of input tokens\n",
            p * 100.0
        ),
        (None, why) => format!(
            "ideal prefix-cache share: absent ({})\n",
            why.as_deref().unwrap_or("unknown")
        ),
    };
    out += &format!("arrivals per {bucket_s} s:\n");
    for b in &s.rate {
        out += &format!(
            "  {:>9.1} s  {:>7} requests  {:.3} req/s\n",
            b.start_s, b.requests, b.rps
        );
    }
    out
}
