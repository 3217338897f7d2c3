-- The knowledge graph's per-memory rows, derived from frontmatter (observations, relations,
-- superseded_by) so `reindex` rebuilds them; and the supersedes that wait for the user.
ALTER TABLE memories ADD COLUMN superseded_by TEXT;
CREATE INDEX idx_memories_superseded_by ON memories (superseded_by);

-- Normalised name ("react" for React, react.js, ReactJS): one entity whatever the spelling.
ALTER TABLE entities ADD COLUMN norm TEXT;
CREATE INDEX idx_entities_norm ON entities (norm);

CREATE TABLE entity_mentions (
    slug TEXT NOT NULL REFERENCES memories (slug) ON DELETE CASCADE,
    entity_id TEXT NOT NULL,
    scope_hash TEXT NOT NULL,
    memory_type TEXT NOT NULL,
    mentions INTEGER NOT NULL DEFAULT 1,
    seen_at TEXT NOT NULL,
    PRIMARY KEY (slug, entity_id)
);
CREATE INDEX idx_entity_mentions_entity ON entity_mentions (entity_id, scope_hash, memory_type);
CREATE INDEX idx_entity_mentions_seen ON entity_mentions (seen_at);

CREATE INDEX idx_relations_subject ON relations (subject_id);
CREATE INDEX idx_relations_source ON relations (source_memory_id);
CREATE INDEX idx_supersedes_older ON supersedes_chain (older_memory_id);

CREATE TABLE pending_supersedes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    newer_memory_id TEXT NOT NULL,
    older_memory_id TEXT NOT NULL,
    entity_id TEXT,
    scope_hash TEXT NOT NULL,
    confidence REAL NOT NULL,
    reason TEXT,
    judged_by TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',
    created_at TEXT NOT NULL,
    decided_at TEXT,
    UNIQUE (newer_memory_id, older_memory_id)
);
CREATE INDEX idx_pending_supersedes_status ON pending_supersedes (status);
