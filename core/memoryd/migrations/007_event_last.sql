-- When each kind of audited event last happened, kept beside the chain head so `stats`
-- and the tray need not read the whole audit log. Derivable from the log (reindex).
CREATE TABLE event_last (
    event_type TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    ts TEXT NOT NULL
);
