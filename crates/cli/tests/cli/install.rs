//! What an installed binary offers besides running: `--version` with the commit, shell
//! completions that the shell parses, man pages that render and match the checked-in copies
//! the wheel installs, and `plateau init`, which writes new files only.

use std::path::Path;
use std::process::Command;

use crate::common::{plateau, root, run, temp};

#[test]
fn version_names_the_version_and_the_commit() {
    let (code, out, err) = run(&mut plateau(&["--version"]));
    assert_eq!(code, 0, "{err}");
    let head = Command::new("git")
        .current_dir(root())
        .args([
            "log",
            "-1",
            "--no-show-signature",
            "--format=%h %cs",
            "HEAD",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    let detail = match std::env::var("PLATEAU_BUILD_COMMIT") {
        Ok(given) if !given.trim().is_empty() => given.trim().to_owned(),
        _ => head.unwrap_or_else(|| "commit unknown".into()),
    };
    assert_eq!(
        out,
        format!("plateau {} ({detail})\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn completions_are_scripts_their_shell_parses() {
    let tmp = temp("completions");
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let (code, out, err) = run(&mut plateau(&["completions", shell]));
        assert_eq!(code, 0, "{shell}: {err}");
        for word in ["fetch-datasets", "init", "results-dir"] {
            assert!(out.contains(word), "{shell} completes {word}");
        }
        let file = tmp.path().join(format!("plateau.{shell}"));
        std::fs::write(&file, &out).unwrap();
        // The parse-only mode of each shell installed here (bash always is).
        let check: &[&str] = match shell {
            "bash" | "zsh" => &["-n"],
            "fish" => &["--no-execute"],
            _ => continue,
        };
        match Command::new(shell).args(check).arg(&file).output() {
            Ok(o) => assert!(
                o.status.success(),
                "{shell} cannot parse its completions: {}",
                String::from_utf8_lossy(&o.stderr)
            ),
            Err(_) => assert_ne!(shell, "bash", "bash is needed to check completions"),
        }
    }
    let (code, _, err) = run(&mut plateau(&["completions", "tcsh"]));
    assert_eq!(code, 2, "{err}");
}

#[test]
fn man_pages_render_and_are_current() {
    let tmp = temp("man");
    let (code, out, err) = run(&mut plateau(&[
        "man",
        "--out",
        tmp.path().to_str().unwrap(),
    ]));
    assert_eq!(code, 0, "{out}{err}");
    let mut fresh: Vec<(String, Vec<u8>)> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    fresh.sort();
    let names: Vec<&str> = fresh.iter().map(|(n, _)| n.as_str()).collect();
    for page in [
        "plateau.1",
        "plateau-run.1",
        "plateau-init.1",
        "plateau-completions.1",
    ] {
        assert!(names.contains(&page), "{names:?}");
    }
    let (code, main_page, _) = run(&mut plateau(&["man"]));
    assert_eq!(code, 0);
    assert!(
        main_page.as_bytes() == fresh.iter().find(|(n, _)| n == "plateau.1").unwrap().1,
        "`plateau man` prints plateau.1"
    );
    // groff, where installed, renders each page without a warning.
    for (name, _) in &fresh {
        if let Ok(o) = Command::new("groff")
            .args(["-man", "-Tutf8", "-ww", "-z"])
            .arg(tmp.path().join(name))
            .output()
        {
            assert!(
                o.status.success() && o.stderr.is_empty(),
                "{name}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
    let checked_in = root().join("packaging/wheel/data/share/man/man1");
    let mut have: Vec<(String, Vec<u8>)> = std::fs::read_dir(&checked_in)
        .map(|d| {
            d.map(|e| {
                let p = e.unwrap().path();
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read(&p).unwrap())
            })
            .collect()
        })
        .unwrap_or_default();
    have.sort();
    assert!(
        have == fresh,
        "the man pages in {} are not current: run `cargo xtask man`",
        checked_in.display()
    );
}

/// `plateau init` with `args` in `cwd`.
fn init(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let mut cmd = plateau(&["init"]);
    run(cmd.current_dir(cwd).args(args))
}

#[test]
fn init_writes_the_built_in_config_and_scenarios_once() {
    let tmp = temp("init");
    let (code, out, err) = init(tmp.path(), &[]);
    assert_eq!(code, 0, "{err}");
    let config = tmp.path().join("benchmark_config.json");
    let default = std::fs::read(root().join("benchmark_config.json")).unwrap();
    assert_eq!(std::fs::read(&config).unwrap(), default);
    assert!(out.starts_with("wrote ./benchmark_config.json\n"), "{out}");
    assert!(out.contains("then run `plateau run`\n"), "{out}");

    // Asked again, it writes nothing and names what is in the way.
    std::fs::write(&config, "{\"edited\": true}").unwrap();
    let (code, out, err) = init(tmp.path(), &["--scenarios"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("./benchmark_config.json already exists; plateau init writes new files only"),
        "{err}"
    );
    assert_eq!(std::fs::read(&config).unwrap(), b"{\"edited\": true}");
    assert!(!tmp.path().join("scenarios").exists(), "all or nothing");

    let (code, out, err) = init(tmp.path(), &["fresh", "--scenarios"]);
    assert_eq!(code, 0, "{err}");
    let scenarios = tmp.path().join("fresh/scenarios");
    for name in [
        "A1.json",
        "A2.json",
        "B1.json",
        "B2.json",
        "C.json",
        "D.json",
        "S.json",
        "custom-example.json",
        "custom-example.jsonl",
    ] {
        assert_eq!(
            std::fs::read(scenarios.join(name)).unwrap(),
            std::fs::read(root().join("scenarios").join(name)).unwrap(),
            "{name}"
        );
    }
    assert!(out.ends_with("then run `plateau run` in fresh\n"), "{out}");
}

#[test]
fn init_refuses_when_any_file_is_in_the_way() {
    let tmp = temp("init-taken");
    let scenarios = tmp.path().join("scenarios");
    std::fs::create_dir(&scenarios).unwrap();
    std::fs::write(scenarios.join("C.json"), "mine").unwrap();
    std::os::unix::fs::symlink("/nonexistent", scenarios.join("D.json")).unwrap();
    let (code, _, err) = init(tmp.path(), &["--scenarios"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("./scenarios/C.json, ./scenarios/D.json already exist"),
        "{err}"
    );
    assert!(!tmp.path().join("benchmark_config.json").exists());
    assert_eq!(std::fs::read(scenarios.join("C.json")).unwrap(), b"mine");
}
