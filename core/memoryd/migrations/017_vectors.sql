-- Vectors for hybrid search (issue 20): derived data, rebuilt by `memoryd reindex`.
-- One row per distinct text per model, so unchanged text is never embedded twice and a
-- model change re-embeds; vector_refs says which texts each memory has (level 1: its
-- windows, level 2: its turns). A sensitive scope's rows carry a keyed fingerprint and
-- sealed data (memoryd.store.vectors).
CREATE TABLE vectors (            -- one row per distinct text per model
  fingerprint TEXT NOT NULL,      -- sha256 hex of the embedded text; for a sensitive scope an
                                  -- HMAC keyed from the scope key (no plaintext fingerprint)
  model TEXT NOT NULL,            -- embed.tag(): a model change re-embeds
  dim INTEGER NOT NULL,
  sealed INTEGER NOT NULL DEFAULT 0,  -- 1: data is encrypted with the scope's key
  data BLOB NOT NULL,             -- float16 little-endian (dim*2 bytes); AES-GCM of that when sealed
  PRIMARY KEY (fingerprint, model)
);
CREATE TABLE vector_refs (        -- which texts of which memory: level 1 chunks, level 2 turns
  slug TEXT NOT NULL,
  level INTEGER NOT NULL,         -- 1 = memory window, 2 = turn
  part INTEGER NOT NULL,          -- window number (level 1) or turn seq (level 2)
  fingerprint TEXT NOT NULL,
  PRIMARY KEY (slug, level, part)
);
