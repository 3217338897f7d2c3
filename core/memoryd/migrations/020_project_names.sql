-- Project names (issue 22): the folder a scope hash stands for, noted when a write path
-- resolves a scope (capture, record, MCP writes, `memoryd scope`), so lists show "api"
-- rather than 113042906cf7. memoryd.projects reads and writes it. The display name is
-- worked out at read time (two projects both named "api" are told apart by their
-- parents). A sensitive scope's row keeps neither name nor root in the clear: both are
-- sealed with the scope's key in `sealed` (memoryd.sensitive.content, `enc:` + base64).
CREATE TABLE project_names (
    scope_hash TEXT PRIMARY KEY,
    name TEXT,
    root TEXT,
    kind TEXT NOT NULL DEFAULT 'dir',
    sealed TEXT,
    seen_at TEXT NOT NULL
) WITHOUT ROWID;
