-- The supersedes check reads each name's newest long-term mentions in a scope straight
-- from one index (covering: no table lookups); and without statistics the planner took
-- the superseded_by index to walk every memory instead, so it goes (the few queries on
-- superseded_by read it with the memories they already scan).
DROP INDEX IF EXISTS idx_memories_superseded_by;
DROP INDEX IF EXISTS idx_entity_mentions_entity;
CREATE INDEX idx_entity_mentions_pick ON entity_mentions (entity_id, scope_hash, memory_type, seen_at, slug);
