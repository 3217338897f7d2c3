CREATE TABLE profile_versions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    version_num INTEGER NOT NULL UNIQUE,
    written_at TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    content_md TEXT NOT NULL,
    diff_from_prev TEXT,
    change_summary TEXT,
    sources_count INTEGER,
    sources_window_start TEXT,
    sources_window_end TEXT
);

CREATE TABLE trigger_stats (
    "trigger" TEXT NOT NULL,
    scope_hash TEXT NOT NULL DEFAULT '_global',
    day TEXT NOT NULL,
    hits INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY ("trigger", scope_hash, day)
);

CREATE TABLE profile_change_reports (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    period TEXT NOT NULL UNIQUE,
    generated_at TEXT NOT NULL,
    content_md TEXT NOT NULL,
    versions_count INTEGER,
    supersedes_count INTEGER,
    entities_added INTEGER,
    entities_dropped INTEGER
);
