//! Every figure of the clean and open fixtures exists as a PNG that decodes to its size and
//! an SVG that parses as XML with that width and height; the open-loop figures are drawn
//! only when there are open-loop cells.

use std::fs::File;
use std::path::Path;

use crate::common;

/// What the clean fixture (2 endpoints, scenarios A1 and B2, N = 1, 2, 4) must give.
fn expected_names() -> Vec<String> {
    let mut names: Vec<String> = [
        "server_throughput_vs_concurrency",
        "user_throughput_vs_concurrency",
        "ttft_vs_concurrency",
        "tpot_vs_concurrency",
        "jitter_vs_concurrency",
        "heatmap_server_throughput",
        "heatmap_ttft_p99",
        "engine_comparison_c4",
        "pareto_throughput_vs_ttft_p99",
        "pareto_throughput_vs_tpot_p99",
        "ttft_cdf",
        "itl_cdf",
    ]
    .map(String::from)
    .to_vec();
    for endpoint in ["sglang", "vllm"] {
        for scenario in ["A1", "B2"] {
            for n in [1, 2, 4] {
                names.push(format!("timeline_{endpoint}_llama-8b_{scenario}_c{n}"));
            }
        }
    }
    names.sort();
    names
}

/// The figures only a run with open-loop cells gets.
const OPEN_LOOP: [&str; 6] = [
    "ttft_vs_rate",
    "tpot_vs_rate",
    "achieved_vs_offered_rate",
    "goodput_vs_rate",
    "pareto_closed_and_open_vs_ttft_p99",
    "timeline_vllm_llama-8b_A1_r2",
];

fn png_size(path: &Path) -> (u32, u32) {
    let decoder = png::Decoder::new(File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut buf).unwrap();
    (frame.width, frame.height)
}

fn svg_size(path: &Path) -> (u32, u32) {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let svg = doc.root_element();
    assert_eq!(svg.tag_name().name(), "svg", "{}", path.display());
    let attr = |name: &str| svg.attribute(name).unwrap().parse::<u32>().unwrap();
    (attr("width"), attr("height"))
}

fn check_files(figures_dir: &Path, out: &plateau_report::Output) {
    for f in &out.figures {
        let [png, svg] = &f.files;
        assert_eq!(png, &figures_dir.join(format!("{}.png", f.name)));
        assert_eq!(png_size(png), f.size, "{}", png.display());
        assert_eq!(svg_size(svg), f.size, "{}", svg.display());
        assert!(
            f.size.0 >= 560 && f.size.1 >= 300,
            "{} is {:?}",
            f.name,
            f.size
        );
        if f.name.starts_with("timeline_") {
            assert_eq!(f.size.0, 1400, "{}", f.name);
        }
    }
}

#[test]
fn every_figure_is_a_png_and_an_svg_of_its_size() {
    let (_, figures_dir, out) = common::clean();
    let mut names: Vec<String> = out.figures.iter().map(|f| f.name.clone()).collect();
    names.sort();
    assert_eq!(names, expected_names());
    check_files(figures_dir, out);
    for name in OPEN_LOOP {
        assert!(!figures_dir.join(format!("{name}.png")).exists(), "{name}");
    }
    // Two scenarios side by side: two 560 px panels.
    let ttft = out
        .figures
        .iter()
        .find(|f| f.name == "ttft_vs_concurrency")
        .unwrap();
    assert_eq!(ttft.size.0, 1120);
}

#[test]
fn svg_text_uses_the_registered_family() {
    let (_, figures_dir, _) = common::clean();
    let text = std::fs::read_to_string(figures_dir.join("ttft_vs_concurrency.svg")).unwrap();
    assert!(text.contains("font-family=\"sans-serif\""));
    assert!(text.contains("TTFT (ms)"), "axis label missing");
    assert!(text.contains("A1 · Same Short"), "panel caption missing");
}

#[test]
fn open_loop_cells_get_their_figures() {
    let (_, figures_dir, out) = common::open();
    let names: Vec<&str> = out.figures.iter().map(|f| f.name.as_str()).collect();
    for name in OPEN_LOOP {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    for rate in ["r4", "r6", "r8"] {
        assert!(names.contains(&format!("timeline_vllm_llama-8b_A1_{rate}").as_str()));
    }
    // The closed-loop figures are still there for the closed-loop cells.
    assert!(names.contains(&"ttft_vs_concurrency"));
    assert_eq!(out.figures.len(), 10 + 5 + 2 + 7, "{names:?}");
    check_files(figures_dir, out);
    let svg =
        |name: &str| std::fs::read_to_string(figures_dir.join(format!("{name}.svg"))).unwrap();
    let ttft = svg("ttft_vs_rate");
    assert!(ttft.contains("SLO: TTFT p99 ≤ 100 ms"), "SLO line missing");
    assert!(
        ttft.contains("crossed: overloaded"),
        "overload legend missing"
    );
    assert!(ttft.contains("capacity found"), "capacity legend missing");
    assert!(svg("tpot_vs_rate").contains("SLO: TPOT p99 ≤ 25 ms"));
    assert!(svg("timeline_vllm_llama-8b_A1_r2").contains("target 2 req/s"));
    assert!(!svg("timeline_vllm_llama-8b_A1_r2").contains("target N"));
    assert!(svg("pareto_closed_and_open_vs_ttft_p99").contains("8/s"));
}

/// A cell whose server was scraped gets the server's running, waiting and KV usage on its
/// timeline; the others do not.
#[test]
fn a_scraped_cell_draws_the_servers_gauges_on_its_timeline() {
    use plateau_model::results::summary::CellSummary;
    use plateau_model::scrape::{self, Scrape, engines};

    let (_tmp, results, figures) = common::fixture_copy("clean", "server-timeline");
    let cells = plateau_model::results::find_cells(&results).unwrap();
    let dir = &cells[0];
    let path = dir.join(plateau_model::results::SUMMARY_FILE);
    let mut summary: CellSummary = plateau_model::results::read_json(&path).unwrap();
    let scrapes: Vec<Scrape> = (0..=summary.phases.end_us / 250_000)
        .map(|k| Scrape {
            t_us: k * 250_000,
            values: [
                ("vllm:num_requests_running".to_owned(), 8.0),
                ("vllm:num_requests_waiting".to_owned(), 2.0),
                ("vllm:kv_cache_usage_perc".to_owned(), 0.5),
            ]
            .into_iter()
            .collect(),
        })
        .collect();
    scrape::write(&dir.join(scrape::SERVER_METRICS_FILE), &scrapes).unwrap();
    summary.server = Some(Box::new(scrape::summarize(
        &scrapes,
        0,
        &engines::VLLM,
        &summary.phases,
        250,
    )));
    plateau_model::results::write_json(&path, &summary).unwrap();

    let out = plateau_report::render(&plateau_report::Options::new(&results, &figures)).unwrap();
    let c = &summary.cell;
    let scraped = format!(
        "timeline_{}_{}_{}_{}",
        c.endpoint,
        c.model,
        c.scenario,
        c.load.load().unwrap().dir_name()
    );
    let timelines: Vec<&str> = out
        .figures
        .iter()
        .map(|f| f.name.as_str())
        .filter(|n| n.starts_with("timeline_"))
        .collect();
    assert!(timelines.contains(&scraped.as_str()), "{timelines:?}");
    for name in timelines {
        let svg = std::fs::read_to_string(figures.join(format!("{name}.svg"))).unwrap();
        let drawn = [
            "server: requests running",
            "server: requests waiting",
            "server: KV-cache usage",
        ]
        .iter()
        .filter(|t| svg.contains(*t))
        .count();
        assert_eq!(drawn, if name == scraped { 3 } else { 0 }, "{name}");
    }

    // The tables gain the server's view of Measure (running 8, waiting 2, KV 0.5), and the
    // CSV its columns, read through the one registry.
    let md = std::fs::read_to_string(&out.markdown).unwrap();
    for header in [
        "server running, mean",
        "server waiting, mean",
        "KV cache usage, max",
    ] {
        assert!(md.contains(header), "summary.md lacks {header:?}");
    }
    let csv = std::fs::read_to_string(&out.csv).unwrap();
    let mut rows = csv::Reader::from_reader(csv.as_bytes());
    let head = rows.headers().unwrap().clone();
    let col = |h: &str| head.iter().position(|x| x == h).unwrap();
    let row = rows
        .records()
        .map(Result::unwrap)
        .find(|r| !r[col("server_waiting_mean")].is_empty())
        .expect("the scraped cell's row");
    assert_eq!(&row[col("server_running_mean")], "8");
    assert_eq!(&row[col("server_waiting_mean")], "2");
    assert_eq!(&row[col("server_kv_cache_usage_max")], "0.5");
    assert_eq!(
        &row[col("server_saturated")],
        "true",
        "waiting > 0 in every scrape"
    );
}

/// A percentile from too few samples is drawn hollow and the legend says what hollow
/// means; with every sample count large, no point is hollow and the legend says nothing.
#[test]
fn small_sample_points_are_hollow() {
    const LEGEND: &str = "hollow: too few samples for this percentile";
    let (_, figures, _) = common::clean();
    let svg = std::fs::read_to_string(figures.join("ttft_vs_concurrency.svg")).unwrap();
    assert!(
        svg.contains(LEGEND),
        "the clean fixture's p99s rest on under 1,000 samples"
    );
    let white = |svg: &str| svg.matches("fill=\"#FFFFFF\"").count();
    let hollow = white(&svg);

    let (_tmp, results, figures) = common::fixture_copy("clean", "no-small-sample");
    for dir in plateau_model::results::find_cells(&results).unwrap() {
        let path = dir.join(plateau_model::results::SUMMARY_FILE);
        let mut v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        for d in v.as_object_mut().unwrap().values_mut() {
            if let Some(flags) = d.get_mut("small_sample") {
                *flags = serde_json::json!([]);
            }
        }
        std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
    }
    plateau_report::render(&plateau_report::Options::new(&results, &figures)).unwrap();
    let svg = std::fs::read_to_string(figures.join("ttft_vs_concurrency.svg")).unwrap();
    assert!(!svg.contains(LEGEND));
    assert!(
        white(&svg) < hollow,
        "{} hollow fills left of {hollow}",
        white(&svg)
    );
}
