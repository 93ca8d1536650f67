//! The link check of `cargo xtask book`, by hand for a measured reason: mdBook does not fail
//! on a broken link, and mdbook-linkcheck2 (the checker maintained for mdBook 0.5) checks
//! that files exist but not `#fragments` (a TODO in linkcheck2 0.10), while pulling an HTTP
//! stack into CI. This reads the `href`, `src` and `id` attributes of the HTML mdBook writes
//! (always double-quoted) and checks every relative link offline: it stays inside the book,
//! its file exists, its fragment is an id there. It also checks the relative links of the
//! repository's other Markdown files (README.md, the folders' pointers into the book), and
//! that every page in `docs/src` is in SUMMARY.md (mdBook skips an unlisted page).

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

use anyhow::Context;
use plateau_model::secret::forms::percent_decode as decode;

/// What the check found.
#[derive(Debug, Default)]
pub struct Report {
    pages: usize,
    links: usize,
    external: usize,
    /// Each broken link: where it is, what it points at, why it fails.
    pub broken: Vec<String>,
}

impl Report {
    /// One line: how much was checked.
    pub fn summary(&self) -> String {
        format!(
            "links: {} HTML pages, {} relative links checked (files and fragments), {} external \
             links not followed, {} broken",
            self.pages,
            self.links,
            self.external,
            self.broken.len()
        )
    }
}

/// Checks the book built in `book` from `src`, and the Markdown files of `root` outside it.
pub fn check(book: &Path, src: &Path, root: &Path) -> anyhow::Result<Report> {
    let mut report = Report::default();
    let pages = files(book, "html")?;
    let mut ids: HashMap<PathBuf, HashSet<String>> = HashMap::new();
    let mut texts = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).with_context(|| page.display().to_string())?;
        ids.insert(normal(page), attrs(&text, "id").into_iter().collect());
        texts.push((page, text));
    }
    report.pages = pages.len();
    for (page, text) in &texts {
        let base = if text.contains("<base href=\"/\"") {
            book.to_path_buf()
        } else {
            page.parent().unwrap_or(book).to_path_buf()
        };
        for link in attrs(text, "href").into_iter().chain(attrs(text, "src")) {
            if is_external(&link) {
                report.external += 1;
                continue;
            }
            report.links += 1;
            if let Some(why) = broken(&link, page, &base, book, &ids) {
                let shown = page.strip_prefix(book).unwrap_or(page);
                report
                    .broken
                    .push(format!("docs/book/{}: {link}: {why}", shown.display()));
            }
        }
    }
    for md in files(src, "md")? {
        let rel = md.strip_prefix(src).unwrap_or(&md);
        if rel != Path::new("SUMMARY.md") && !book.join(rel).with_extension("html").exists() {
            report.broken.push(format!(
                "docs/src/{}: not in SUMMARY.md, so mdBook leaves it out",
                rel.display()
            ));
        }
    }
    for md in markdown_outside_book(root)? {
        report.broken.extend(markdown_links(root, &md)?);
    }
    Ok(report)
}

/// Why `link` on `page` is broken, or `None`.
fn broken(
    link: &str,
    page: &Path,
    base: &Path,
    book: &Path,
    ids: &HashMap<PathBuf, HashSet<String>>,
) -> Option<String> {
    let (path, fragment) = link.split_once('#').unwrap_or((link, ""));
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    let mut target = if path.is_empty() {
        page.to_path_buf()
    } else if let Some(abs) = path.strip_prefix('/') {
        book.join(decode(abs))
    } else {
        base.join(decode(path))
    };
    target = normal(&target);
    if !target.starts_with(normal(book)) {
        return Some("leaves the book (link to a page, or write a repository path as code)".into());
    }
    if target.is_dir() {
        target = target.join("index.html");
    }
    if !target.exists() {
        return Some("no such file".into());
    }
    let fragment = decode(fragment);
    let page_ids = ids.get(&target)?;
    let shown = target.strip_prefix(normal(book)).unwrap_or(&target);
    (!fragment.is_empty() && !page_ids.contains(&fragment))
        .then(|| format!("no id `{fragment}` in {}", shown.display()))
}

/// The repository's Markdown files outside `docs/`, build output and hidden folders.
fn markdown_outside_book(root: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let skip = |name: &str| {
        name.starts_with('.') || name.starts_with("target") || ["docs", "results"].contains(&name)
    };
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).with_context(|| d.display().to_string())? {
            let path = entry?.path();
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            if path.is_dir() && !name.as_deref().is_some_and(skip) {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The relative links of the Markdown file `md` that point at nothing.
fn markdown_links(root: &Path, md: &Path) -> anyhow::Result<Vec<String>> {
    let text = std::fs::read_to_string(md).with_context(|| md.display().to_string())?;
    let shown = md.strip_prefix(root).unwrap_or(md).display().to_string();
    let dir = md.parent().unwrap_or(root);
    let mut out = Vec::new();
    for (i, _) in text.match_indices("](") {
        let rest = &text[i + 2..];
        let Some(end) = rest.find(')') else { continue };
        let link = &rest[..end];
        let file = link.split_once('#').map_or(link, |(f, _)| f);
        if is_external(link) || file.is_empty() {
            continue;
        }
        if !dir.join(decode(file)).exists() {
            out.push(format!("{shown}: {link}: no such file"));
        }
    }
    Ok(out)
}

fn is_external(link: &str) -> bool {
    ["http:", "https:", "mailto:", "data:", "javascript:", "//"]
        .iter()
        .any(|p| link.starts_with(p))
}

/// Every file under `dir` whose extension is `ext`, sorted.
fn files(dir: &Path, ext: &str) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).with_context(|| d.display().to_string())? {
            let path = entry?.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The values of every `name="..."` attribute in `html`, entities decoded.
fn attrs(html: &str, name: &str) -> Vec<String> {
    let needle = format!("{name}=\"");
    let mut out = Vec::new();
    for (i, _) in html.match_indices(&needle) {
        if !html[..i].ends_with(|c: char| c.is_ascii_whitespace()) {
            continue;
        }
        let value = &html[i + needle.len()..];
        if let Some(end) = value.find('"') {
            out.push(unescape(&value[..end]));
        }
    }
    out
}

/// The HTML entities mdBook writes in attributes.
fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// `path` with `.` and `..` resolved lexically.
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("a directory");
        std::fs::write(path, text).expect("a file");
    }

    #[test]
    fn finds_missing_files_fragments_escapes_and_unlisted_pages() {
        let dir = std::env::temp_dir().join(format!("xtask-links-{}", std::process::id()));
        let (book, src) = (dir.join("docs/book"), dir.join("docs/src"));
        write(
            &book.join("guide/a.html"),
            r##"<h2 id="one">x</h2> <a href="b.html#two">ok</a> <a href="b.html#three">x</a>
               <a href="#one">ok</a> <a href="missing.html">x</a> <a href="../../../x">x</a>
               <a href="https://example.com/#y">ext</a> <img src="../img.png">"##,
        );
        write(&book.join("guide/b.html"), r#"<p id="two">t</p>"#);
        write(&book.join("img.png"), "");
        write(&src.join("SUMMARY.md"), "");
        write(&src.join("guide/a.md"), "");
        write(&src.join("guide/orphan.md"), "");
        write(
            &dir.join("README.md"),
            "[a](docs/src/guide/a.md#x) [b](nope.md) [c](https://x)",
        );
        write(
            &dir.join("tools/README.md"),
            "[up](../README.md) [gone](../docs/x.md)",
        );
        write(&dir.join("target/README.md"), "[not read](nope.md)");
        let report = check(&book, &src, &dir).expect("a report");
        std::fs::remove_dir_all(&dir).expect("cleanup");
        assert_eq!((report.pages, report.links, report.external), (2, 6, 1));
        let why: Vec<&str> = report
            .broken
            .iter()
            .map(|b| b.rsplit(": ").next().unwrap_or(b))
            .collect();
        assert_eq!(report.broken.len(), 6, "{:#?}", report.broken);
        assert!(
            report.broken[0].contains("b.html#three"),
            "{}",
            report.broken[0]
        );
        assert!(why[0].starts_with("no id `three`"));
        assert_eq!(why[1], "no such file");
        assert!(why[2].starts_with("leaves the book"));
        assert!(report.broken[3].contains("guide/orphan.md: not in SUMMARY.md"));
        assert_eq!(report.broken[4], "README.md: nope.md: no such file");
        assert_eq!(
            report.broken[5],
            "tools/README.md: ../docs/x.md: no such file"
        );
    }

    #[test]
    fn decodes_percent_escapes_and_entities() {
        assert_eq!(decode("a%20b%zz"), "a b%zz");
        assert_eq!(attrs(r#"<a  href="x?a=1&amp;b=2">"#, "href"), ["x?a=1&b=2"]);
        assert!(attrs(r#"<a data-href="x">"#, "href").is_empty());
    }
}
