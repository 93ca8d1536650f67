//! Results that cannot be written: exit 4, one line naming the file and the OS error.

use crate::common::{plateau, run, temp, tiny_config};

#[test]
fn an_output_dir_that_is_a_file_exits_4_before_any_cell() {
    let dir = temp("output-file");
    let config = tiny_config(&dir, serde_json::json!({}));
    let results = dir.join("results");
    std::fs::write(&results, b"not a directory").unwrap();
    let (code, _, err) = run(&mut plateau(&[
        "run",
        "--config",
        config.to_str().unwrap(),
        "--quiet",
    ]));
    assert_eq!(code, 4, "{err}");
    assert_eq!(
        err.trim(),
        format!(
            "error: cannot write results: {}: exists and is not a directory",
            results.display()
        )
    );
    assert_eq!(std::fs::read(&results).unwrap(), b"not a directory");
}
