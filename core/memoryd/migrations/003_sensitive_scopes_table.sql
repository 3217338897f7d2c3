CREATE TABLE sensitive_scopes (
    scope_hash TEXT PRIMARY KEY,
    marked_at TEXT NOT NULL,
    key_source TEXT NOT NULL DEFAULT 'random'
);
