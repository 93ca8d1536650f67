//! A run with more cells than report.html embeds: each cell's timeline is a file linked from
//! the page, not an image inside it, so the page stays small whatever the run's size.

use plateau_report::Options;

use crate::common;

#[test]
fn past_the_inline_limit_timelines_are_linked_not_embedded() {
    let (_tmp, results, _) = common::fixture_copy("clean", "linked");
    let figures = results.join("figures");
    let mut opts = Options::new(&results, &figures);
    let embedded = plateau_report::render(&opts).unwrap();
    let page = std::fs::read_to_string(&embedded.html).unwrap();
    let images = page.matches("src=\"data:image/svg").count();
    assert!(!page.contains("timelines, as files"));

    opts.inline_cells = 11;
    let linked = plateau_report::render(&opts).unwrap();
    assert_eq!(linked.cells, 12);
    let page = std::fs::read_to_string(&linked.html).unwrap();
    assert_eq!(
        page.matches("src=\"data:image/svg").count(),
        images - 12,
        "the 12 timelines are no longer embedded"
    );
    assert_eq!(
        page.matches("6 timelines, as files").count(),
        2,
        "one list per scenario"
    );
    let hrefs: Vec<&str> = page
        .split("<a href=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .filter(|h| h.starts_with("figures/timeline_"))
        .collect();
    assert_eq!(
        hrefs.len(),
        24,
        "PNG and SVG of each of 12 cells: {hrefs:?}"
    );
    for h in hrefs {
        assert!(results.join(h).is_file(), "{h} links to a file");
    }
    assert!(
        linked
            .figures
            .iter()
            .filter(|r| r.name.starts_with("timeline_"))
            .all(|r| r.svg.is_empty()),
        "no timeline's SVG is kept in memory"
    );
}
