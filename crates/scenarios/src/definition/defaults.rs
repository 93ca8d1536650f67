//! The built-in definitions, embedded from `scenarios/` (through the links in
//! `crates/scenarios/builtin/`, which the published crate carries as files) so plateau runs
//! without that folder: the six of the default run (A1 A2 B1 B2 C D), S (ShareGPT chat) and E
//! (agent sessions), the last two run when listed; files in a scenarios folder override and add to them.

/// `(file name, contents)` of each embedded definition.
pub const FILES: &[(&str, &str)] = &[
    ("A1.json", include_str!("../../builtin/A1.json")),
    ("A2.json", include_str!("../../builtin/A2.json")),
    ("B1.json", include_str!("../../builtin/B1.json")),
    ("B2.json", include_str!("../../builtin/B2.json")),
    ("C.json", include_str!("../../builtin/C.json")),
    ("D.json", include_str!("../../builtin/D.json")),
    ("S.json", include_str!("../../builtin/S.json")),
    ("E.json", include_str!("../../builtin/E.json")),
];

/// The ids of the embedded scenarios, in order (the default run's six, then S and E).
pub const IDS: &[&str] = &["A1", "A2", "B1", "B2", "C", "D", "S", "E"];

/// `(file name, contents)` of the example of a custom scenario (its definition and its
/// prompts), which `plateau init --scenarios` writes beside the built-in definitions; not
/// itself a built-in scenario.
pub const CUSTOM_EXAMPLE: &[(&str, &str)] = &[
    (
        "custom-example.json",
        include_str!("../../builtin/custom-example.json"),
    ),
    (
        "custom-example.jsonl",
        include_str!("../../builtin/custom-example.jsonl"),
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_definitions_equal_the_files_in_scenarios() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
        for (name, embedded) in FILES.iter().chain(CUSTOM_EXAMPLE) {
            let on_disk = std::fs::read_to_string(dir.join(name)).unwrap();
            assert_eq!(&on_disk, embedded, "{name}");
        }
        let ids: Vec<&str> = FILES
            .iter()
            .map(|(n, _)| n.trim_end_matches(".json"))
            .collect();
        assert_eq!(ids, IDS);
    }
}
