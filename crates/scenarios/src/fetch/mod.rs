//! `fetch-datasets`: get a dataset file from the Hugging Face hub at a pinned revision
//! into the standard hub cache ([`plateau_hub`]: resume, offline use, errors, size and
//! checksum), normalise it
//! into the compact file the workloads read ([`longbench`], [`oasst2`], [`sharegpt`]), and
//! record what was fetched in a [`manifest::Manifest`]. The binary (`plateau
//! fetch-datasets`) only adds the command line and a progress bar through [`Progress`].

pub mod error;
pub mod longbench;
pub mod manifest;
pub mod oasst2;
pub mod sharegpt;

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub use error::FetchError;
use manifest::Manifest;
use plateau_hub::{Event, Hub, HubError, Kind, RepoFile};

/// A dataset `fetch-datasets` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dataset {
    /// THUDM/LongBench-v2 `data.json` (B2's contexts).
    Longbench,
    /// OpenAssistant/oasst2 conversation trees (D's dialogs).
    Oasst2,
    /// ShareGPT conversations as `vllm bench serve --dataset-name sharegpt` reads them (S's
    /// prompts and reply lengths).
    Sharegpt,
}

impl Dataset {
    /// Every dataset.
    pub const ALL: [Dataset; 3] = [Dataset::Longbench, Dataset::Oasst2, Dataset::Sharegpt];

    /// The name on the command line and of its folder under `datasets/`.
    pub fn name(self) -> &'static str {
        match self {
            Dataset::Longbench => "longbench",
            Dataset::Oasst2 => "oasst2",
            Dataset::Sharegpt => "sharegpt",
        }
    }

    /// The hub repository.
    pub fn repo(self) -> &'static str {
        match self {
            Dataset::Longbench => "THUDM/LongBench-v2",
            Dataset::Oasst2 => "OpenAssistant/oasst2",
            Dataset::Sharegpt => "anon8231489123/ShareGPT_Vicuna_unfiltered",
        }
    }

    /// The file downloaded from the repository.
    pub fn file(self) -> &'static str {
        match self {
            Dataset::Longbench => "data.json",
            Dataset::Oasst2 => "2023-11-05_oasst2_ready.trees.jsonl.gz",
            Dataset::Sharegpt => "ShareGPT_V3_unfiltered_cleaned_split.json",
        }
    }

    /// The pinned revision (a commit of the hub repository).
    pub fn revision(self) -> &'static str {
        match self {
            Dataset::Longbench => "2b48e494f2c7a2f0af81aae178e05c7e1dde0fe9",
            Dataset::Oasst2 => "179dd21fc55192153d94adb0e0ce8f69e222bf75",
            // Not a commit: the repository's commit could not be looked up when this was
            // written (offline), so this follows `main`, as vLLM's instructions do. The
            // manifest records the commit the hub resolved it to (`repo_commit`) and the
            // file's sha256; pass a commit as the revision to pin one.
            Dataset::Sharegpt => "main",
        }
    }

    /// The normalised file the workloads read, relative to `datasets/`.
    pub fn normalised(self) -> &'static str {
        match self {
            Dataset::Longbench => crate::data::longbench::FILE,
            Dataset::Oasst2 => crate::data::oasst2::FILE,
            Dataset::Sharegpt => crate::data::sharegpt::FILE,
        }
    }
}

/// Where and how to fetch.
#[derive(Clone, Debug)]
pub struct FetchOptions {
    /// The datasets folder (each dataset gets a subfolder).
    pub datasets_dir: PathBuf,
    /// The hub, its token and cache.
    pub hub: Hub,
    /// Revision instead of the pinned one.
    pub revision: Option<String>,
    /// Download tries before giving up (each resumes the previous one).
    pub attempts: u32,
    /// Download again even if the file of this revision is already in the cache.
    pub force: bool,
}

impl FetchOptions {
    /// Options for `datasets_dir`, reading the hub settings ([`Hub::from_env`]) through `env`.
    pub fn from_env(datasets_dir: PathBuf, env: &dyn Fn(&str) -> Option<String>) -> FetchOptions {
        FetchOptions {
            datasets_dir,
            hub: Hub::from_env(env),
            revision: None,
            attempts: 3,
            force: false,
        }
    }
}

/// Progress of a fetch, for a progress bar (the library never prints).
pub trait Progress: Send + Sync {
    /// A stage or event (`resuming at 120 MB`, `normalising`).
    fn message(&self, _text: &str) {}
    /// A transfer starts: `total` bytes expected (if known), `done` already on disk.
    fn start(&self, _total: Option<u64>, _done: u64) {}
    /// `bytes` more arrived.
    fn advance(&self, _bytes: u64) {}
    /// The transfer ended.
    fn finish(&self) {}
}

/// Reports nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Progress for Silent {}

/// What a fetch did.
#[derive(Clone, Debug)]
pub struct Fetched {
    /// The dataset.
    pub dataset: Dataset,
    /// What was fetched (written to `manifest.json`).
    pub manifest: Manifest,
    /// False when the file of this revision was already there.
    pub downloaded: bool,
    /// Bytes reused from an interrupted download, if it resumed.
    pub resumed_from: u64,
    /// The normalised file.
    pub normalised: PathBuf,
}

/// Gets `dataset` from the hub cache (downloading it when it is not there) and normalises
/// it under `options.datasets_dir/<name>/`.
pub async fn fetch(
    dataset: Dataset,
    options: &FetchOptions,
    progress: &dyn Progress,
) -> Result<Fetched, FetchError> {
    let dir = options.datasets_dir.join(dataset.name());
    std::fs::create_dir_all(&dir).map_err(|e| FetchError::io(&dir, e))?;
    let revision = options
        .revision
        .clone()
        .unwrap_or_else(|| dataset.revision().to_owned());
    let url = options.hub.url(&repo_file(dataset, &revision));
    let got = download(dataset, revision.clone(), options, progress).await?;
    if !got.downloaded {
        progress.message(&format!(
            "{} of revision {revision} is already in the hub cache ({})",
            dataset.file(),
            got.path.display()
        ));
    }
    progress.message(&format!("normalising {}", got.path.display()));
    let out = options.datasets_dir.join(dataset.normalised());
    let (raw, out2) = (got.path.clone(), out.clone());
    let records = tokio::task::spawn_blocking(move || match dataset {
        Dataset::Longbench => longbench::normalise(&raw, &out2),
        Dataset::Oasst2 => oasst2::normalise(&raw, &out2),
        Dataset::Sharegpt => sharegpt::normalise(&raw, &out2),
    })
    .await
    .map_err(|e| FetchError::Normalise {
        file: got.path.clone(),
        message: format!("the normaliser stopped: {e}"),
    })??;
    let manifest = Manifest {
        dataset: dataset.name().into(),
        url,
        revision,
        repo_commit: got.commit,
        etag: got.etag,
        bytes: got.bytes,
        sha256: got.sha256,
        fetched_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        raw_file: got.path.display().to_string(),
        normalised_file: dataset.normalised().into(),
        records,
    };
    manifest.write(&dir)?;
    Ok(Fetched {
        dataset,
        manifest,
        downloaded: got.downloaded,
        resumed_from: got.resumed_from,
        normalised: out,
    })
}

/// The hub file of `dataset` at `revision`.
fn repo_file(dataset: Dataset, revision: &str) -> RepoFile<'_> {
    RepoFile {
        repo: dataset.repo(),
        kind: Kind::Dataset,
        revision,
        file: dataset.file(),
    }
}

/// [`Hub::get`] on a blocking thread, its events relayed to `progress` on this task.
async fn download(
    dataset: Dataset,
    revision: String,
    options: &FetchOptions,
    progress: &dyn Progress,
) -> Result<plateau_hub::Got, FetchError> {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let (hub, force, attempts) = (options.hub.clone(), options.force, options.attempts);
    let url = hub.url(&repo_file(dataset, &revision));
    let task = tokio::task::spawn_blocking(move || {
        hub.get_bounded(&repo_file(dataset, &revision), force, attempts, &|e| {
            let _ = tx.send(e);
        })
    });
    while let Some(event) = rx.recv().await {
        match event {
            Event::Message(text) => progress.message(&text),
            Event::Start { total, done } => progress.start(Some(total), done),
            Event::Advance(n) => progress.advance(n),
            Event::Finish => progress.finish(),
        }
    }
    let got = task.await.map_err(|e| HubError::Protocol {
        url,
        message: format!("the download stopped: {e}"),
    })?;
    Ok(got?)
}

/// Writes `path` through `path.part`, synced and renamed into place only when `write`
/// succeeds, so readers never see a half-written file.
pub(crate) fn write_atomic<T>(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<std::fs::File>) -> Result<T, FetchError>,
) -> Result<T, FetchError> {
    let part = plateau_hub::part_path(path);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| FetchError::io(dir, e))?;
    }
    let file = std::fs::File::create(&part).map_err(|e| FetchError::io(&part, e))?;
    let mut w = BufWriter::new(file);
    let result = write(&mut w).and_then(|t| {
        w.flush().map_err(|e| FetchError::io(&part, e))?;
        w.get_ref()
            .sync_all()
            .map_err(|e| FetchError::io(&part, e))?;
        Ok(t)
    });
    match result {
        Ok(t) => {
            std::fs::rename(&part, path).map_err(|e| FetchError::io(path, e))?;
            Ok(t)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&part);
            Err(e)
        }
    }
}
