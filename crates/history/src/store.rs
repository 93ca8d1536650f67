//! The history database: one SQLite file (rusqlite, SQLite built in) holding runs, their
//! labels, cells and values. Every write is one immediate transaction, so a failure or a
//! second writer leaves what was recorded as it was; a busy database is waited for
//! [`BUSY_WAIT_S`] seconds, then refused with a clear error. A file that is not a SQLite
//! database, a damaged one, or another program's database is refused before anything is
//! written.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OptionalExtension, TransactionBehavior, params};

use crate::record::{CellRecord, RunRecord};
use crate::{Filter, HistoryError};

/// The database's `application_id`: `plat`.
const APPLICATION_ID: i64 = 0x706c_6174;
/// The layout this plateau writes (`user_version`).
const LAYOUT: i64 = 1;
/// How long a write waits for another writer, s.
pub const BUSY_WAIT_S: u64 = 5;
/// The database's file name in plateau's data folder.
pub const FILE: &str = "history.sqlite";

/// The tables, made when the database is new.
const SCHEMA: &str = include_str!("store/schema.sql");

/// An open history.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

/// One run as `history list` shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunRow {
    /// Its id.
    pub id: i64,
    /// Identity ([`RunRecord::key`]).
    pub key: String,
    /// Its results directory.
    pub path: PathBuf,
    /// Start, RFC 3339.
    pub started_at: String,
    /// How it ended.
    pub status: String,
    /// plateau version.
    pub plateau_version: String,
    /// Its labels, sorted by key.
    pub labels: Vec<(String, String)>,
    /// How many cells.
    pub cells: usize,
}

/// What `add` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Added {
    /// Recorded as a new run.
    New(i64),
    /// The run was already there under this id; nothing changed.
    Already(i64),
}

impl Store {
    /// Opens (creating when absent) the history at `path`.
    pub fn open(path: &Path) -> Result<Store, HistoryError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| HistoryError::Folder {
                path: parent.to_owned(),
                source,
            })?;
        }
        let conn = Connection::open(path).map_err(|e| classify(path, e))?;
        let mut store = Store {
            conn,
            path: path.to_owned(),
        };
        store.prepare()?;
        Ok(store)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Checks the file is a sound plateau history and lays it out when it is new.
    fn prepare(&mut self) -> Result<(), HistoryError> {
        let path = self.path.clone();
        let err = |e| classify(&path, e);
        self.conn
            .busy_timeout(Duration::from_secs(BUSY_WAIT_S))
            .map_err(err)?;
        self.conn
            .execute_batch("PRAGMA foreign_keys = ON;")
            .map_err(err)?;
        let check: String = self
            .conn
            .query_row("PRAGMA quick_check", [], |r| r.get(0))
            .map_err(err)?;
        if check != "ok" {
            return Err(HistoryError::Corrupt {
                path,
                detail: check,
            });
        }
        let pragma = |name: &str| -> Result<i64, HistoryError> {
            self.conn
                .query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))
                .map_err(|e| classify(&self.path, e))
        };
        let (app, layout) = (pragma("application_id")?, pragma("user_version")?);
        if app == APPLICATION_ID {
            if layout > LAYOUT {
                return Err(HistoryError::Foreign {
                    path,
                    why: format!(
                        "written by a newer plateau (layout {layout}; this one reads {LAYOUT})"
                    ),
                });
            }
            return Ok(());
        }
        let tables: i64 = self
            .conn
            .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
            .map_err(err)?;
        if app != 0 || tables > 0 {
            return Err(HistoryError::Foreign {
                path,
                why: "a SQLite database plateau did not write".into(),
            });
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(err)?;
        tx.execute_batch(SCHEMA).map_err(err)?;
        tx.execute_batch(&format!(
            "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {LAYOUT};"
        ))
        .map_err(err)?;
        tx.commit().map_err(err)
    }

    /// Starts a write: an immediate transaction, so the write lock is taken now (or the
    /// write refused as [`HistoryError::Locked`]) and a failure rolls everything back.
    fn write(&mut self) -> Result<(rusqlite::Transaction<'_>, PathBuf), HistoryError> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| classify(&path, e))?;
        Ok((tx, path))
    }

    /// Records `run`; a run already recorded (same [`RunRecord::key`]) is left as it is.
    pub fn add(&mut self, run: &RunRecord) -> Result<Added, HistoryError> {
        let (tx, path) = self.write()?;
        let err = |e| classify(&path, e);
        let existing: Option<i64> = tx
            .query_row("SELECT id FROM runs WHERE key = ?1", [&run.key], |r| {
                r.get(0)
            })
            .optional()
            .map_err(err)?;
        if let Some(id) = existing {
            return Ok(Added::Already(id));
        }
        tx.execute(
            "INSERT INTO runs (key, path, started_at, added_at, status, plateau_version, host, \
             endpoints) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                run.key,
                run.path.to_string_lossy(),
                timestamp(&run.started_at),
                chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                run.status,
                run.plateau_version,
                run.host.to_string(),
                run.endpoints.to_string(),
            ],
        )
        .map_err(err)?;
        let id = tx.last_insert_rowid();
        for (k, v) in &run.labels {
            tx.execute(
                "INSERT INTO labels (run_id, key, value) VALUES (?1, ?2, ?3)",
                params![id, k, v],
            )
            .map_err(err)?;
        }
        for c in &run.cells {
            insert_cell(&tx, id, c).map_err(err)?;
        }
        tx.commit().map_err(err)?;
        Ok(Added::New(id))
    }

    /// The runs `filter` selects, oldest first (`last N`: the latest N of them).
    pub fn runs(&self, filter: &Filter) -> Result<Vec<RunRow>, HistoryError> {
        let err = |e| classify(&self.path, e);
        let mut stmt = self
            .conn
            .prepare(
                "SELECT r.id, r.key, r.path, r.started_at, r.status, r.plateau_version, \
                 (SELECT count(*) FROM cells c WHERE c.run_id = r.id) \
                 FROM runs r ORDER BY r.started_at, r.id",
            )
            .map_err(err)?;
        let rows = stmt
            .query_map([], |r| {
                Ok(RunRow {
                    id: r.get(0)?,
                    key: r.get(1)?,
                    path: PathBuf::from(r.get::<_, String>(2)?),
                    started_at: r.get(3)?,
                    status: r.get(4)?,
                    plateau_version: r.get(5)?,
                    labels: Vec::new(),
                    cells: r.get::<_, i64>(6)? as usize,
                })
            })
            .map_err(err)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        let mut out = Vec::new();
        for mut row in rows {
            row.labels = self.labels(row.id)?;
            if filter.matches(&row.labels) {
                out.push(row);
            }
        }
        if let Some(n) = filter.last {
            let skip = out.len().saturating_sub(n);
            out.drain(..skip);
        }
        Ok(out)
    }

    /// One run with its cells.
    pub fn run(&self, id: i64) -> Result<(RunRow, Vec<CellRecord>), HistoryError> {
        let row = self
            .runs(&Filter::default())?
            .into_iter()
            .find(|r| r.id == id)
            .ok_or_else(|| HistoryError::NoRun {
                id,
                path: self.path.clone(),
            })?;
        let cells = self.cells(id)?;
        Ok((row, cells))
    }

    /// Removes runs by id; the error names the first id not recorded (nothing removed).
    pub fn remove(&mut self, ids: &[i64]) -> Result<usize, HistoryError> {
        let (tx, path) = self.write()?;
        let err = |e| classify(&path, e);
        for &id in ids {
            if tx
                .execute("DELETE FROM runs WHERE id = ?1", [id])
                .map_err(err)?
                == 0
            {
                return Err(HistoryError::NoRun {
                    id,
                    path: path.clone(),
                });
            }
        }
        tx.commit().map_err(err)?;
        Ok(ids.len())
    }

    fn labels(&self, id: i64) -> Result<Vec<(String, String)>, HistoryError> {
        let err = |e| classify(&self.path, e);
        let mut stmt = self
            .conn
            .prepare_cached("SELECT key, value FROM labels WHERE run_id = ?1 ORDER BY key")
            .map_err(err)?;
        stmt.query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(err)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)
    }

    /// The cells of run `id` with their values.
    pub fn cells(&self, id: i64) -> Result<Vec<CellRecord>, HistoryError> {
        let err = |e| classify(&self.path, e);
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, rel, endpoint, model, scenario, load, repeat, fingerprint, status, \
                 steady, overloaded FROM cells WHERE run_id = ?1 ORDER BY rel",
            )
            .map_err(err)?;
        let cells = stmt
            .query_map([id], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    CellRecord {
                        rel: r.get(1)?,
                        endpoint: r.get(2)?,
                        model: r.get(3)?,
                        scenario: r.get(4)?,
                        load: r.get(5)?,
                        repeat: r.get(6)?,
                        fingerprint: r.get(7)?,
                        status: r.get(8)?,
                        steady: r.get(9)?,
                        overloaded: r.get(10)?,
                        values: Vec::new(),
                    },
                ))
            })
            .map_err(err)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        let mut values = self
            .conn
            .prepare_cached(
                "SELECT field, value, ci_low, ci_high FROM cell_values WHERE cell_id = ?1",
            )
            .map_err(err)?;
        let mut out = Vec::with_capacity(cells.len());
        for (cell_id, mut c) in cells {
            c.values = values
                .query_map([cell_id], |r| {
                    let (lo, hi): (Option<f64>, Option<f64>) = (r.get(2)?, r.get(3)?);
                    Ok((r.get(0)?, r.get(1)?, lo.zip(hi).map(|(l, h)| [l, h])))
                })
                .map_err(err)?
                .collect::<Result<Vec<_>, _>>()
                .map_err(err)?;
            out.push(c);
        }
        Ok(out)
    }
}

fn insert_cell(tx: &rusqlite::Transaction, run: i64, c: &CellRecord) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT INTO cells (run_id, rel, endpoint, model, scenario, load, repeat, fingerprint, \
         status, steady, overloaded) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            run,
            c.rel,
            c.endpoint,
            c.model,
            c.scenario,
            c.load,
            c.repeat,
            c.fingerprint,
            c.status,
            c.steady,
            c.overloaded
        ],
    )?;
    let cell = tx.last_insert_rowid();
    for (field, value, ci) in &c.values {
        tx.execute(
            "INSERT INTO cell_values (cell_id, field, value, ci_low, ci_high) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![cell, field, value, ci.map(|c| c[0]), ci.map(|c| c[1])],
        )?;
    }
    Ok(())
}

/// How the history writes a run's start: RFC 3339, UTC, microseconds, so the text sorts
/// as the time does.
pub fn timestamp(t: &chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

/// A SQLite error as the user should read it: damaged, locked, or other.
fn classify(path: &Path, e: rusqlite::Error) -> HistoryError {
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => HistoryError::Corrupt {
            path: path.to_owned(),
            detail: e.to_string(),
        },
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => HistoryError::Locked {
            path: path.to_owned(),
            waited_s: BUSY_WAIT_S,
        },
        _ => HistoryError::Sqlite {
            path: path.to_owned(),
            source: e,
        },
    }
}

#[cfg(test)]
mod tests;
