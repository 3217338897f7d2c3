-- How many referred texts lack a usable vector of a model, kept by triggers in the very
-- transactions that write vector_refs and vectors (issue 20). Every search that loads the
-- model asks it (Memoryd._embed_pending, the CLI's read path); the LEFT JOIN over every ref
-- it replaces took 90 ms at 10k memories and 3.3 s at 100k. missing(model) is
-- vector_texts.n - vector_have.n of that model (0 when it has no row): the distinct
-- fingerprints in vector_refs, less those with a usable row of the model in vectors
-- (sealed, or clear of dim*2 bytes: the rows the old query did not count as missing).
-- Triggers fire for any writer; a vector row is replaced by DELETE then INSERT, because
-- the delete an INSERT OR REPLACE makes fires no trigger (recursive_triggers is off).
CREATE INDEX vector_refs_fingerprint ON vector_refs (fingerprint);
CREATE TABLE vector_texts (       -- one row: distinct fingerprints in vector_refs
  id INTEGER PRIMARY KEY CHECK (id = 1),
  n INTEGER NOT NULL
);
CREATE TABLE vector_have (        -- per model: referred fingerprints with a usable vector
  model TEXT PRIMARY KEY,
  n INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO vector_texts (id, n) SELECT 1, count(DISTINCT fingerprint) FROM vector_refs;
INSERT INTO vector_have (model, n)
  SELECT v.model, count(*) FROM vectors v
  WHERE NOT (v.sealed = 0 AND length(v.data) != v.dim * 2)
    AND EXISTS (SELECT 1 FROM vector_refs r WHERE r.fingerprint = v.fingerprint)
  GROUP BY v.model;
-- A fingerprint's first ref: one more text, and one more for each model that has it.
-- "First" is asked as "no other ref", which stops at the first other ref found: counting
-- them all made inserting k refs of one text cost k^2 (the same short turn, "yes" or
-- "continue", recurs in thousands of sessions; 40,000 of them took 35 s, now 0.3 s).
CREATE TRIGGER vector_refs_counts_insert AFTER INSERT ON vector_refs
WHEN NOT EXISTS (
  SELECT 1 FROM vector_refs WHERE fingerprint = NEW.fingerprint AND rowid != NEW.rowid
)
BEGIN
  UPDATE vector_texts SET n = n + 1 WHERE id = 1;
  INSERT INTO vector_have (model, n)
    SELECT model, 1 FROM vectors
    WHERE fingerprint = NEW.fingerprint AND NOT (sealed = 0 AND length(data) != dim * 2)
    ON CONFLICT (model) DO UPDATE SET n = n + 1;
END;
-- Its last ref gone: one text less, and one less for each model that has it.
CREATE TRIGGER vector_refs_counts_delete AFTER DELETE ON vector_refs
WHEN NOT EXISTS (SELECT 1 FROM vector_refs WHERE fingerprint = OLD.fingerprint)
BEGIN
  UPDATE vector_texts SET n = n - 1 WHERE id = 1;
  UPDATE vector_have SET n = n - 1 WHERE model IN (
    SELECT model FROM vectors
    WHERE fingerprint = OLD.fingerprint AND NOT (sealed = 0 AND length(data) != dim * 2)
  );
END;
-- A ref pointed at another text: the old one's last ref gone, the new one's first.
CREATE TRIGGER vector_refs_counts_update AFTER UPDATE OF fingerprint ON vector_refs
WHEN OLD.fingerprint != NEW.fingerprint
BEGIN
  UPDATE vector_have SET n = n - 1
  WHERE NOT EXISTS (SELECT 1 FROM vector_refs WHERE fingerprint = OLD.fingerprint)
    AND model IN (
      SELECT model FROM vectors
      WHERE fingerprint = OLD.fingerprint AND NOT (sealed = 0 AND length(data) != dim * 2)
    );
  UPDATE vector_texts SET n = n - 1
  WHERE id = 1 AND NOT EXISTS (SELECT 1 FROM vector_refs WHERE fingerprint = OLD.fingerprint);
  UPDATE vector_texts SET n = n + 1
  WHERE id = 1 AND NOT EXISTS (
    SELECT 1 FROM vector_refs WHERE fingerprint = NEW.fingerprint AND rowid != NEW.rowid
  );
  INSERT INTO vector_have (model, n)
    SELECT model, 1 FROM vectors
    WHERE fingerprint = NEW.fingerprint AND NOT (sealed = 0 AND length(data) != dim * 2)
      AND NOT EXISTS (
        SELECT 1 FROM vector_refs WHERE fingerprint = NEW.fingerprint AND rowid != NEW.rowid
      )
    ON CONFLICT (model) DO UPDATE SET n = n + 1;
END;
-- A usable vector of a referred text comes or goes.
CREATE TRIGGER vectors_counts_insert AFTER INSERT ON vectors
WHEN NOT (NEW.sealed = 0 AND length(NEW.data) != NEW.dim * 2)
  AND EXISTS (SELECT 1 FROM vector_refs WHERE fingerprint = NEW.fingerprint)
BEGIN
  INSERT INTO vector_have (model, n) VALUES (NEW.model, 1)
    ON CONFLICT (model) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER vectors_counts_delete AFTER DELETE ON vectors
WHEN NOT (OLD.sealed = 0 AND length(OLD.data) != OLD.dim * 2)
  AND EXISTS (SELECT 1 FROM vector_refs WHERE fingerprint = OLD.fingerprint)
BEGIN
  UPDATE vector_have SET n = n - 1 WHERE model = OLD.model;
END;
CREATE TRIGGER vectors_counts_update AFTER UPDATE ON vectors
BEGIN
  UPDATE vector_have SET n = n - 1
  WHERE model = OLD.model AND NOT (OLD.sealed = 0 AND length(OLD.data) != OLD.dim * 2)
    AND EXISTS (SELECT 1 FROM vector_refs WHERE fingerprint = OLD.fingerprint);
  INSERT INTO vector_have (model, n)
    SELECT NEW.model, 1
    WHERE NOT (NEW.sealed = 0 AND length(NEW.data) != NEW.dim * 2)
      AND EXISTS (SELECT 1 FROM vector_refs WHERE fingerprint = NEW.fingerprint)
    ON CONFLICT (model) DO UPDATE SET n = n + 1;
END;
