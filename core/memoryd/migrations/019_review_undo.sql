-- Undo for the weekly review (issue 22): every reject, approve, merge and "not duplicates"
-- a person makes through the facade is a row here, so `memoryd undo` and the tray can take
-- it back. `detail` is JSON holding what the undo needs and what it checks first (the
-- promotion, slugs, the trash entry, the version of a memory the action left); slugs only,
-- no memory text (a sensitive scope's slugs are opaque already). `undone_at` is set once.
CREATE TABLE review_actions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,            -- reject | approve | merge | not_duplicates
  at TEXT NOT NULL,
  actor TEXT NOT NULL,
  scope_hash TEXT,
  target TEXT NOT NULL,          -- the promotion id, the kept slug, or the group's key
  detail TEXT NOT NULL DEFAULT '{}',
  undone_at TEXT
);
CREATE INDEX review_actions_target ON review_actions (kind, target);
-- Groups of memories a person said are not duplicates: the digest stops proposing them
-- (and any part of them). `group_key` is the sorted slugs joined by single spaces.
CREATE TABLE not_duplicates (
  group_key TEXT PRIMARY KEY,
  scope_hash TEXT,
  decided_at TEXT NOT NULL
) WITHOUT ROWID;
