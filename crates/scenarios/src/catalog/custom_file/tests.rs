//! The bounds of a custom prompts file: its folder, its lines, its prompts.

use std::path::PathBuf;

use super::*;
use plateau_testkit::plan::temp_dir;

fn file(folder: &Path, name: &str, max_prompt_tokens: u32) -> CustomFile {
    CustomFile {
        path: folder.join(name),
        folder: folder.to_owned(),
        allow_outside: false,
        max_prompt_tokens,
    }
}

fn prompt_line(text: &str) -> String {
    format!("{}\n", serde_json::json!({ "prompt": text }))
}

#[test]
fn a_prompt_over_the_bound_is_named_by_its_line() {
    let tmp = temp_dir("custom-cap");
    let dir = tmp.path();
    let text = [
        prompt_line("short one"),
        prompt_line("another short one"),
        prompt_line(&"many words in a row ".repeat(20)),
    ]
    .concat();
    std::fs::write(dir.join("p.jsonl"), text).unwrap();
    let t = Tokenizer::embedded_cl100k();
    let err = prompts(&file(dir, "p.jsonl", 50), &t)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        format!(
            "{}:3: the prompt is over 50 tokens of cl100k_base (max_prompt_tokens); shorten it, \
             or raise max_prompt_tokens in the scenario's definition",
            dir.join("p.jsonl").display()
        )
    );
    let ok = prompts(&file(dir, "p.jsonl", 1000), &t).unwrap();
    assert_eq!(ok.len(), 3);
    assert_eq!(
        ok.iter().map(|p| p.line).collect::<Vec<_>>(),
        [Some(1), Some(2), Some(3)]
    );
    assert_eq!(ok[0].tokens, t.count_many(&["short one"])[0]);
}

#[test]
fn a_line_longer_than_any_allowed_prompt_is_not_read_to_its_end() {
    let tmp = temp_dir("custom-line");
    let dir = tmp.path();
    // 64 MB on one line, after a good one; the bound of 1,000 tokens allows 16,000 bytes.
    let huge = prompt_line(&"x".repeat(64 << 20));
    std::fs::write(dir.join("p.jsonl"), [prompt_line("fine"), huge].concat()).unwrap();
    let t = Tokenizer::embedded_cl100k();
    let err = prompts(&file(dir, "p.jsonl", 1000), &t)
        .unwrap_err()
        .to_string();
    assert!(
        err.ends_with(
            "p.jsonl:2: the line is over 16000 bytes, longer than any prompt of at most 1000 \
             tokens (max_prompt_tokens); plateau stopped reading it: shorten it, or raise \
             max_prompt_tokens in the scenario's definition"
        ),
        "{err}"
    );
}

#[test]
fn a_long_prompt_is_counted_in_pieces_and_given_up_past_the_bound() {
    let t = Tokenizer::embedded_cl100k();
    let text = "the quick brown fox jumps over the lazy dog. ".repeat(60_000);
    assert!(text.len() > 2 * PIECE);
    let whole = u64::from(t.count_many(&[&text])[0]);
    let pieces = capped(&t, &text, u64::MAX);
    let off = (pieces as f64 - whole as f64).abs() / whole as f64;
    assert!(off < 0.001, "{pieces} against {whole}");
    // Past a bound of 1,000 it stops after the first piece.
    let first = capped(&t, &text, 1000);
    assert!(first > 1000 && first < whole / 2, "{first}");
}

#[test]
fn a_link_out_of_the_folder_is_refused_unless_allowed() {
    let tmp = temp_dir("custom-link");
    let root = tmp.path();
    let folder: PathBuf = root.join("scenarios");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(root.join("secret.jsonl"), prompt_line("from outside")).unwrap();
    std::os::unix::fs::symlink(root.join("secret.jsonl"), folder.join("p.jsonl")).unwrap();
    let t = Tokenizer::embedded_cl100k();
    let mut f = file(&folder, "p.jsonl", 1000);
    let err = prompts(&f, &t).unwrap_err().to_string();
    assert!(
        err.contains("p.jsonl: is a link to ")
            && err.contains("secret.jsonl, outside this scenario's folder"),
        "{err}"
    );
    f.allow_outside = true;
    assert_eq!(prompts(&f, &t).unwrap().len(), 1);
}
