//! Where plateau reads and writes what a config does not place: the plateau checkout it runs
//! in (if any), the user's data and cache directories (XDG, through `etcetera`), and the
//! scenario folder. A binary installed from a wheel runs the same from any directory; inside
//! a checkout it keeps using the checkout's `datasets/` and `scenarios/`.

use std::path::{Path, PathBuf};

use etcetera::BaseStrategy;
use plateau_model::config::RunConfig;
use plateau_scenarios::Folders;

/// The folder of plateau's files in the user's data and cache directories.
const APP: &str = "plateau";

/// Where plateau's files go on this machine, for the current directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Places {
    /// The current directory ("." when it cannot be read).
    cwd: PathBuf,
    /// The plateau checkout the current directory is in, if any ([`checkout_of`]).
    checkout: Option<PathBuf>,
    /// `plateau` in the user's data directory (`$XDG_DATA_HOME`, else `~/.local/share`).
    data: Option<PathBuf>,
    /// The corpus cache: `PLATEAU_CACHE_DIR` (empty: none), else `plateau` in the user's
    /// cache directory (`$XDG_CACHE_HOME`, else `~/.cache`).
    cache: Option<PathBuf>,
}

impl Places {
    /// The places of this process: its current directory and environment.
    pub fn find() -> Places {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        // No home directory (HOME unset and no passwd entry): no data or cache folder.
        let base = etcetera::choose_base_strategy().ok();
        let cache = match std::env::var_os("PLATEAU_CACHE_DIR") {
            Some(dir) => (!dir.is_empty()).then(|| PathBuf::from(dir)),
            None => base.as_ref().map(|b| b.cache_dir().join(APP)),
        };
        Places {
            checkout: checkout_of(&cwd),
            data: base.as_ref().map(|b| b.data_dir().join(APP)),
            cache,
            cwd,
        }
    }

    /// The datasets folder of a config that names none: the checkout's `datasets/`, else
    /// `datasets` in plateau's data folder.
    pub fn datasets(&self) -> Option<PathBuf> {
        match &self.checkout {
            Some(root) => Some(root.join("datasets")),
            None => self.data.as_ref().map(|d| d.join("datasets")),
        }
    }

    /// The history database a command given no `--db` uses: `history.sqlite` in plateau's
    /// data folder.
    pub fn history_db(&self) -> Option<PathBuf> {
        self.data
            .as_ref()
            .map(|d| d.join(plateau_history::store::FILE))
    }

    /// The scenario folder of a config that names none: `scenarios/` in the current
    /// directory (where `plateau init --scenarios` writes it), else the checkout's, else
    /// none (the built-in definitions alone).
    pub fn scenarios(&self) -> Option<PathBuf> {
        [Some(&self.cwd), self.checkout.as_ref()]
            .into_iter()
            .flatten()
            .map(|dir| dir.join("scenarios"))
            .find(|dir| dir.is_dir())
    }

    /// The folders of a run of `config`: the ones it names, else these defaults.
    pub fn folders(&self, config: &RunConfig) -> Folders {
        Folders {
            scenarios: config.scenarios_dir.clone().or_else(|| self.scenarios()),
            datasets: config.datasets_dir.clone().or_else(|| self.datasets()),
            cache: self.cache.clone(),
        }
    }
}

/// The plateau checkout `dir` is in: the nearest of `dir` and its parents that holds
/// `benchmark_config.json`, a `scenarios/` folder and `crates/cli/Cargo.toml` (the layout of
/// plateau's repository; a folder `plateau init` wrote has no `crates/`).
pub fn checkout_of(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| {
            d.join("benchmark_config.json").is_file()
                && d.join("scenarios").is_dir()
                && d.join("crates/cli/Cargo.toml").is_file()
        })
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(cwd: &Path, data: &Path) -> Places {
        Places {
            cwd: cwd.to_owned(),
            checkout: checkout_of(cwd),
            data: Some(data.to_owned()),
            cache: None,
        }
    }

    #[test]
    fn a_checkout_is_found_from_any_folder_inside_it() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("repo");
        std::fs::create_dir_all(root.join("crates/cli/src")).unwrap();
        std::fs::create_dir_all(root.join("scenarios")).unwrap();
        std::fs::write(root.join("crates/cli/Cargo.toml"), "").unwrap();
        assert_eq!(checkout_of(&root), None, "no benchmark_config.json yet");
        std::fs::write(root.join("benchmark_config.json"), "{}").unwrap();
        assert_eq!(checkout_of(&root), Some(root.clone()));
        assert_eq!(
            checkout_of(&root.join("crates/cli/src")),
            Some(root.clone())
        );
        assert_eq!(checkout_of(tmp.path()), None, "above the checkout");

        let data = tmp.path().join("xdg/plateau");
        let inside = places(&root.join("crates/cli"), &data);
        assert_eq!(inside.datasets(), Some(root.join("datasets")));
        assert_eq!(inside.scenarios(), Some(root.join("scenarios")));
        let outside = places(tmp.path(), &data);
        assert_eq!(outside.datasets(), Some(data.join("datasets")));
        assert_eq!(outside.scenarios(), None);
    }

    #[test]
    fn a_scenarios_folder_here_wins_and_the_config_wins_over_both() {
        let tmp = tempfile::tempdir().unwrap();
        let here = tmp.path();
        std::fs::create_dir(here.join("scenarios")).unwrap();
        let p = places(here, &here.join("data"));
        assert_eq!(p.scenarios(), Some(here.join("scenarios")));
        let named: RunConfig = serde_json::from_value(serde_json::json!({
            "endpoints": [], "models": [], "batch_sizes": [1],
            "scenarios_dir": "/s", "datasets_dir": "/d"
        }))
        .unwrap();
        let f = p.folders(&named);
        assert_eq!(
            (f.scenarios, f.datasets),
            (Some(PathBuf::from("/s")), Some(PathBuf::from("/d")))
        );
    }
}
