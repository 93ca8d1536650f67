//! Finds the check names a Rust source uses, by parsing it with `syn`: the `check` of every
//! `Finding { .. }` literal, the arguments of every function or closure that forwards one of
//! its parameters as that `check` (`add("unsteady", Severity::Fail, ..)`), comparisons with a
//! `.check` field, and `("name", Severity::X)` tuples; macro arguments are read as
//! expressions. A `check` that is none of these (a variable, a call) is a problem: the test
//! cannot see it, so the registry could not be held to it.

use std::collections::HashMap;

use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Expr, ExprStruct, Lit, Member, Pat, Token};

use crate::validate::Severity;

/// One check name used in the code.
#[derive(Clone, Debug, PartialEq)]
pub struct Use {
    /// The name.
    pub check: String,
    /// The severity written beside it, where it is a literal `Severity::X`.
    pub severity: Option<Severity>,
    /// The file it is in.
    pub file: String,
}

/// What the files scanned so far use.
#[derive(Debug, Default)]
pub struct Scan {
    /// Every use, in file order.
    pub uses: Vec<Use>,
    /// Checks the scan could not read, with their file.
    pub problems: Vec<String>,
}

/// A function or closure that builds a `Finding` whose `check` is its parameter `check`
/// (at that index), and maybe whose `severity` is its parameter `severity`.
#[derive(Clone, Copy, Debug)]
struct Forwarder {
    check: usize,
    severity: Option<usize>,
}

impl Scan {
    /// Scans one file's text; a file that does not parse is a problem.
    pub fn file(&mut self, name: &str, text: &str) {
        let file = match syn::parse_file(text) {
            Ok(f) => f,
            Err(e) => {
                self.problems.push(format!("{name}: does not parse: {e}"));
                return;
            }
        };
        let mut forwarders = Forwarders::default();
        Functions(&mut forwarders).visit_file(&file);
        let mut visitor = Visitor {
            scan: self,
            file: name,
            forwarders,
        };
        visitor.visit_file(&file);
    }
}

/// The `check` and `severity` field values of a `Finding { .. }` literal.
fn finding_fields(s: &ExprStruct) -> Option<(&Expr, Option<&Expr>)> {
    if s.path.segments.last()?.ident != "Finding" {
        return None;
    }
    let field = |name: &str| {
        s.fields
            .iter()
            .find(|f| matches!(&f.member, Member::Named(i) if i == name))
            .map(|f| &f.expr)
    };
    Some((field("check")?, field("severity")))
}

/// `x` for the expression that is the bare identifier `x`.
fn ident(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
        _ => None,
    }
}

/// The text of a string literal expression.
fn string(e: &Expr) -> Option<String> {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Str(s) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

/// `Severity::Warn` or `Severity::Fail` (with any path before it).
fn severity(e: &Expr) -> Option<Severity> {
    let Expr::Path(p) = e else { return None };
    let mut segments = p.path.segments.iter().rev();
    let (variant, ty) = (segments.next()?, segments.next()?);
    if ty.ident != "Severity" {
        return None;
    }
    match variant.ident.to_string().as_str() {
        "Warn" => Some(Severity::Warn),
        "Fail" => Some(Severity::Fail),
        _ => None,
    }
}

/// The forwarders in scope: `fn f(.., check: &str, ..) -> Finding` anywhere in the file,
/// and `let add = |check, severity, message| .. Finding { check, severity, .. }` from its
/// definition on (a later `let` of the same name replaces it, as in Rust).
#[derive(Default)]
struct Forwarders {
    by_name: HashMap<String, Forwarder>,
    /// Parameter names of every forwarder, allowed as a `Finding`'s `check`.
    params: Vec<String>,
}

impl Forwarders {
    /// Records `name` as a forwarder when `fields` (the `Finding`s its body builds) take
    /// their `check` from one of its `params`.
    fn consider(&mut self, name: String, params: &[Option<String>], fields: Fields) {
        let index = |e: Option<&Expr>| {
            let id = e.and_then(ident)?;
            params
                .iter()
                .position(|p| p.as_deref() == Some(id.as_str()))
        };
        for (check, sev) in &fields.0 {
            if let Some(i) = index(Some(check)) {
                self.params.extend(params[i].clone());
                self.by_name.insert(
                    name.clone(),
                    Forwarder {
                        check: i,
                        severity: index(sev.as_ref()),
                    },
                );
            }
        }
    }

    /// Considers a `let name = |params| body` closure.
    fn closure(&mut self, l: &syn::Local) {
        if let (Some(name), Some(init)) = (pat_name(&l.pat), &l.init)
            && let Expr::Closure(c) = &*init.expr
        {
            let params: Vec<Option<String>> = c.inputs.iter().map(pat_name).collect();
            let mut fields = Fields::default();
            fields.visit_expr(&c.body);
            self.consider(name, &params, fields);
        }
    }
}

/// The `check` and `severity` expressions of every `Finding { .. }` under a node.
#[derive(Default)]
struct Fields(Vec<(Expr, Option<Expr>)>);

impl<'ast> Visit<'ast> for Fields {
    fn visit_expr_struct(&mut self, s: &'ast ExprStruct) {
        if let Some((check, sev)) = finding_fields(s) {
            self.0.push((check.clone(), sev.cloned()));
        }
        visit::visit_expr_struct(self, s);
    }
}

fn pat_name(p: &Pat) -> Option<String> {
    match p {
        Pat::Ident(i) => Some(i.ident.to_string()),
        Pat::Type(t) => pat_name(&t.pat),
        _ => None,
    }
}

/// Collects the file's `fn` forwarders, before any call is read.
struct Functions<'a>(&'a mut Forwarders);

impl<'ast> Visit<'ast> for Functions<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let params: Vec<Option<String>> = f
            .sig
            .inputs
            .iter()
            .map(|a| match a {
                syn::FnArg::Typed(t) => pat_name(&t.pat),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let mut fields = Fields::default();
        fields.visit_block(&f.block);
        self.0.consider(f.sig.ident.to_string(), &params, fields);
        visit::visit_item_fn(self, f);
    }
}

/// Records the uses of one file.
struct Visitor<'a> {
    scan: &'a mut Scan,
    file: &'a str,
    forwarders: Forwarders,
}

impl Visitor<'_> {
    fn record(&mut self, check: String, severity: Option<Severity>) {
        self.scan.uses.push(Use {
            check,
            severity,
            file: self.file.to_owned(),
        });
    }

    /// A check name given as `e`: a literal is a use, anything else a problem.
    fn name(&mut self, e: &Expr, severity: Option<Severity>, what: &str) {
        match string(e) {
            Some(check) => self.record(check, severity),
            None => self.scan.problems.push(format!(
                "{}: {what} is not a string literal: `{}`",
                self.file,
                quote::ToTokens::to_token_stream(e)
            )),
        }
    }
}

impl<'ast> Visit<'ast> for Visitor<'_> {
    fn visit_expr_struct(&mut self, s: &'ast ExprStruct) {
        if let Some((check, sev)) = finding_fields(s) {
            let forwarded = ident(check).is_some_and(|id| self.forwarders.params.contains(&id));
            // `check: f.check` passes on another finding's name (a run-wide fold of cell
            // findings): that name was read where it was written.
            let copied = matches!(check, Expr::Field(f)
                if matches!(&f.member, syn::Member::Named(m) if m == "check"));
            if !forwarded && !copied {
                self.name(check, sev.and_then(severity), "a Finding's `check`");
            }
        }
        visit::visit_expr_struct(self, s);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        let forwarder = ident(&c.func).and_then(|f| self.forwarders.by_name.get(&f).copied());
        if let Some(fw) = forwarder
            && let Some(arg) = c.args.iter().nth(fw.check)
        {
            let sev = fw
                .severity
                .and_then(|i| c.args.iter().nth(i))
                .and_then(severity);
            self.name(arg, sev, "a forwarded check");
        }
        visit::visit_expr_call(self, c);
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        self.forwarders.closure(l);
        visit::visit_local(self, l);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        for (field, other) in [(&*b.left, &*b.right), (&*b.right, &*b.left)] {
            if let Expr::Field(f) = field
                && matches!(&f.member, Member::Named(i) if i == "check")
                && let Some(check) = string(other)
            {
                self.record(check, None);
            }
        }
        visit::visit_expr_binary(self, b);
    }

    fn visit_expr_tuple(&mut self, t: &'ast syn::ExprTuple) {
        let elems: Vec<&Expr> = t.elems.iter().collect();
        for pair in elems.windows(2) {
            if let (Some(check), Some(sev)) = (string(pair[0]), severity(pair[1])) {
                self.record(check, Some(sev));
            }
        }
        visit::visit_expr_tuple(self, t);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let parser = Punctuated::<Expr, Token![,]>::parse_terminated;
        if let Ok(args) = m.parse_body_with(parser) {
            for arg in &args {
                self.visit_expr(arg);
            }
        }
        visit::visit_macro(self, m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uses(text: &str) -> (Vec<(String, Option<Severity>)>, Vec<String>) {
        let mut scan = Scan::default();
        scan.file("x.rs", text);
        let uses = scan
            .uses
            .into_iter()
            .map(|u| (u.check, u.severity))
            .collect();
        (uses, scan.problems)
    }

    #[test]
    fn finds_names_in_every_form_the_code_writes_them() {
        let text = r#"
            fn check_cell() {
                let mut add = |check, severity, message: String| {
                    out.push(Finding { cell: label(), check, severity, message });
                };
                add("unsteady", Severity::Fail, reasons());
                add("drain_timeout", server_finding, m());
            }
            fn check_dir() {
                let mut add = |cell: &str, check, severity, message: String| {
                    out.push(Finding { cell: cell.to_owned(), check, severity, message });
                };
                add(RUN, "run_status", Severity::Fail, "x".into());
                out.push(Finding { cell: c, check: "summary", severity: Severity::Fail, message: m });
            }
            fn finding(cell: &str, check: &'static str, severity: Severity) -> Finding {
                Finding { cell: cell.into(), check, severity, message: String::new() }
            }
            fn fold(f: &Finding) -> Finding {
                Finding { cell: RUN.into(), check: f.check, severity: f.severity, message: m }
            }
            fn t() {
                let _ = finding("a/b", "small_sample", w);
                assert!(checks(&s).contains(&("buffered_stream", Severity::Warn)));
                assert!(findings.iter().any(|f| f.check == "records" && f.cell == CELL));
            }
        "#;
        let (found, problems) = uses(text);
        assert_eq!(problems, Vec::<String>::new());
        let want = [
            ("unsteady", Some(Severity::Fail)),
            ("drain_timeout", None),
            ("run_status", Some(Severity::Fail)),
            ("summary", Some(Severity::Fail)),
            ("small_sample", None),
            ("buffered_stream", Some(Severity::Warn)),
            ("records", None),
        ];
        let want: Vec<(String, Option<Severity>)> =
            want.iter().map(|(c, s)| ((*c).to_owned(), *s)).collect();
        assert_eq!(found, want);
    }

    #[test]
    fn a_check_it_cannot_read_is_a_problem() {
        let text = r#"
            fn f(name: &'static str) -> Finding {
                Finding { cell: c, check: name.trim(), severity: Severity::Warn, message: m }
            }
            fn g() {
                let add = |check, severity| Finding { cell: c, check, severity, message: m };
                add(NAME, Severity::Warn);
            }
        "#;
        let (found, problems) = uses(text);
        assert!(found.is_empty(), "{found:?}");
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].contains("a Finding's `check` is not a string literal"));
        assert!(problems[1].contains("a forwarded check is not a string literal: `NAME`"));
    }
}
