//! The rules themselves, on one file's text at a time: the `//!` line, file and function
//! length, unwraps in library code, and dependency versions in member manifests. Each
//! returns its violations as `path:line: what is wrong` lines.

use super::allow::{self, Kind};
use super::lexer;

/// Longest file without an allow-list entry.
pub const MAX_FILE_LINES: usize = 400;

/// Longest function without an allow-list entry.
pub const MAX_FN_LINES: usize = 100;

/// The violations in the Rust file `rel` with contents `text`; `no_unwrap` for the
/// non-test code of a library crate.
pub fn source(rel: &str, text: &str, no_unwrap: bool) -> Vec<String> {
    let mut out = Vec::new();
    if !text.starts_with("//!") {
        out.push(format!(
            "{rel}:1: a source file opens with a `//!` line saying what it owns"
        ));
    }
    let lines = text.lines().count();
    if lines > MAX_FILE_LINES && !allow::allows(Kind::LongFile, rel, "") {
        out.push(format!(
            "{rel}: {lines} lines, over {MAX_FILE_LINES}: split it by concept (or allow it in xtask/src/tidy/allow.rs, saying why)"
        ));
    }
    let code = lexer::code_only(text);
    for f in lexer::functions(&code) {
        if f.lines() > MAX_FN_LINES && !allow::allows(Kind::LongFunction, rel, &f.name) {
            out.push(format!(
                "{rel}:{}: fn {} is {} lines, over {MAX_FN_LINES}: split it by job (or allow it in xtask/src/tidy/allow.rs, saying why)",
                f.first,
                f.name,
                f.lines()
            ));
        }
    }
    if no_unwrap {
        let code = lexer::without_tests(&code);
        for (k, (line, original)) in code.lines().zip(text.lines()).enumerate() {
            let unwraps = line.contains(".unwrap()") || line.contains(".expect(");
            if unwraps && !allow::allows(Kind::Unwrap, rel, original.trim()) {
                out.push(format!(
                    "{rel}:{}: `.unwrap()`/`.expect(` in library code panics on bad data: return an error (or allow it in xtask/src/tidy/allow.rs, saying why it cannot fail)",
                    k + 1
                ));
            }
        }
    }
    out
}

/// The violations in the member manifest `rel`: a dependency that names its own version
/// or path instead of `workspace = true`.
pub fn manifest(rel: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_deps = false;
    for (k, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with('[') {
            let section = line.trim_matches(['[', ']']);
            in_deps = section.ends_with("dependencies");
            if let Some(name) = section
                .rsplit_once("dependencies.")
                .map(|(_, name)| name.trim())
            {
                out.push(format!(
                    "{rel}:{}: [{section}]: say `{name}.workspace = true` under the dependencies table instead",
                    k + 1
                ));
            }
            continue;
        }
        if !in_deps || line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((name, value)) = line.split_once('=') else {
            continue;
        };
        let name = name.trim();
        let from_workspace = name.ends_with(".workspace") && value.trim() == "true"
            || value.replace(' ', "").contains("workspace=true");
        if !from_workspace {
            out.push(format!(
                "{rel}:{}: dependency `{name}` sets its own version or path: put it in the workspace manifest's [workspace.dependencies] and say `workspace = true` here",
                k + 1
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_without_its_doc_line_fails() {
        assert_eq!(
            source("x.rs", "//! Owns x.\nfn a() {}\n", false),
            Vec::<String>::new()
        );
        let got = source("x.rs", "use std::io;\n", false);
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].starts_with("x.rs:1: a source file opens"));
    }

    #[test]
    fn a_long_file_and_a_long_function_fail() {
        let body = |n: usize| "    let x = 1;\n".repeat(n);
        // `fits` is exactly MAX_FN_LINES lines from `fn` to `}`; `too_long` one more.
        let text = format!(
            "//! Owns x.\nfn fits() {{\n{}}}\nfn too_long() {{\n{}}}\n",
            body(MAX_FN_LINES - 2),
            body(MAX_FN_LINES - 1)
        );
        let got = source("x.rs", &text, false);
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].contains("fn too_long is 101 lines"), "{got:?}");
        let many = format!(
            "//! Owns x.\n{}",
            "const A: u8 = 1;\n".repeat(MAX_FILE_LINES)
        );
        let got = source("x.rs", &many, false);
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].contains("401 lines, over 400"), "{got:?}");
    }

    #[test]
    fn an_unwrap_in_library_code_fails_and_one_in_its_tests_does_not() {
        let text = "//! Owns x.\nfn a(v: Option<u8>) -> u8 {\n    v.unwrap()\n}\nfn b(v: Option<u8>) -> u8 {\n    v.expect(\"some\")\n}\nconst S: &str = \".unwrap()\";\n#[cfg(test)]\nmod tests {\n    fn t() { Some(1).unwrap(); }\n}\n";
        let got = source("crates/x/src/a.rs", text, true);
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(
            got[0].starts_with("crates/x/src/a.rs:3: `.unwrap()`"),
            "{got:?}"
        );
        assert!(got[1].starts_with("crates/x/src/a.rs:6: "), "{got:?}");
        assert!(source("crates/x/tests/a.rs", text, false).is_empty());
    }

    #[test]
    fn a_member_dependency_with_its_own_version_fails() {
        let ok = "[package]\nname = \"x\"\nversion.workspace = true\n\n[dependencies]\nserde.workspace = true\ntokio = { workspace = true, features = [\"rt\"] }\n\n[target.'cfg(unix)'.dependencies]\nlibc.workspace = true\n";
        assert_eq!(manifest("x/Cargo.toml", ok), Vec::<String>::new());
        let bad = "[dependencies]\nserde = \"1\"\nlocal = { path = \"../local\" }\n\n[dev-dependencies.tempfile]\nversion = \"3\"\n";
        let got = manifest("x/Cargo.toml", bad);
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(
            got[0].starts_with("x/Cargo.toml:2: dependency `serde`"),
            "{got:?}"
        );
        assert!(
            got[1].starts_with("x/Cargo.toml:3: dependency `local`"),
            "{got:?}"
        );
        assert!(
            got[2].starts_with("x/Cargo.toml:5: [dev-dependencies.tempfile]"),
            "{got:?}"
        );
    }
}
