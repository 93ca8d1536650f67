//! Rust source with comments and string and char literals blanked out (newlines kept), so
//! the tidy rules can count braces and find `fn` and `.unwrap()` without being fooled by
//! text; and where each function's body starts and ends.

/// `src` with every comment, string literal and char literal replaced by spaces, lines
/// kept where they were.
pub fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let end = literal_end(b, i);
        if end > i {
            out.extend(
                b[i..end]
                    .iter()
                    .map(|&c| if c == b'\n' { b'\n' } else { b' ' }),
            );
            i = end;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Where the comment or literal starting at `i` ends; `i` when none starts there.
fn literal_end(b: &[u8], i: usize) -> usize {
    let at = |k: usize| b.get(k).copied().unwrap_or(0);
    let ident_before = i > 0 && (at(i - 1).is_ascii_alphanumeric() || at(i - 1) == b'_');
    match (at(i), at(i + 1)) {
        (b'/', b'/') => b[i..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |p| i + p),
        (b'/', b'*') => block_comment_end(b, i),
        (b'"', _) => quoted_end(b, i + 1),
        (b'b', b'"') if !ident_before => quoted_end(b, i + 2),
        (b'r', b'"' | b'#') if !ident_before => raw_end(b, i + 1).unwrap_or(i),
        (b'b', b'r') if !ident_before => raw_end(b, i + 2).unwrap_or(i),
        (b'\'', b'\\') => b[i + 2..]
            .iter()
            .position(|&c| c == b'\'')
            .map_or(b.len(), |p| i + 2 + p + 1),
        (b'\'', _) if at(i + 2) == b'\'' => i + 3,
        (b'\'', c) if c >= 0x80 => {
            // A multi-byte char literal: its closing quote within four bytes.
            (i + 2..(i + 6).min(b.len()))
                .find(|&k| b[k] == b'\'')
                .map_or(i, |k| k + 1)
        }
        _ => i,
    }
}

fn block_comment_end(b: &[u8], i: usize) -> usize {
    let (mut depth, mut k) = (0usize, i);
    while k + 1 < b.len() {
        if b[k] == b'/' && b[k + 1] == b'*' {
            depth += 1;
            k += 2;
        } else if b[k] == b'*' && b[k + 1] == b'/' {
            depth -= 1;
            k += 2;
            if depth == 0 {
                return k;
            }
        } else {
            k += 1;
        }
    }
    b.len()
}

/// The end of a `"`-quoted literal whose text starts at `k`.
fn quoted_end(b: &[u8], mut k: usize) -> usize {
    while k < b.len() {
        match b[k] {
            b'\\' => k += 2,
            b'"' => return k + 1,
            _ => k += 1,
        }
    }
    b.len()
}

/// The end of a raw string whose `#`s (or quote) start at `k`; `None` if it is not one.
fn raw_end(b: &[u8], k: usize) -> Option<usize> {
    let hashes = b[k..].iter().take_while(|&&c| c == b'#').count();
    if b.get(k + hashes) != Some(&b'"') {
        return None;
    }
    let close: Vec<u8> = std::iter::once(b'"')
        .chain(std::iter::repeat_n(b'#', hashes))
        .collect();
    let start = k + hashes + 1;
    Some(
        b[start..]
            .windows(close.len())
            .position(|w| w == close.as_slice())
            .map_or(b.len(), |p| start + p + close.len()),
    )
}

/// A function with a body: its name and its first and last lines (1-based).
#[derive(Debug, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub first: usize,
    pub last: usize,
}

impl Function {
    /// Lines from `fn` to the closing brace.
    pub fn lines(&self) -> usize {
        self.last - self.first + 1
    }
}

/// Every function with a body in `code` (the output of [`code_only`]).
pub fn functions(code: &str) -> Vec<Function> {
    let b = code.as_bytes();
    let line_at = |k: usize| 1 + b[..k].iter().filter(|&&c| c == b'\n').count();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = code[from..].find("fn ") {
        let at = from + p;
        from = at + 3;
        if at > 0 && (b[at - 1].is_ascii_alphanumeric() || b[at - 1] == b'_') {
            continue;
        }
        let name: String = code[at + 3..]
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            continue;
        }
        let Some(open) = body_start(b, at + 3) else {
            continue;
        };
        let Some(close) = matching_brace(b, open) else {
            continue;
        };
        out.push(Function {
            name,
            first: line_at(at),
            last: line_at(close),
        });
    }
    out
}

/// The `{` that opens the body of the `fn` whose signature starts at `k`; `None` for a
/// declaration without one (`;` first).
fn body_start(b: &[u8], mut k: usize) -> Option<usize> {
    let mut depth = 0i32;
    while k < b.len() {
        match b[k] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'{' if depth == 0 => return Some(k),
            b';' if depth == 0 => return None,
            _ => {}
        }
        k += 1;
    }
    None
}

/// The `}` that closes the `{` at `open`.
pub fn matching_brace(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// `code` with every `#[cfg(test)]` item (a test module or function) blanked out.
pub fn without_tests(code: &str) -> String {
    let mut b = code.as_bytes().to_vec();
    let mut from = 0;
    while let Some(p) = code[from..].find("#[cfg(test)]") {
        let at = from + p;
        from = at + 1;
        let Some(next) = b[at..].iter().position(|&c| c == b'{' || c == b';') else {
            break;
        };
        let end = if b[at + next] == b';' {
            at + next
        } else {
            matching_brace(&b, at + next).unwrap_or(b.len() - 1)
        };
        for c in &mut b[at..=end] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_literals_are_blanked_and_lines_kept() {
        let src = "let a = \"{ // }\"; // {\nlet c = '{'; /* { /* } */ } */ let r = r#\"}\"#;\nfn x<'a>() {}\n";
        let code = code_only(src);
        assert_eq!(code.lines().count(), 3);
        assert!(
            !code[..code.find("fn").unwrap()].contains(['{', '}']),
            "{code}"
        );
        assert!(code.contains("fn x<'a>() {}"), "{code}");
    }

    #[test]
    fn functions_are_measured_from_fn_to_their_closing_brace() {
        let src = "trait T { fn decl(&self); }\nfn one() {\n    let s = \"}\";\n    if true { }\n}\n    pub(crate) async fn two(x: [u8; 2]) -> u8 { x[0] }\n";
        let fns = functions(&code_only(src));
        assert_eq!(
            fns,
            vec![
                Function {
                    name: "one".into(),
                    first: 2,
                    last: 5
                },
                Function {
                    name: "two".into(),
                    first: 6,
                    last: 6
                },
            ]
        );
    }

    #[test]
    fn test_items_are_left_out() {
        let src = "fn a() { x.unwrap(); }\n#[cfg(test)]\nmod tests {\n    fn b() { y.unwrap(); }\n}\n#[cfg(test)]\nmod more;\nfn c() {}\n";
        let code = without_tests(&code_only(src));
        assert_eq!(code.matches(".unwrap()").count(), 1);
        assert!(code.contains("fn c()"));
        assert_eq!(code.lines().count(), src.lines().count());
    }
}
