//! The built-in definitions, embedded from `scenarios/` so plateau runs when that folder is
//! missing: the six of the default run (A1 A2 B1 B2 C D) and S (ShareGPT chat, run when
//! listed); files in `scenarios_dir` override and add to them.

/// `(file name, contents)` of each embedded definition.
pub const FILES: &[(&str, &str)] = &[
    ("A1.json", include_str!("../../../../scenarios/A1.json")),
    ("A2.json", include_str!("../../../../scenarios/A2.json")),
    ("B1.json", include_str!("../../../../scenarios/B1.json")),
    ("B2.json", include_str!("../../../../scenarios/B2.json")),
    ("C.json", include_str!("../../../../scenarios/C.json")),
    ("D.json", include_str!("../../../../scenarios/D.json")),
    ("S.json", include_str!("../../../../scenarios/S.json")),
];

/// The ids of the embedded scenarios, in order (the default run's six, then S).
pub const IDS: &[&str] = &["A1", "A2", "B1", "B2", "C", "D", "S"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_definitions_equal_the_files_in_scenarios() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
        for (name, embedded) in FILES {
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
