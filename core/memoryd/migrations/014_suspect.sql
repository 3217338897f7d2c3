-- Poisoned memories (docs/agents/memory-format.md, memoryd.suspect_doc): the reasons a
-- memory reads as aimed at an AI, as a JSON list, NULL when it does not. The frontmatter's
-- `suspect` key is the truth; reindex rebuilds this column from the files. A suspect
-- memory stays out of the start-up snapshot, the exports and the promotion queue.
ALTER TABLE memories ADD COLUMN suspect TEXT;
CREATE INDEX idx_memories_suspect ON memories (slug) WHERE suspect IS NOT NULL;
