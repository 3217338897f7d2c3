CREATE TABLE memories (
    slug TEXT PRIMARY KEY,
    type TEXT NOT NULL,
    scope_hash TEXT NOT NULL,
    title TEXT NOT NULL,
    source TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT,
    ttl_days INTEGER,
    decay_state TEXT NOT NULL DEFAULT 'alive',
    last_recalled_at TEXT,
    recall_count INTEGER NOT NULL DEFAULT 0,
    fingerprint TEXT NOT NULL,
    body_path TEXT NOT NULL UNIQUE
);
CREATE INDEX idx_memories_scope_type ON memories (scope_hash, type);
CREATE INDEX idx_memories_fingerprint ON memories (fingerprint);
CREATE INDEX idx_memories_decay ON memories (decay_state, last_recalled_at);
CREATE INDEX idx_memories_created ON memories (created_at);

CREATE TABLE triggers (
    slug TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    PRIMARY KEY (slug, "trigger"),
    FOREIGN KEY (slug) REFERENCES memories(slug) ON DELETE CASCADE
);

CREATE TABLE promotions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    source_session_slug TEXT NOT NULL,
    proposed_type TEXT NOT NULL,
    proposed_title TEXT NOT NULL,
    proposed_body TEXT NOT NULL,
    proposed_triggers TEXT NOT NULL,
    dura_score TEXT NOT NULL,
    reasoning TEXT,
    proposed_supersedes TEXT NOT NULL DEFAULT '[]',
    scope_hash TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',
    created_at TEXT NOT NULL,
    decided_at TEXT,
    FOREIGN KEY (source_session_slug) REFERENCES memories(slug) ON DELETE CASCADE
);
