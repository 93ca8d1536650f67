//! The checks of report.html: one line under the headline ([`brief`]: each failed check
//! and each warning by name with how many cells it concerns, a link to the rest) and the
//! full list near the end of the page ([`section`]: the failures, then the warnings grouped
//! by check and folded, since a long run repeats the same one in many cells).

use std::fmt::Write;

use plateau_model::validate::{Finding, Severity};

use super::escape;

/// Each check of `severity` among `findings` with the number of findings it made, by name.
fn by_check(findings: &[Finding], severity: Severity) -> Vec<(&'static str, usize)> {
    let mut checks: Vec<&'static str> = findings
        .iter()
        .filter(|f| f.severity == severity)
        .map(|f| f.check)
        .collect();
    checks.sort_unstable();
    let mut out: Vec<(&'static str, usize)> = Vec::new();
    for check in checks {
        match out.last_mut() {
            Some((last, n)) if *last == check => *n += 1,
            _ => out.push((check, 1)),
        }
    }
    out
}

/// The line under the headline: `Checks: FAIL client_bottleneck (23) · warn small_sample
/// (24), ... · all findings`, or that every check passed.
pub fn brief(out: &mut String, findings: &[Finding]) {
    let fails = by_check(findings, Severity::Fail);
    let warns = by_check(findings, Severity::Warn);
    out.push_str("<p class=\"brief\" id=\"checks-brief\"><b>Checks:</b> ");
    if findings.is_empty() {
        out.push_str("every check passed.</p>\n");
        return;
    }
    let list = |checks: &[(&str, usize)]| {
        checks
            .iter()
            .map(|(check, n)| format!("{} ({n})", escape(check)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut parts = Vec::new();
    if !fails.is_empty() {
        parts.push(format!("<span class=\"fail\">FAIL {}</span>", list(&fails)));
    }
    if !warns.is_empty() {
        parts.push(format!("<span class=\"warn\">warn</span> {}", list(&warns)));
    }
    let _ = writeln!(
        out,
        "{} · <a href=\"#checks\">what each says, cell by cell</a></p>",
        parts.join(" · ")
    );
}

/// The full list: the failures, then the warnings grouped by check, folded.
pub fn section(out: &mut String, findings: &[Finding]) {
    let fails: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.severity == Severity::Fail)
        .collect();
    let _ = write!(
        out,
        "<h2 id=\"checks\">Checks</h2>\n<p>{} failed check(s), {} warning(s).</p>\n",
        fails.len(),
        findings.len() - fails.len()
    );
    if !fails.is_empty() {
        out.push_str("<ul>\n");
        for f in fails {
            item(out, f);
        }
        out.push_str("</ul>\n");
    }
    for (check, n) in by_check(findings, Severity::Warn) {
        let _ = writeln!(
            out,
            "<details class=\"checks\"><summary><b>warn</b> {}: {n} finding(s)</summary><ul>",
            escape(check),
        );
        for f in findings
            .iter()
            .filter(|f| f.severity == Severity::Warn && f.check == check)
        {
            item(out, f);
        }
        out.push_str("</ul></details>\n");
    }
}

fn item(out: &mut String, f: &Finding) {
    let (class, word) = match f.severity {
        Severity::Fail => ("fail", "FAIL"),
        Severity::Warn => ("warn", "warn"),
    };
    let _ = writeln!(
        out,
        "<li class=\"{class}\" data-check=\"{}\"><b>{word}</b> <code>{}</code> {}: {}</li>",
        escape(f.check),
        escape(&f.cell),
        escape(f.check),
        escape(&f.message)
    );
}
