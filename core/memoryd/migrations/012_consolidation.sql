-- Nightly consolidation (seed 003's state/consolidation.json, kept in the index): one row
-- of state, a row per phase of each run, and the items a phase finished in a run it may
-- be killed in (written in the same transaction as the work, so a resumed phase skips
-- exactly those).
CREATE TABLE consolidation_state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    since TEXT NOT NULL,
    run_id TEXT,
    run_started TEXT,
    run_trigger TEXT,
    current_phase TEXT,
    last_run TEXT,
    last_success TEXT,
    retry_count INTEGER NOT NULL DEFAULT 0,
    last_error TEXT
);

CREATE TABLE consolidation_phases (
    run_id TEXT NOT NULL,
    phase TEXT NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    attempts INTEGER NOT NULL DEFAULT 1,
    result TEXT,
    PRIMARY KEY (run_id, phase)
);

CREATE TABLE consolidation_done (
    run_id TEXT NOT NULL,
    phase TEXT NOT NULL,
    item TEXT NOT NULL,
    PRIMARY KEY (run_id, phase, item)
);

-- The state row exists from the start, so the fallback can tell how long an install has
-- gone without a consolidation even if none was ever run.
INSERT INTO consolidation_state (id, since) VALUES (1, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'));
