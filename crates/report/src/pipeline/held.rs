//! What the report holds of each cell for the whole run ([`read`], [`slim`]), and the whole
//! summary read again for the one part that needs it (a cell's timeline: [`whole`]).
//!
//! The cross-cell parts (headline, figures, tables, pages, summary.csv, the checks and
//! verdicts) read a cell's scalars and distributions; a cell's per-second series, its
//! fingerprint of the inputs and the other blocks below are read only by its own timeline.
//! Those are dropped as each summary is read, so a run of 10,000 cells holds 10,000 slim
//! summaries, not 10,000 whole ones (`cargo xtask bench report`).

use std::path::Path;

use plateau_model::results::ResultsError;
use plateau_model::results::dir::{CellFiles, ResultsDir};
use plateau_model::results::summary::CellSummary;

use crate::matrix::Cell;

/// `root` read with each summary slimmed as soon as it is read ([`slim`]).
pub(crate) fn read(root: &Path) -> Result<ResultsDir, ResultsError> {
    ResultsDir::read_with(root, slim)
}

/// Drops from `s` what only the cell's own timeline reads (per-second series, the
/// stationarity diagnostics behind the verdict, the inputs' fingerprint, the per-turn
/// table, the load-sharding blocks, the unmeasured notes, the counts of where each request's
/// token counts came from): every column of summary.csv, every quantity, check and verdict
/// reads the same of the slim summary as of the whole one.
pub(crate) fn slim(s: &mut CellSummary) {
    s.fingerprint = None;
    s.timetable = None;
    s.shards = Vec::new();
    let m = &mut s.metrics;
    m.turns = Vec::new();
    m.unmeasured = Default::default();
    m.tokens.n_out_sources = Default::default();
    m.tokens.n_in_sources = Default::default();
    let steady = &mut m.steady;
    steady.output_tps_per_second = Vec::new();
    steady.block_means_tps = Vec::new();
    steady.warmup = Vec::new();
    steady.not_judged = Vec::new();
    steady.level_shift = None;
    steady.batch_means = None;
    if let Some(load) = &mut m.load {
        load.in_flight_per_second = Vec::new();
    }
}

/// The whole summary of `cell` (read again from its directory) as the report names it (a
/// merged directory's endpoints may be renamed): what its timeline draws.
pub(crate) fn whole(cell: &Cell) -> Result<CellSummary, ResultsError> {
    let mut s = CellFiles::reread(cell.dir)?;
    s.cell.clone_from(&cell.summary.cell);
    Ok(s)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use plateau_model::results::csv::COLUMNS;
    use plateau_model::results::summary::CellSummary;
    use plateau_model::validate::{Thresholds, check_cell, verdict};

    use super::slim;

    /// The open-loop fixture cell (load block, per-second series), with every dropped
    /// field filled so that dropping shows.
    fn whole() -> CellSummary {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/open");
        let path = walk(&dir).expect("an open-loop fixture summary");
        let mut s: CellSummary = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        s.metrics.steady.block_means_tps = vec![1.0; 60];
        s.metrics.steady.output_tps_per_second = vec![2.0; 600];
        s.metrics.steady.not_judged = vec!["trend: too few blocks".into()];
        s.metrics.unmeasured.insert("x".into(), "why".into());
        s
    }

    fn walk(dir: &Path) -> Option<std::path::PathBuf> {
        for e in std::fs::read_dir(dir).ok()?.flatten() {
            let p = e.path();
            if p.is_dir() {
                if let Some(found) = walk(&p) {
                    return Some(found);
                }
            } else if p.ends_with("summary.json") {
                return Some(p);
            }
        }
        None
    }

    #[test]
    fn a_held_cell_keeps_no_per_second_series() {
        let mut s = whole();
        assert!(
            s.metrics
                .load
                .as_ref()
                .is_some_and(|l| !l.in_flight_per_second.is_empty())
        );
        slim(&mut s);
        let steady = &s.metrics.steady;
        assert!(steady.output_tps_per_second.is_empty());
        assert!(steady.block_means_tps.is_empty() && steady.not_judged.is_empty());
        assert!(s.metrics.load.unwrap().in_flight_per_second.is_empty());
        assert!(s.metrics.unmeasured.is_empty() && s.fingerprint.is_none());
    }

    #[test]
    fn a_held_cell_reads_as_the_whole_one() {
        let full = whole();
        let mut held = full.clone();
        slim(&mut held);
        for c in COLUMNS {
            assert_eq!(c.value(&held), c.value(&full), "{}", c.header());
        }
        let t = Thresholds::default();
        assert_eq!(check_cell(&held, &t), check_cell(&full, &t));
        assert_eq!(verdict(&held, &t), verdict(&full, &t));
    }

    /// What a held cell keeps on the heap, measured: the bytes this thread allocated and
    /// did not free while reading the whole summary and slimming it. Each heavy part held
    /// again shows (the per-second series are 4.8 KB here; the counts of token sources,
    /// 0.7 KB a cell in `heaptrack`, were dropped for this bound).
    #[test]
    fn a_held_cell_keeps_little_heap() {
        let text = serde_json::to_vec(&whole()).unwrap();
        let before = counting::live();
        let mut s: CellSummary = serde_json::from_slice(&text).unwrap();
        slim(&mut s);
        let kept = counting::live() - before;
        drop(s);
        assert!(kept < HELD_HEAP, "a held cell keeps {kept} bytes of heap");
    }

    /// The bound of [`a_held_cell_keeps_little_heap`]: the fixture's slim summary keeps
    /// 836 bytes (its strings, the open loop's load block); with its distributions'
    /// small-sample notes as strings it kept 2,112, with the token sources' counts 2,860.
    const HELD_HEAP: isize = 1_000;

    /// Counts the bytes each thread allocated and has not freed (a test thread's count is
    /// its own, whatever other tests run beside it).
    #[allow(unsafe_code)]
    mod counting {
        use std::alloc::{GlobalAlloc, Layout, System};
        use std::cell::Cell;

        thread_local! {
            static LIVE: Cell<isize> = const { Cell::new(0) };
        }

        fn add(n: isize) {
            let _ = LIVE.try_with(|l| l.set(l.get() + n));
        }

        /// This thread's bytes allocated and not freed.
        pub(super) fn live() -> isize {
            LIVE.with(Cell::get)
        }

        struct Counting;

        // SAFETY: every call is passed on to `System` unchanged; the count is a const
        // thread-local `Cell`, which neither allocates nor has a destructor.
        unsafe impl GlobalAlloc for Counting {
            unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
                add(layout.size() as isize);
                // SAFETY: the caller's contract for `alloc`, passed on.
                unsafe { System.alloc(layout) }
            }

            unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
                add(-(layout.size() as isize));
                // SAFETY: the caller's contract for `dealloc`, passed on.
                unsafe { System.dealloc(ptr, layout) }
            }

            unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
                add(new_size as isize - layout.size() as isize);
                // SAFETY: the caller's contract for `realloc`, passed on.
                unsafe { System.realloc(ptr, layout, new_size) }
            }
        }

        #[global_allocator]
        static COUNTING: Counting = Counting;
    }

    /// The summary's own size is what every held cell costs before its heap: blocks most
    /// cells lack (server, GPU, fingerprint, ...) are boxed, so an absent one costs a
    /// pointer, not its whole size (10 KB a cell when they were inline; 4,656 bytes with the
    /// sessions block inline, 3,832 now).
    #[test]
    fn a_summary_is_small_without_its_optional_blocks() {
        let size = std::mem::size_of::<CellSummary>();
        assert!(size < 4_000, "CellSummary is {size} bytes");
    }
}
