-- The history's tables (layout 1: store.rs `LAYOUT`).
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    path TEXT NOT NULL,
    started_at TEXT NOT NULL,
    added_at TEXT NOT NULL,
    status TEXT NOT NULL,
    plateau_version TEXT NOT NULL,
    host TEXT NOT NULL,
    endpoints TEXT NOT NULL
);
CREATE TABLE labels (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
);
CREATE TABLE cells (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    rel TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    model TEXT NOT NULL,
    scenario TEXT NOT NULL,
    load TEXT NOT NULL,
    repeat INTEGER NOT NULL,
    fingerprint TEXT,
    status TEXT NOT NULL,
    steady INTEGER NOT NULL,
    overloaded INTEGER NOT NULL
);
CREATE TABLE cell_values (
    cell_id INTEGER NOT NULL REFERENCES cells(id) ON DELETE CASCADE,
    field TEXT NOT NULL,
    value REAL NOT NULL,
    ci_low REAL,
    ci_high REAL,
    PRIMARY KEY (cell_id, field)
);
CREATE INDEX cells_by_run ON cells(run_id);
