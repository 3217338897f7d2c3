CREATE TABLE entities (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    type TEXT NOT NULL,
    aliases TEXT,
    context TEXT,
    first_seen_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    mention_count INTEGER NOT NULL DEFAULT 1,
    scope_hash TEXT,
    decay_state TEXT NOT NULL DEFAULT 'fresh'
);
CREATE INDEX idx_entities_type ON entities (type);

CREATE TABLE relations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    subject_id TEXT NOT NULL,
    subject_kind TEXT NOT NULL,
    predicate TEXT NOT NULL,
    object_id TEXT NOT NULL,
    object_kind TEXT NOT NULL,
    source_memory_id TEXT,
    scope_hash TEXT,
    confidence REAL,
    created_at TEXT NOT NULL,
    superseded_at TEXT,
    UNIQUE (subject_id, predicate, object_id, source_memory_id)
);
CREATE INDEX idx_relations_object ON relations (object_id);

CREATE TABLE supersedes_chain (
    newer_memory_id TEXT NOT NULL,
    older_memory_id TEXT NOT NULL,
    entity_id TEXT,
    confidence REAL NOT NULL,
    decided_at TEXT NOT NULL,
    decided_by TEXT NOT NULL,
    reason TEXT,
    PRIMARY KEY (newer_memory_id, older_memory_id)
);
