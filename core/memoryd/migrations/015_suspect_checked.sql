-- Memories indexed before the poison detector (014) were never read by it: each row says
-- whether it was (every write, reindex and sync sets 1; memoryd.store.index.upsert_memory).
-- The rows that exist when this runs are marked unchecked; the capture worker's drain and
-- consolidation read them once (Store.check_unchecked), flag the attacks in their files and
-- strip their hidden characters.
ALTER TABLE memories ADD COLUMN suspect_checked INTEGER NOT NULL DEFAULT 1;
UPDATE memories SET suspect_checked = 0;
CREATE INDEX idx_memories_unchecked ON memories (slug) WHERE suspect_checked = 0;
