-- memoryd's own additions beyond seed 002: session identity for capture upserts, the
-- full-text index (CJK pre-segmented, see textproc.py), raw conversation turns for level-2
-- search, and the audit chain head so a truncated log shows.
ALTER TABLE memories ADD COLUMN session_key TEXT;
CREATE UNIQUE INDEX idx_memories_session_key ON memories (session_key);

CREATE TABLE fts_docs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    slug TEXT NOT NULL UNIQUE REFERENCES memories(slug) ON DELETE CASCADE
);

CREATE VIRTUAL TABLE memories_fts USING fts5(
    title, body, triggers, tags, traces,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TABLE turns (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    slug TEXT NOT NULL REFERENCES memories(slug) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    ts TEXT,
    ext_id TEXT,
    text TEXT NOT NULL,
    UNIQUE (slug, seq)
);

CREATE VIRTUAL TABLE turns_fts USING fts5(
    role, text,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TABLE audit_head (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    seq INTEGER NOT NULL,
    this_hash TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
