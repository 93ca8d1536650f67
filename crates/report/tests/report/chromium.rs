//! report.html opens in headless Chromium without console errors, every embedded figure
//! decodes in the browser, and the first screen of a default-size report shows the answer. Runs when `chromium` is on PATH (Debian: `apt-get install -y
//! chromium`); skipped otherwise, unless `PLATEAU_REQUIRE_CHROMIUM=1`, which makes a missing
//! Chromium a failure (CI sets it).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common;

/// `chromium` on PATH.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("chromium"))
        .find(|p| p.is_file())
}

/// Opens `page` headless, taking a screenshot into `shot`; returns Chromium's stderr.
fn open(chromium: &Path, page: &Path, shot: &Path, profile: &Path) -> String {
    let mut cmd = Command::new(chromium);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--enable-logging=stderr",
        "--v=0",
        "--window-size=1400,3000",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .arg(format!("--screenshot={}", shot.display()))
    .arg(format!("file://{}", page.display()));
    let (mut child, reader) = plateau_testkit::process::spawn(&mut cmd);
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("chromium did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let log = reader.join().unwrap();
    assert!(status.success(), "chromium failed ({status}):\n{log}");
    log
}

/// Console messages in Chromium's log.
fn console(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.contains(":CONSOLE")).collect()
}

/// `chromium` on PATH; `None` (the test skips) when it is not, unless
/// `PLATEAU_REQUIRE_CHROMIUM=1`.
fn required() -> Option<PathBuf> {
    let found = chromium();
    if found.is_none() {
        if std::env::var("PLATEAU_REQUIRE_CHROMIUM").is_ok_and(|v| v == "1") {
            panic!(
                "PLATEAU_REQUIRE_CHROMIUM=1 but `chromium` is not on PATH (apt-get install -y chromium)"
            );
        }
        eprintln!(
            "skipped: `chromium` is not on PATH (set PLATEAU_REQUIRE_CHROMIUM=1 to fail instead)"
        );
    }
    found
}

/// What `script` (run on load) logs to the console about a copy of `page` in `dir`.
fn probe(chromium: &Path, page: &Path, dir: &Path, script: &str) -> Vec<String> {
    let html = std::fs::read_to_string(page).unwrap();
    let probed = dir.join("probed.html");
    let tag = format!("<script>window.addEventListener('load', () => {{ {script} }});</script>");
    std::fs::write(&probed, html.replace("</body>", &format!("{tag}</body>"))).unwrap();
    let log = open(
        chromium,
        &probed,
        &dir.join("probed.png"),
        &dir.join("profile-probe"),
    );
    console(&log).into_iter().map(str::to_owned).collect()
}

/// The first screen at 1400 px wide shows the answer: for a run the size of the default
/// config's, the headline and the start of the summary table are within its 1000 px, and
/// the key figures start right after the summary table, not thousands of px down.
#[test]
fn the_first_screen_of_a_default_size_report_shows_the_answer() {
    let Some(chromium) = required() else {
        return;
    };
    let (_, _, out) = common::default_size();
    let tmp = common::scratch("chromium-first-screen");
    let top = "e => Math.round(e.getBoundingClientRect().top + window.scrollY)";
    let script = format!(
        "const top = {top}; console.log('layout summary ' + top(document.querySelector('table.summary')) \
         + ' figure ' + top(document.querySelector('figure')) + ' images ' + document.images.length \
         + ' broken ' + [...document.images].filter(i => !i.complete || i.naturalWidth === 0).length);"
    );
    let lines = probe(&chromium, &out.html, tmp.path(), &script);
    // `... "layout summary 640 figure 1482 images 36 broken 0", source: ...`
    let line = lines
        .iter()
        .find_map(|l| l.split("\"layout ").nth(1)?.split('"').next())
        .unwrap_or_else(|| panic!("no layout in the console: {lines:?}"));
    let words: Vec<&str> = line.split(' ').collect();
    let number = |key: &str| -> i64 {
        let i = words.iter().position(|w| *w == key).unwrap();
        words[i + 1].parse().unwrap()
    };
    assert!(number("summary") < 1000, "{line}");
    assert!(number("figure") < 2000, "{line}");
    assert_eq!(number("images"), out.figures.len() as i64, "{line}");
    assert_eq!(number("broken"), 0, "{line}");
}

#[test]
fn report_opens_in_headless_chromium_without_errors() {
    let Some(chromium) = required() else {
        return;
    };
    let (_, _, out) = common::clean();
    let tmp = common::scratch("chromium");
    let dir = tmp.path();

    // The page as written: no console message at all, and a screenshot of the full size.
    let shot = dir.join("report.png");
    let log = open(&chromium, &out.html, &shot, &dir.join("profile-a"));
    assert_eq!(console(&log), Vec::<&str>::new(), "console output:\n{log}");
    let decoder = png::Decoder::new(std::fs::File::open(&shot).unwrap());
    let info = decoder.read_info().unwrap();
    assert_eq!((info.info().width, info.info().height), (1400, 3000));

    // A copy with a probe script: every embedded figure decodes in the browser.
    let script = "const bad = [...document.images].filter(i => !i.complete || i.naturalWidth === 0); \
        console.log('images ' + document.images.length + ' broken ' + bad.length);";
    let lines = probe(&chromium, &out.html, dir, script);
    let want = format!("\"images {} broken 0\"", out.figures.len());
    assert!(
        lines.len() == 1 && lines[0].contains(&want),
        "expected only {want} in the console: {lines:?}"
    );
}
