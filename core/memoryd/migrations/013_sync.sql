-- Sync (docs/sync.md): for each memory, the version this device last wrote or saw on disk,
-- so a later scan tells this device's own edits, recalls, decay moves and deletions from
-- versions that arrived from other devices. Derived from nothing else; losing it makes
-- the next sync treat every file as a local edit of unknown ancestry (conflict copies,
-- never lost content).
CREATE TABLE sync_applied (
    slug TEXT PRIMARY KEY,
    rev TEXT NOT NULL,
    history TEXT NOT NULL DEFAULT '[]',
    deleted INTEGER NOT NULL DEFAULT 0,
    file_sha TEXT,
    body_path TEXT,
    recalls INTEGER NOT NULL DEFAULT 0,
    own INTEGER NOT NULL DEFAULT 0,
    last_recalled_at TEXT,
    decay_state TEXT
);

-- What a sync is about to write, recorded before it touches a file and cleared with the
-- ledger rows once the files and index rows are done: the next scan tells a file that sync
-- wrote (this hash) from one it had not reached yet (the ledger's older row still applies).
CREATE TABLE sync_pending (
    slug TEXT PRIMARY KEY,
    file_sha TEXT,
    body_path TEXT
);
