-- Kana and hangul are bigrammed for search like Han (memoryd.textproc, issue 20): Japanese
-- writes no spaces and Korean glues particles to words, so an index written before holds
-- such text as whole runs (このリポジトリではpnpmを, 저장소에서는) that no query matches. The
-- memories whose indexed text has kana or hangul are listed here; memoryd.store re-indexes
-- them from their files when it next opens the index with the write lock free, and empties
-- the list. (Sensitive scopes keep no words in the index, so none of theirs is listed.)
CREATE TABLE resegment (
    slug TEXT PRIMARY KEY
) WITHOUT ROWID;

INSERT OR IGNORE INTO resegment (slug)
SELECT d.slug
FROM fts_docs d JOIN memories_fts f ON f.rowid = d.id
WHERE f.title GLOB '*[ぁ-ヿ가-힯]*'
   OR f.body GLOB '*[ぁ-ヿ가-힯]*'
   OR f.triggers GLOB '*[ぁ-ヿ가-힯]*'
   OR f.tags GLOB '*[ぁ-ヿ가-힯]*'
   OR f.traces GLOB '*[ぁ-ヿ가-힯]*';
