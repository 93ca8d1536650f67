//! The live progress display: one bar per cell on stderr showing phase, in-flight,
//! completed, errors, tokens/s and time left, redrawn from the core's [`Live`] counters; a
//! one-line result per finished cell. Hidden with `--quiet` or when stderr is not a terminal
//! (then the per-cell lines go to the log).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use plateau_core::driver::Observer;
use plateau_core::live::Live;
use plateau_core::plan::{Cell, Load, Plan, format_rps};
use plateau_model::results::summary::CellSummary;

/// Owns the bars.
pub struct Display {
    bars: MultiProgress,
    visible: bool,
}

impl Display {
    /// A display on stderr, hidden when `quiet` or stderr is not a terminal.
    pub fn new(quiet: bool) -> Self {
        let target = if quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr_with_hz(4)
        };
        let visible = !target.is_hidden();
        Display {
            bars: MultiProgress::with_draw_target(target),
            visible,
        }
    }

    /// The bar container (the log writer suspends it while writing).
    pub fn bars(&self) -> MultiProgress {
        self.bars.clone()
    }
}

/// Follows a run: creates a bar per cell and ticks it from the live counters.
pub struct RunProgress<'a> {
    display: &'a Display,
    plan: &'a Plan,
    live: Arc<Live>,
    current: Mutex<Option<(ProgressBar, tokio::task::JoinHandle<()>)>>,
    run_started: Instant,
}

impl<'a> RunProgress<'a> {
    /// Progress for `plan`, reading `live`.
    pub fn new(display: &'a Display, plan: &'a Plan, live: Arc<Live>) -> Self {
        RunProgress {
            display,
            plan,
            live,
            current: Mutex::new(None),
            run_started: Instant::now(),
        }
    }

    fn label(&self, cell: &Cell) -> String {
        self.plan.cell_label(cell)
    }
}

impl Observer for RunProgress<'_> {
    fn cell_started(&self, index: usize, total: usize, cell: &Cell) {
        let schedule = self.plan.schedule_of(cell);
        let planned = schedule.m1();
        let remaining_cells = u32::try_from(total - index - 1).unwrap_or(0);
        let after = (schedule.m1() + schedule.drain.typical() / 4) * remaining_cells;
        let label = self.label(cell);
        if !self.display.visible {
            // One line per cell at the default level (its result); the start with -v.
            tracing::debug!(
                "[{}/{}] {label}: starting ({}s planned)",
                index + 1,
                total,
                planned.as_secs()
            );
        }
        let bar = self
            .display
            .bars
            .add(ProgressBar::new(planned.as_millis() as u64));
        bar.set_style(
            ProgressStyle::with_template("{prefix:.bold} {bar:24.cyan/blue} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_prefix(format!("[{}/{}] {label}", index + 1, total));
        let live = self.live.clone();
        let ticker_bar = bar.clone();
        let started = Instant::now();
        // "in-flight 3/8" in a closed loop; "in-flight 3 @ 20 req/s" in an open one.
        let target = match cell.load {
            Load::Concurrency(n) => format!("/{n}"),
            Load::Rate(r) => format!(" @ {} req/s", format_rps(r.rps)),
        };
        let ticker = tokio::spawn(async move {
            let mut last = (Instant::now(), 0u64);
            let mut rate = 0.0;
            loop {
                tokio::time::sleep(Duration::from_millis(250)).await;
                let s = live.snapshot();
                let now = Instant::now();
                let dt = now.duration_since(last.0).as_secs_f64();
                if dt >= 1.0 {
                    rate = (s.output_tokens.saturating_sub(last.1)) as f64 / dt;
                    last = (now, s.output_tokens);
                }
                let elapsed = started.elapsed();
                ticker_bar.set_position(elapsed.as_millis().min(u128::from(u64::MAX)) as u64);
                let phase = s.phase.map_or("-", |p| p.name());
                let left = planned.saturating_sub(elapsed).as_secs();
                ticker_bar.set_message(format!(
                    "{phase:<9} in-flight {}{target}  done {}  err {}  {rate:.0} tok/s  {left}s left (+~{}s after)",
                    s.in_flight, s.ok, s.errors, after.as_secs()
                ));
            }
        });
        if let Ok(mut cur) = self.current.lock() {
            *cur = Some((bar, ticker));
        }
    }

    fn cell_finished(
        &self,
        index: usize,
        total: usize,
        cell: &Cell,
        summary: &CellSummary,
        resumed: bool,
    ) {
        if let Ok(mut cur) = self.current.lock()
            && let Some((bar, ticker)) = cur.take()
        {
            ticker.abort();
            bar.finish_and_clear();
            self.display.bars.remove(&bar);
        }
        let line = format!(
            "[{}/{}] {}{}: {}",
            index + 1,
            total,
            self.label(cell),
            if resumed { " (resumed)" } else { "" },
            plateau_report::table::one_line(summary)
        );
        self.print(line);
    }

    fn cell_skipped(&self, index: usize, total: usize, cell: &Cell, reason: &str) {
        self.print(format!(
            "[{}/{}] {}: skipped ({reason})",
            index + 1,
            total,
            self.label(cell)
        ));
    }
}

impl RunProgress<'_> {
    /// A line above the progress bar, or a log line when there is no bar.
    fn print(&self, line: String) {
        if self.display.visible {
            let _ = self.display.bars.println(line);
        } else {
            tracing::info!("{line}");
        }
    }
}

impl Drop for RunProgress<'_> {
    fn drop(&mut self) {
        if let Ok(mut cur) = self.current.lock()
            && let Some((bar, ticker)) = cur.take()
        {
            ticker.abort();
            bar.finish_and_clear();
        }
        tracing::debug!("run took {:.1}s", self.run_started.elapsed().as_secs_f64());
    }
}
