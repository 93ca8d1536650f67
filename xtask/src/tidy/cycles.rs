//! Import cycles between the modules of one crate: an edge from module A to module B when
//! A's non-test code names a path into B (`crate::`, `super::`, `self::`, or a child module
//! by name), leaving out a module's references to its own ancestors (a child using its
//! parent is how modules nest, not a cycle). Every strongly connected set of two or more
//! modules is a cycle.

use std::collections::{BTreeMap, BTreeSet};

use super::lexer;

/// A module's path inside its crate (`["plan", "url"]`; the root is empty).
pub type Module = Vec<String>;

/// The module of the file at `rel` (relative to the crate's `src/`).
pub fn module_of(rel: &str) -> Module {
    let mut parts: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("lib" | "main" | "mod")
    ) {
        parts.pop();
    }
    parts
}

/// The cycles among `files` (module and source text) of one crate, each as its modules
/// joined with `, ` (`::`-paths, the root as `(root)`), sorted.
pub fn cycles(files: &[(Module, String)]) -> Vec<String> {
    let modules: BTreeSet<&Module> = files.iter().map(|(m, _)| m).collect();
    let mut edges: BTreeMap<&Module, BTreeSet<&Module>> = BTreeMap::new();
    for (m, text) in files {
        let code = lexer::without_tests(&lexer::code_only(text));
        let targets = edges.entry(m).or_default();
        for path in paths(&code, m, &modules) {
            if let Some(t) = resolve(&path, &modules)
                && t != m
                && !m.starts_with(t)
            {
                targets.insert(t);
            }
        }
    }
    let mut out: Vec<String> = strongly_connected(&edges)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut names: Vec<String> = c
                .iter()
                .map(|m| {
                    if m.is_empty() {
                        "(root)".to_owned()
                    } else {
                        m.join("::")
                    }
                })
                .collect();
            names.sort();
            names.join(", ")
        })
        .collect();
    out.sort();
    out
}

/// The module paths `code` (in module `m`) names: after `crate::`, `super::`, `self::`,
/// and after the name of one of `m`'s child modules.
fn paths(code: &str, m: &Module, modules: &BTreeSet<&Module>) -> Vec<Module> {
    let children: Vec<&str> = modules
        .iter()
        .filter(|c| c.len() == m.len() + 1 && c.starts_with(m))
        .filter_map(|c| c.last().map(String::as_str))
        .collect();
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut k = 0;
    while k < b.len() {
        let starts_word =
            k == 0 || !(b[k - 1].is_ascii_alphanumeric() || b[k - 1] == b'_' || b[k - 1] == b':');
        if !starts_word || !(b[k].is_ascii_alphabetic() || b[k] == b'_') {
            k += 1;
            continue;
        }
        let (segments, groups, end) = path_at(code, k);
        k = end.max(k + 1);
        let Some(first) = segments.first() else {
            continue;
        };
        let mut base: Module = match first.as_str() {
            "crate" => Vec::new(),
            "super" | "self" => m.clone(),
            name if children.contains(&name) && segments.len() > 1 => m.clone(),
            _ => continue,
        };
        let mut rest = Vec::new();
        for s in &segments {
            match s.as_str() {
                "crate" => {}
                "super" => {
                    base.pop();
                }
                "self" => {}
                other => rest.push(other.to_owned()),
            }
        }
        base.extend(rest);
        for g in groups {
            let mut p = base.clone();
            p.extend(g);
            out.push(p);
        }
        out.push(base);
    }
    out
}

/// The `::`-path starting at `k`: its segments, the first segment of each item of a
/// `{...}` group that ends it, and where it ends.
fn path_at(code: &str, mut k: usize) -> (Vec<String>, Vec<Vec<String>>, usize) {
    let b = code.as_bytes();
    let ident = |k: usize| {
        let end = b[k..]
            .iter()
            .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
            .map_or(b.len(), |p| k + p);
        (code[k..end].to_owned(), end)
    };
    let mut segments = Vec::new();
    let mut groups = Vec::new();
    loop {
        let (name, end) = ident(k);
        if name.is_empty() {
            break;
        }
        segments.push(name);
        k = end;
        if !code[k..].starts_with("::") {
            break;
        }
        k += 2;
        if code[k..].starts_with('{') {
            let close = lexer::matching_brace(b, k).unwrap_or(b.len() - 1);
            for item in code[k + 1..close].split(',') {
                let item = item.trim();
                let first: Vec<String> = item
                    .split("::")
                    .map(|s| s.trim().to_owned())
                    .take_while(|s| {
                        !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_')
                    })
                    .collect();
                if !first.is_empty() {
                    groups.push(first);
                }
            }
            k = close + 1;
            break;
        }
    }
    (segments, groups, k)
}

/// The longest prefix of `path` that is a module.
fn resolve<'a>(path: &Module, modules: &BTreeSet<&'a Module>) -> Option<&'a Module> {
    (0..=path.len())
        .rev()
        .find_map(|n| modules.get(&path[..n].to_vec()).copied())
}

/// Tarjan's strongly connected components of `edges`.
fn strongly_connected<'a>(
    edges: &BTreeMap<&'a Module, BTreeSet<&'a Module>>,
) -> Vec<Vec<&'a Module>> {
    struct State<'a> {
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on_stack: BTreeSet<&'a Module>,
        out: Vec<Vec<&'a Module>>,
    }
    fn visit<'a>(
        v: &'a Module,
        edges: &BTreeMap<&'a Module, BTreeSet<&'a Module>>,
        s: &mut State<'a>,
    ) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for &w in edges.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(w, edges, s);
                let lw = s.low[w];
                let lv = s.low.entry(v).or_insert(lw);
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.entry(v).or_insert(iw);
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w);
                if w == v {
                    break;
                }
            }
            s.out.push(component);
        }
    }
    let mut s = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for &v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(v, edges, &mut s);
        }
    }
    s.out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(rel: &str, text: &str) -> (Module, String) {
        (module_of(rel), text.to_owned())
    }

    #[test]
    fn two_siblings_that_use_each_other_are_a_cycle() {
        let files = [
            file("lib.rs", "//! x\nmod a;\nmod b;\npub use a::A;\n"),
            file("a.rs", "//! a\nuse crate::b::B;\npub struct A;\n"),
            file("b.rs", "//! b\nuse super::{a::A, c};\npub struct B;\n"),
            file("c.rs", "//! c\nuse crate::a;\n"),
        ];
        assert_eq!(cycles(&files), vec!["a, b, c".to_owned()]);
    }

    #[test]
    fn a_child_using_its_parent_and_test_code_are_not_cycles() {
        let files = [
            file(
                "lib.rs",
                "//! x\nmod a;\nuse a::helper;\npub struct Root;\n",
            ),
            file(
                "a.rs",
                "//! a\nuse super::Root;\n#[cfg(test)]\nmod tests { use crate::b::B; }\n",
            ),
            file("b.rs", "//! b\nuse crate::a::helper;\npub struct B;\n"),
        ];
        assert!(cycles(&files).is_empty(), "{:?}", cycles(&files));
    }
}
