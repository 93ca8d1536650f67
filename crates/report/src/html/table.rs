//! The one writer of an HTML table of text ([`write()`]): a header row and rows of cells,
//! escaped, in a horizontally scrolling box, each cell's class chosen by the caller. The
//! repeats, capacity probes and compare tables are all written by it.

use std::fmt::Write;

use super::escape;

/// Writes `<div class="scroll"><table class="{class}">`, the header row `head`, one row
/// per entry of `rows` and `</table></div>`, with no line break after it (a caller may
/// close its own box on that line). `cell(row, column, text)` is a cell's class, if any.
pub fn write<H: AsRef<str>>(
    out: &mut String,
    class: Option<&str>,
    head: &[H],
    rows: &[Vec<String>],
    cell: impl Fn(usize, usize, &str) -> Option<&'static str>,
) {
    out.push_str("<div class=\"scroll\"><table");
    if let Some(class) = class {
        let _ = write!(out, " class=\"{class}\"");
    }
    out.push_str(">\n<tr>");
    for h in head {
        let _ = write!(out, "<th>{}</th>", escape(h.as_ref()));
    }
    out.push_str("</tr>\n");
    for (i, row) in rows.iter().enumerate() {
        out.push_str("<tr>");
        for (j, text) in row.iter().enumerate() {
            match cell(i, j, text) {
                Some(class) => {
                    let _ = write!(out, "<td class=\"{class}\">{}</td>", escape(text));
                }
                None => {
                    let _ = write!(out, "<td>{}</td>", escape(text));
                }
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table></div>");
}

#[cfg(test)]
mod tests {
    use super::write;

    #[test]
    fn writes_the_header_the_rows_and_each_cells_class_escaped() {
        let mut out = String::new();
        let rows = vec![
            vec!["a<b".to_owned(), "1".to_owned()],
            vec!["c".to_owned(), "2".to_owned()],
        ];
        write(
            &mut out,
            Some("probes"),
            &["name", "n & m"],
            &rows,
            |i, j, _| (i == 1 && j == 0).then_some("text"),
        );
        assert_eq!(
            out,
            "<div class=\"scroll\"><table class=\"probes\">\n\
             <tr><th>name</th><th>n &amp; m</th></tr>\n\
             <tr><td>a&lt;b</td><td>1</td></tr>\n\
             <tr><td class=\"text\">c</td><td>2</td></tr>\n\
             </table></div>"
        );
        let mut bare = String::new();
        write(&mut bare, None, &["x"], &[], |_, _, _| None);
        assert_eq!(
            bare,
            "<div class=\"scroll\"><table>\n<tr><th>x</th></tr>\n</table></div>"
        );
    }
}
