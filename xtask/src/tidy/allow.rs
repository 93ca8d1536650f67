//! What the tidy rules let pass, each with the reason. An entry that no longer matches
//! anything (the file was split, the function shortened, the unwrap removed) is itself a
//! problem, so the list only ever shrinks to what is still true.

use std::path::Path;

use super::lexer;
use super::rules::{MAX_FILE_LINES, MAX_FN_LINES};

/// Which rule an entry lets pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A file over [`MAX_FILE_LINES`].
    LongFile,
    /// A function over [`MAX_FN_LINES`] (`item`: its name).
    LongFunction,
    /// An unwrap in library code (`item`: the trimmed line).
    Unwrap,
    /// An import cycle (`path`: the crate's folder, `item`: its modules as tidy lists them).
    Cycle,
}

/// One exception.
struct Allowed {
    kind: Kind,
    path: &'static str,
    item: &'static str,
    #[allow(dead_code, reason = "read by people: every exception says why")]
    why: &'static str,
}

const fn allow(kind: Kind, path: &'static str, item: &'static str, why: &'static str) -> Allowed {
    Allowed {
        kind,
        path,
        item,
        why,
    }
}

/// Work left from issue 26: long code not yet split by job. Each entry is debt, not a
/// reason; remove it when the code is split.
const DEBT: &str = "not split yet (issue 26 debt)";

const ALLOWED: &[Allowed] = &[
    allow(Kind::Cycle, "crates/core", "plan, workload", DEBT),
    allow(
        Kind::Cycle,
        "crates/core",
        "plan::credentials, plan::validator",
        DEBT,
    ),
    allow(
        Kind::Cycle,
        "crates/model",
        "gpu, gpu::energy, results::dir, results::run_info, results::summary, scrape, scrape::summary",
        DEBT,
    ),
    allow(
        Kind::Cycle,
        "crates/report",
        "figures::frame, figures::marks",
        DEBT,
    ),
    allow(
        Kind::Unwrap,
        "crates/core/src/pacer.rs",
        "Arrival::Poisson => Gaps::Exponential(Exp::new(1.0).expect(\"rate 1 is valid\")),",
        "a constant: the exponential of rate 1 always exists",
    ),
    allow(
        Kind::Unwrap,
        "crates/core/src/pacer.rs",
        "Err(_) => Gaps::Exponential(Exp::new(1.0).expect(\"rate 1 is valid\")),",
        "a constant: the exponential of rate 1 always exists",
    ),
    allow(Kind::LongFile, "crates/cli/src/load/tests.rs", "", DEBT), // 422 lines
    allow(Kind::LongFunction, "crates/cli/src/run.rs", "run", DEBT), // 133 lines
    allow(
        Kind::LongFunction,
        "crates/cli/tests/cli/repeats.rs",
        "three_repeats_of_two_endpoints_interleave_and_spread",
        DEBT,
    ), // 121 lines
    allow(
        Kind::LongFunction,
        "crates/cli/tests/export.rs",
        "export_of_a_simulator_run",
        DEBT,
    ), // 105 lines
    allow(Kind::LongFile, "crates/cli/tests/llamacpp.rs", "", DEBT), // 446 lines
    allow(
        Kind::LongFunction,
        "crates/cli/tests/llamacpp.rs",
        "six_scenarios_at_n4_against_llama_cpp",
        DEBT,
    ), // 111 lines
    allow(
        Kind::LongFunction,
        "crates/core/src/driver/cell.rs",
        "run_one",
        DEBT,
    ), // 174 lines
    allow(Kind::LongFile, "crates/core/src/plan/tests.rs", "", DEBT), // 679 lines
    allow(
        Kind::LongFunction,
        "crates/core/src/plan/tests.rs",
        "each_invalid_field_is_named",
        "a table: one row per invalid field and the message naming it",
    ), // 199 lines
    allow(
        Kind::LongFile,
        "crates/core/src/plan/validator.rs",
        "",
        DEBT,
    ), // 427 lines
    allow(Kind::LongFunction, "crates/core/src/plan.rs", "build", DEBT), // 137 lines
    allow(
        Kind::LongFunction,
        "crates/model/src/metrics/steady.rs",
        "judge",
        DEBT,
    ), // 109 lines
    allow(
        Kind::LongFile,
        "crates/model/src/scrape/summary.rs",
        "",
        DEBT,
    ), // 405 lines
    allow(Kind::LongFile, "crates/model/src/scrape/tests.rs", "", DEBT), // 472 lines
    allow(
        Kind::LongFunction,
        "crates/model/src/validate.rs",
        "check_cell",
        DEBT,
    ), // 189 lines
    allow(
        Kind::LongFunction,
        "crates/report/src/figures/timeline.rs",
        "draw",
        DEBT,
    ), // 125 lines
    allow(
        Kind::LongFunction,
        "crates/report/src/html/run.rs",
        "section",
        DEBT,
    ), // 156 lines
    allow(
        Kind::LongFunction,
        "crates/report/src/markdown.rs",
        "render",
        DEBT,
    ), // 111 lines
    allow(
        Kind::LongFunction,
        "crates/report/src/matrix.rs",
        "new",
        DEBT,
    ), // 108 lines
    allow(
        Kind::LongFunction,
        "crates/report/src/pipeline.rs",
        "render",
        DEBT,
    ), // 176 lines
    allow(Kind::LongFile, "crates/report/tests/export.rs", "", DEBT), // 404 lines
    allow(
        Kind::LongFunction,
        "crates/report/tests/report/compare.rs",
        "compare_reads_the_summaries_values_and_matches_by_scenario_and_load",
        DEBT,
    ), // 136 lines
];

/// Whether `item` of `path` may break the rule of `kind`.
pub fn allows(kind: Kind, path: &str, item: &str) -> bool {
    ALLOWED
        .iter()
        .any(|a| a.kind == kind && a.path == path && a.item == item)
}

/// Entries that no longer match anything under `root`.
pub fn stale(root: &Path) -> Vec<String> {
    ALLOWED
        .iter()
        .filter(|a| !still_needed(root, a))
        .map(|a| {
            format!(
                "xtask/src/tidy/allow.rs: the {:?} exception for {} `{}` matches nothing any more: remove it",
                a.kind, a.path, a.item
            )
        })
        .collect()
}

fn still_needed(root: &Path, a: &Allowed) -> bool {
    if a.kind == Kind::Cycle {
        return super::crate_cycles(&root.join(a.path))
            .is_ok_and(|cycles| cycles.iter().any(|c| c == a.item));
    }
    let Ok(text) = std::fs::read_to_string(root.join(a.path)) else {
        return false;
    };
    let code = lexer::code_only(&text);
    match a.kind {
        Kind::LongFile => text.lines().count() > MAX_FILE_LINES,
        Kind::LongFunction => lexer::functions(&code)
            .iter()
            .any(|f| f.name == a.item && f.lines() > MAX_FN_LINES),
        Kind::Unwrap => text.lines().any(|l| l.trim() == a.item),
        Kind::Cycle => unreachable!("checked before reading a file"),
    }
}
