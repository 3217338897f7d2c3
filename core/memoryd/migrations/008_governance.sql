-- Governance state beyond seed 002. DURA scores live in the frontmatter (the truth) and
-- are copied here so the digest and the promotion queue need no file reads; analysis
-- failures wait here for `analyze-pending`; every LLM call's tokens are kept for the
-- daily budget and the spend report.
ALTER TABLE memories ADD COLUMN dura_score TEXT;
ALTER TABLE memories ADD COLUMN dura_mean REAL;
ALTER TABLE memories ADD COLUMN analyzed_fingerprint TEXT;
CREATE INDEX idx_memories_type_state ON memories (type, decay_state);

-- At most one pending promotion per session: re-analysis updates it, never adds one.
CREATE UNIQUE INDEX idx_promotions_one_pending ON promotions (source_session_slug)
    WHERE status = 'pending';
CREATE INDEX idx_promotions_status ON promotions (status, created_at);

CREATE TABLE analysis_failures (
    slug TEXT PRIMARY KEY REFERENCES memories(slug) ON DELETE CASCADE,
    attempts INTEGER NOT NULL DEFAULT 1,
    last_error TEXT NOT NULL,
    last_try_at TEXT NOT NULL
);

CREATE TABLE llm_usage (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ts TEXT NOT NULL,
    day TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    task TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cost_usd REAL,
    outcome TEXT NOT NULL
);
CREATE INDEX idx_llm_usage_day ON llm_usage (day);

-- Recalls per memory per day, for the digest's "recalled N times this week".
CREATE TABLE recall_stats (
    slug TEXT NOT NULL REFERENCES memories(slug) ON DELETE CASCADE,
    day TEXT NOT NULL,
    hits INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (slug, day)
);
