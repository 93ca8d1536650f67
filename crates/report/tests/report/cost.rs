//! Cost columns: report.html, summary.csv and the terminal table show cost per million
//! tokens only where a cell has a cost, with the values the core's formula gives.

use plateau_model::results::read_json;

use crate::common;

#[test]
fn cost_columns_appear_where_a_cell_has_a_cost_and_show_its_values() {
    let (_tmp, results, figures) = common::fixture_copy("clean", "cost");
    // The vllm endpoint on 2 GPUs at 3 USD/h: each cost block by the core's formula on the
    // cell's own server throughput (what the driver writes).
    let mut with_cost = 0;
    for scenario in ["A1", "B2"] {
        for n in [1, 2, 4] {
            let path = results.join(format!("vllm/llama-8b/{scenario}/c{n}/summary.json"));
            let mut s: plateau_model::results::summary::CellSummary = read_json(&path).unwrap();
            let hardware = plateau_model::config::HardwareConfig {
                gpu: Some("H100 80GB".into()),
                gpu_count: Some(2),
                cost_per_hour: Some(3.0),
            };
            s.describe_endpoint(&Default::default(), Some(&hardware));
            plateau_model::results::write_json(&path, &s).unwrap();
            with_cost += 1;
        }
    }
    // And run.json states the same hardware, with labels, for the Run section.
    let run_path = results.join("run.json");
    let mut run: serde_json::Value = read_json(&run_path).unwrap();
    let vllm = run["endpoints"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["name"] == "vllm")
        .unwrap();
    vllm["hardware"] =
        serde_json::json!({"gpu": "H100 80GB", "gpu_count": 2, "cost_per_hour": 3.0});
    vllm["labels"] = serde_json::json!({"quantization": "fp8", "tp": "2"});
    plateau_model::results::write_json(&run_path, &run).unwrap();
    let out = plateau_report::render(&plateau_report::Options::new(&results, &figures)).unwrap();
    let html = std::fs::read_to_string(&out.html).unwrap();
    assert!(
        html.contains("hardware: 2 x H100 80GB, 3 USD/h; labels: quantization=fp8, tp=2"),
        "the Run section states the hardware"
    );
    let (rows, checked) = crate::values::check_rows(&results, &html);
    // Each of the 12 cells has a row in the summary table and one in its per-cell table.
    assert_eq!(rows, 2 * 12);
    // The 14 columns of every per-cell row, the two cost columns of the six vllm rows, and
    // the summary's 6 of every cell.
    assert!(
        checked >= 12 * 14 + with_cost * 2 + 12 * 6,
        "checked {checked} values"
    );
    for field in [
        "cost.output_tps_per_gpu",
        "cost.usd_per_million_output_tokens",
    ] {
        // A column in both tables (every row), a value in the vllm rows only.
        assert_eq!(html.matches(&format!("data-field=\"{field}\"")).count(), 12);
        assert_eq!(
            html.matches(&format!("data-field=\"{field}\" data-value="))
                .count(),
            with_cost
        );
    }
    let md = std::fs::read_to_string(&out.markdown).unwrap();
    assert!(
        md.contains("| output per GPU (tok/s) | cost (USD/M out tok) |"),
        "{md}"
    );
    // The untouched fixture shows neither.
    let (_, _, clean) = common::clean();
    let html = std::fs::read_to_string(&clean.html).unwrap();
    let md = std::fs::read_to_string(&clean.markdown).unwrap();
    assert!(!html.contains("cost.output_tps_per_gpu") && !md.contains("output per GPU"));
}

#[test]
fn the_terminal_table_adds_cost_columns_only_when_a_cell_has_a_cost() {
    let (results, _, _) = common::clean();
    let read = |rel: &str| -> plateau_model::results::summary::CellSummary {
        read_json(&results.join(rel).join("summary.json")).unwrap()
    };
    let bare = vec![read("vllm/llama-8b/A1/c1"), read("sglang/llama-8b/A1/c1")];
    let text = plateau_report::table::text(&bare);
    assert!(
        !text.contains("t/s/GPU") && !text.contains("$/M out"),
        "{text}"
    );

    let mut costed = bare.clone();
    let hardware = plateau_model::config::HardwareConfig {
        gpu: None,
        gpu_count: Some(4),
        cost_per_hour: Some(10.0),
    };
    costed[0].describe_endpoint(&Default::default(), Some(&hardware));
    let tps = costed[0].metrics.throughput.server_direct_tps;
    let text = plateau_report::table::text(&costed);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].ends_with("  t/s/GPU  $/M out  verdict"), "{text}");
    // The vllm row: the registry's numbers, right-aligned under their headers, then the
    // verdict; the sglang row states no hardware: dashes.
    let number = plateau_model::quantity::number;
    let at = |line: &str, header: &str| -> String {
        let end = lines[0].find(header).unwrap() + header.len();
        line[..end].split_whitespace().last().unwrap().to_owned()
    };
    assert_eq!(at(lines[1], "t/s/GPU"), number(tps / 4.0));
    assert_eq!(at(lines[1], "$/M out"), number(10.0 / (tps * 3600.0) * 1e6));
    assert_eq!(at(lines[2], "t/s/GPU"), "-");
    assert_eq!(at(lines[2], "$/M out"), "-");

    // Without cost, the table of a whole run fits in 100 columns.
    let all: Vec<_> = plateau_model::results::find_cells(results)
        .unwrap()
        .iter()
        .map(|d| read_json(&d.join("summary.json")).unwrap())
        .collect();
    let text = plateau_report::table::text(&all);
    let widest = text
        .lines()
        .filter(|l| !l.contains(';'))
        .map(|l| l.chars().count())
        .max()
        .unwrap();
    assert!(widest <= 100, "{widest} columns:\n{text}");
}
