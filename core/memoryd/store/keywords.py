"""Warm keyword search: FTS5's own postings held in memory and scored as FTS5's bm25() does.

Why: `index_sql.search` asks FTS5 for bm25() over every matching row, and a common word
matches a third of a store: at 100k memories in one scope the statement alone costs tens of
ms (~1 us per matching row, plus an O(df) scan per phrase for its IDF). A long-lived process
(the MCP server, the tray) can afford a one-off load of the postings and then score a query
with a few numpy operations. The answer is the statement's, row for row and score for score:

* the postings are FTS5's own tokens (fts5vocab 'instance'), each document's length its
  docsize record, N and the average length the table's 'averages' record, so nothing is
  tokenized twice in two ways; query phrases are tokenized by FTS5 too (a scratch FTS5
  table with the same tokenizer);
* scores follow ext/fts5/fts5_aux.c fts5Bm25Function operation by operation, including
  the order it adds column weights in (column, then offset), so they are bit-for-bit equal
  and ties fall to `m.slug` as in `ORDER BY score, m.slug`;
* anything else (a phrase of two tokens, NEAR, a column filter, an index not built or stale)
  answers None, and the caller runs the statement.

Freshness: FTS5 rewrites its structure record (`memories_fts_data` id 10) on every write
to the table, deletes and same-text rewrites included, from any process; a write that does
not touch the FTS (recall counters, decay states) leaves it alone. That record and the
file's inode are compared before each use; a stale index is rebuilt in a background thread
while searches go to SQL. Filters (scope, type, decay state) live in `memories` and change
without FTS writes: the best candidates are checked against them by one statement per chunk,
in the same read transaction as the freshness check. Scopes and types also prefilter: a
memory changes scope or type only by a reindex of its row, which rewrites its FTS row. (Without
the type prefilter, traces' search of sessions alone walked four statements a query at 100k
memories, where sessions are 40% of the candidates.)

Standard library sqlite3 and numpy only.
"""

from __future__ import annotations

import bisect
import itertools
import logging
import math
import os
import re
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memoryd import index_sql as sql
from memoryd.index_sql import BM25_WEIGHTS, Hit
from memoryd.lazynp import np

log = logging.getLogger(__name__)

TABLE = "memories_fts"
K1 = 1.2
B = 0.75
BUSY_TIMEOUT_S = 60.0
# Instances read per statement while building (bounds the build's peak memory).
CHUNK_INSTANCES = 1_000_000
# Candidate rows checked against the filters beyond `limit` by the first statement (filters
# rarely reject many); later statements check 4x more.
FIRST_CHECK = 8
MAX_CHECK = 4096
# Scored phrases kept between queries, counted in postings.
CACHE_POSTINGS = 4_000_000
_PHRASE = re.compile(r'"((?:[^"]|"")*)"(\*?)')
_TOKENIZE = re.compile(r"tokenize\s*=\s*'((?:[^']|'')*)'", re.I)


def _varints(blob: bytes) -> list[int]:
    """SQLite's varints (FTS5 writes its records with them), in order."""
    out: list[int] = []
    i, n = 0, len(blob)
    while i < n:
        v = 0
        for j in range(9):
            byte = blob[i]
            i += 1
            if j == 8:
                v = (v << 8) | byte
                break
            v = (v << 7) | (byte & 0x7F)
            if byte < 0x80:
                break
        out.append(v)
    return out


def parse_match(match: str) -> list[tuple[str, bool]] | None:
    """The phrases of a plain OR of quoted terms (`"a" OR "b"*`), each as (text, prefix);
    None for any other expression."""
    out: list[tuple[str, bool]] = []
    pos, n = 0, len(match)
    while True:
        m = _PHRASE.match(match, pos)
        if m is None:
            return None
        out.append((m.group(1).replace('""', '"'), m.group(2) == "*"))
        pos = m.end()
        if pos == n:
            return out
        if not match.startswith(" OR ", pos):
            return None
        pos += 4


def accumulate(start: np.ndarray, counts: np.ndarray, weight: float) -> np.ndarray:
    """`start + weight + weight + ...` (counts[i] additions) per element, in float64 as C
    adds it: bm25() adds one weight per instance, and for a weight like 0.6 that differs
    from `start + weight * count` in the last bits."""
    f = start.astype(np.float64, copy=True)
    if float(weight).is_integer():
        return f + weight * counts
    todo = np.flatnonzero(counts > 0)
    done = 0
    while len(todo):
        f[todo] += weight
        done += 1
        todo = todo[counts[todo] > done]
    return f


@dataclass
class _Postings:
    """One build of the index, read from one snapshot (`stamp`). Never changed after the
    build except its caches."""

    stamp: tuple[Any, ...]
    rows: int  # N: FTS rows, as the averages record counts them
    avgdl: float
    terms: list[str]  # sorted as FTS5 sorts them (UTF-8 bytes = code points)
    term_ids: dict[str, int]
    ptr: np.ndarray  # int64, len(terms) + 1
    docs: np.ndarray  # int32 dense doc index per posting
    # Per posting, the code of its (integral part, instances in the last column) pair: few
    # distinct pairs, so 4 bytes a posting instead of a float64 frequency and a count.
    pair: np.ndarray  # int32
    pair_base: np.ndarray  # float64: weighted count of the integral-weight columns
    pair_last: np.ndarray  # int64: instances in the last column
    pair_freq: np.ndarray  # float64: the frequency bm25() sums for the pair
    norm: np.ndarray  # float64 per doc: k1 * (1 - b + b * D / avgdl)
    slugs: list[str | None]  # per doc (None: an FTS row without fts_docs)
    rank: np.ndarray  # int32 per doc: order of its slug, -1 without one
    scope: np.ndarray  # int32 per doc: scope code, -1 unknown
    scope_codes: dict[str, int]
    kind: np.ndarray  # int32 per doc: type code, -1 unknown
    kind_codes: dict[str, int]
    build_s: float = 0.0
    _cache: dict[tuple[str, bool], tuple[np.ndarray, np.ndarray] | None] = field(default_factory=dict)
    _cached: int = 0
    _masks: dict[tuple[tuple[str, ...] | None, tuple[str, ...] | None], np.ndarray] = field(
        default_factory=dict
    )
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def nbytes(self) -> int:
        arrays = (self.ptr, self.docs, self.pair, self.pair_base, self.pair_last, self.pair_freq)
        arrays += (self.norm, self.rank, self.scope, self.kind)
        size = sum(a.nbytes for a in arrays)
        size += sys.getsizeof(self.terms) + sum(sys.getsizeof(t) for t in self.terms)
        size += sys.getsizeof(self.term_ids)
        size += sys.getsizeof(self.slugs) + sum(sys.getsizeof(s) for s in self.slugs if s is not None)
        return size

    # -- scoring ------------------------------------------------------------------------
    def phrase(self, token: str, prefix: bool) -> tuple[np.ndarray, np.ndarray] | None:
        """(docs, this phrase's part of the score per doc), cached; None when it cannot be
        computed exactly (a saturated count)."""
        key = (token, prefix)
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        got = self._phrase(token, prefix)
        with self._lock:
            size = len(got[0]) if got is not None else 0
            if self._cached + size > CACHE_POSTINGS:
                self._cache.clear()
                self._cached = 0
            self._cache[key] = got
            self._cached += size
        return got

    def _phrase(self, token: str, prefix: bool) -> tuple[np.ndarray, np.ndarray] | None:
        if prefix:
            lo = bisect.bisect_left(self.terms, token)
            last = ord(token[-1])
            if last >= sys.maxunicode:
                return None
            hi = bisect.bisect_left(self.terms, token[:-1] + chr(last + 1), lo)
            a, z = int(self.ptr[lo]), int(self.ptr[hi])
            if hi - lo == 1:
                docs, freq = self.docs[a:z], self.pair_freq[self.pair[a:z]]
            else:
                # per doc, the integral parts of all its terms, then the last column's
                # additions of all of them in one run, as bm25() makes them
                docs_all, pair = self.docs[a:z], self.pair[a:z]
                docs = np.unique(docs_all)
                at = np.searchsorted(docs, docs_all)
                base = np.bincount(at, weights=self.pair_base[pair], minlength=len(docs))
                last = np.bincount(at, weights=self.pair_last[pair], minlength=len(docs))
                freq = accumulate(base, last.astype(np.int64), BM25_WEIGHTS[-1])
        else:
            tid = self.term_ids.get(token)
            if tid is None:
                return np.empty(0, np.int32), np.empty(0, np.float64)
            a, z = int(self.ptr[tid]), int(self.ptr[tid + 1])
            docs, freq = self.docs[a:z], self.pair_freq[self.pair[a:z]]
        hits = len(docs)
        idf = math.log((self.rows - hits + 0.5) / (hits + 0.5))
        if idf <= 0.0:
            idf = 1e-6
        part = idf * ((freq * (K1 + 1.0)) / (freq + self.norm[docs]))
        return np.ascontiguousarray(docs, dtype=np.int32), part

    def mask(self, scopes: Sequence[str] | None, types: Sequence[str] | None = None) -> np.ndarray:
        """Docs worth scoring: with a slug, in one of `scopes` and of one of `types` (or of
        unknown scope or type: the statement per chunk checks those)."""
        skey = None if scopes is None else tuple(sorted(set(scopes)))
        tkey = tuple(sorted(set(types))) if types else None
        key = (skey, tkey)
        with self._lock:
            got = self._masks.get(key)
        if got is not None:
            return got
        ok = self.rank >= 0
        if skey is not None:
            codes = [self.scope_codes[s] for s in skey if s in self.scope_codes]
            ok &= np.isin(self.scope, np.array([*codes, -1], dtype=np.int32))
        if tkey is not None:
            codes = [self.kind_codes[t] for t in tkey if t in self.kind_codes]
            ok &= np.isin(self.kind, np.array([*codes, -1], dtype=np.int32))
        with self._lock:
            if len(self._masks) > 64:
                self._masks.clear()
            self._masks[key] = ok
        return ok

    def ranked(
        self, parts: list[tuple[np.ndarray, np.ndarray]], ok: np.ndarray, first: int
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Candidate docs with their scores, best first (score, then slug), in chunks that
        grow 4x: most searches need only the first."""
        docs = np.concatenate([d for d, _ in parts])
        if not len(docs):
            return
        # bincount adds in input order: per doc, phrase after phrase, as bm25()'s loop does
        score = np.bincount(docs, weights=np.concatenate([w for _, w in parts]), minlength=len(ok))
        cand = np.flatnonzero((score > 0.0) & ok)
        vals = score[cand]
        done, want = 0, max(first, 1)
        while done < len(cand):
            if want >= len(cand):
                sel = cand
            else:
                cut = np.partition(vals, len(vals) - want)[len(vals) - want]
                sel = cand[vals >= cut]  # ties at the cut come along
            order = np.lexsort((self.rank[sel], -score[sel]))
            chunk = sel[order][done : done + MAX_CHECK]
            yield chunk, score[chunk]
            done += len(chunk)
            want = max(want * 4, done + 1)


@dataclass(frozen=True)
class Built:
    seconds: float
    nbytes: int
    rows: int
    terms: int
    postings: int


class Keywords:
    """The warm index of one index.db; `search` answers as `index.search` or None."""

    def __init__(self, db: Path, *, debounce_s: float = 0.5) -> None:
        self.db = Path(db)
        self.debounce_s = debounce_s
        self._postings: _Postings | None = None
        self._local = threading.local()
        self._lock = threading.Lock()
        self._built = threading.Condition(self._lock)
        self._building = False
        self._failed: tuple[Any, ...] | None = None  # the stamp a build failed at
        self._tokens: dict[str, tuple[str, ...]] = {}
        self._closed = False
        # The file this process opened. A restore puts another index.db at the path while
        # the process's engine and vectors stay on this one (docs/backup.md: restart them);
        # answering from the new file would mix two stores in one search, so the statement
        # answers instead, from wherever the engine reads.
        self._origin = self._inode()

    # -- connections ----------------------------------------------------------------------
    def _inode(self) -> int:
        try:
            return os.stat(self.db).st_ino
        except OSError:
            return 0

    def _connection(self) -> sqlite3.Connection:
        """This thread's connection, reopened when index.db is another file (a restore)."""
        con: sqlite3.Connection | None = getattr(self._local, "con", None)
        inode = self._inode()
        if con is not None and self._local.inode != inode:
            con.close()
            con = None
        if con is None:
            con = sqlite3.connect(
                self.db, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
            con.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            # held by this thread only: it closes when the thread ends (a build's thread, a
            # server's worker thread), so none is kept here
            self._local.con, self._local.inode = con, inode
        return con

    @contextmanager
    def _snapshot(self) -> Iterator[tuple[sqlite3.Connection, tuple[Any, ...]]]:
        """One read transaction and the stamp of what it sees."""
        con = self._connection()
        con.execute("BEGIN")
        try:
            yield con, self._stamp(con)
        finally:
            con.execute("COMMIT")

    def _stamp(self, con: sqlite3.Connection) -> tuple[Any, ...]:
        rows = con.execute(f"SELECT block FROM {TABLE}_data WHERE id = 10").fetchall()
        return (self._local.inode, bytes(rows[0][0]) if rows else None)

    def close(self) -> None:
        """No more builds; this thread's connections close (other threads' close with them)."""
        with self._lock:
            self._closed = True
        for name in ("con", "scratch"):
            con = getattr(self._local, name, None)
            if con is not None:
                con.close()
                delattr(self._local, name)

    # -- state ----------------------------------------------------------------------------
    def built(self) -> Built | None:
        p = self._postings
        if p is None:
            return None
        return Built(p.build_s, p.nbytes(), p.rows, len(p.terms), len(p.docs))

    def refresh(self) -> None:
        """Build in the background unless a build runs (or failed at this very state)."""
        with self._lock:
            if self._building or self._closed or self._inode() != self._origin:
                return
            self._building = True
        threading.Thread(target=self._build_loop, name="memoryd-keywords", daemon=True).start()

    def ready(self, timeout: float | None = None) -> bool:
        """Wait until the index matches index.db as it is now (building it if needed)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._inode() != self._origin:
                return False  # never built from a file put in place of the one opened
            with self._snapshot() as (_, stamp):
                pass
            p = self._postings
            if p is not None and p.stamp == stamp:
                return True
            with self._lock:
                if self._failed == stamp:
                    return False
            self.refresh()
            with self._lock:
                while self._building:
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= 0:
                        return False
                    self._built.wait(left)
            if deadline is not None and time.monotonic() >= deadline:
                p = self._postings
                return p is not None and p.stamp == stamp

    def _build_loop(self) -> None:
        try:
            if self.debounce_s > 0:
                time.sleep(self.debounce_s)  # a burst of writes makes one build, not many
            with self._snapshot() as (con, stamp):
                p = self._postings
                if p is not None and p.stamp == stamp:
                    return
                try:
                    self._postings = build(con, stamp)
                    self._failed = None
                except Exception:  # a build that fails leaves searches on SQL
                    log.warning("keyword index not built", exc_info=True)
                    self._failed = stamp
        except sqlite3.Error:
            log.warning("keyword index not built", exc_info=True)
        finally:
            with self._lock:
                self._building = False
                self._built.notify_all()

    # -- search ---------------------------------------------------------------------------
    def search(
        self,
        match: str,
        *,
        scopes: Sequence[str] | None,
        types: Sequence[str] | None,
        states: Sequence[str] | None,
        limit: int,
    ) -> list[tuple[Hit, dict[str, Any]]] | None:
        """`index.search`'s answer, or None when this index cannot give it (the caller then
        runs the statement): not built, stale, or an expression it does not score."""
        if self._inode() != self._origin:
            return None
        try:
            return self._search(match, scopes, types, states, limit)
        except sqlite3.Error:  # say, index.db replaced under a connection: the statement answers
            log.warning("warm keyword search failed; searching with SQL", exc_info=True)
            return None

    def _search(
        self,
        match: str,
        scopes: Sequence[str] | None,
        types: Sequence[str] | None,
        states: Sequence[str] | None,
        limit: int,
    ) -> list[tuple[Hit, dict[str, Any]]] | None:
        phrases = parse_match(match)
        if phrases is None or limit <= 0:
            return None
        tokens = self._tokenize([text for text, _ in phrases])
        if tokens is None:
            return None
        with self._snapshot() as (con, stamp):
            p = self._postings
            if p is None or p.stamp != stamp:
                with self._lock:
                    failed = self._failed == stamp
                if not failed:
                    self.refresh()
                return None
            parts = []
            for text, prefix in phrases:
                got = p.phrase(tokens[text], prefix)
                if got is None:
                    return None
                parts.append(got)
            if scopes is not None and not scopes:
                return []
            out: list[tuple[Hit, dict[str, Any]]] = []
            where, params = sql.filters(scopes, types, states)
            for chunk, scores in p.ranked(parts, p.mask(scopes, types), limit + FIRST_CHECK):
                slugs = [p.slugs[int(d)] for d in chunk]
                statement, got_params = sql.get_many([s for s in slugs if s is not None])
                # by slug first: left to itself the planner may walk the scope's index instead
                statement = f"WITH m AS MATERIALIZED ({statement}) SELECT {sql.COLS} FROM m WHERE {where}"
                rows = con.execute(statement, {**params, **got_params}).fetchall()
                passed = {r[0]: r for r in rows}
                for slug, score in zip(slugs, scores.tolist(), strict=True):
                    r = passed.get(slug)
                    if r is not None:
                        out.append(sql.hit((*r, -score)))
                        if len(out) >= limit:
                            return out
            return out

    def _tokenize(self, texts: Sequence[str]) -> dict[str, str] | None:
        """Each phrase's one token as FTS5 makes it at query time; None if one has not
        exactly one."""
        known = {t: self._tokens.get(t) for t in texts}
        todo = [t for t, toks in known.items() if toks is None]
        if todo:
            got = self._run_tokenizer(todo)
            if got is None:
                return None
            known.update(got)
            if len(self._tokens) > 100_000:
                self._tokens = {}  # swapped, not cleared: other threads may be reading it
            self._tokens.update(got)
        out = {}
        for t in texts:
            toks = known[t] or ()
            if len(toks) != 1:
                return None
            out[t] = toks[0]
        return out

    def _run_tokenizer(self, texts: Sequence[str]) -> dict[str, tuple[str, ...]] | None:
        scratch: sqlite3.Connection | None = getattr(self._local, "scratch", None)
        if scratch is None:
            with self._snapshot() as (con, _):
                option = tokenizer_of(con)
            if option is None:
                return None
            scratch = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            quoted = option.replace("'", "''")
            scratch.execute(f"CREATE VIRTUAL TABLE tok USING fts5(x, tokenize = '{quoted}')")
            scratch.execute("CREATE VIRTUAL TABLE tokv USING fts5vocab(tok, instance)")
            self._local.scratch = scratch
        scratch.execute("BEGIN")
        try:
            scratch.executemany("INSERT INTO tok (rowid, x) VALUES (?, ?)", list(enumerate(texts, 1)))
            rows = scratch.execute("SELECT doc, term FROM tokv ORDER BY doc, offset").fetchall()
        finally:
            scratch.execute("ROLLBACK")
        out: dict[str, list[str]] = {t: [] for t in texts}
        for doc, term in rows:
            out[texts[doc - 1]].append(term)
        return {t: tuple(v) for t, v in out.items()}


def tokenizer_of(con: sqlite3.Connection) -> str | None:
    rows = con.execute("SELECT sql FROM sqlite_master WHERE name = ?", (TABLE,)).fetchall()
    if not rows or rows[0][0] is None:
        return None
    m = _TOKENIZE.search(rows[0][0])
    return m.group(1).replace("''", "'") if m else None


def build(con: sqlite3.Connection, stamp: tuple[Any, ...]) -> _Postings:
    """The postings of the snapshot `con` is in (the caller's read transaction)."""
    t0 = time.perf_counter()
    weights = BM25_WEIGHTS
    if not all(float(w).is_integer() for w in weights[:-1]):
        raise ValueError("only the last column's weight may be fractional")
    columns = [r[1] for r in con.execute(f"PRAGMA table_info({TABLE})").fetchall()]
    if len(columns) != len(weights):
        raise ValueError(f"{TABLE} has {len(columns)} columns, bm25 weights {len(weights)}")
    averages = con.execute(f"SELECT block FROM {TABLE}_data WHERE id = 1").fetchall()
    totals = (_varints(bytes(averages[0][0])) if averages else []) or [0]  # empty table: no record
    rows = totals[0]
    tokens = sum(totals[1:])
    avgdl = float(tokens) / float(rows) if rows else 1.0
    sizes = con.execute(f"SELECT id, sz FROM {TABLE}_docsize ORDER BY id").fetchall()
    rowids = np.fromiter((r[0] for r in sizes), dtype=np.int64, count=len(sizes))
    length = np.fromiter(
        (sum(_varints(bytes(r[1]))) if max(r[1], default=0) >= 0x80 else sum(r[1]) for r in sizes),
        dtype=np.float64,
        count=len(sizes),
    )
    norm = K1 * (1 - B + (B * length) / avgdl)
    n_docs = len(rowids)

    con.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.kw_rows USING fts5vocab(main, {TABLE}, row)")
    con.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.kw_inst USING fts5vocab(main, {TABLE}, instance)")
    vocab = con.execute("SELECT term, cnt FROM temp.kw_rows").fetchall()
    terms = [r[0] for r in vocab]
    counts = np.fromiter((r[1] for r in vocab), dtype=np.int64, count=len(vocab))
    if any(a >= b for a, b in itertools.pairwise(terms)):
        raise ValueError("fts5vocab terms out of order")
    col_case = " ".join(f"WHEN '{c}' THEN {i}" for i, c in enumerate(columns))
    int_w = np.array([*weights[:-1], 0.0], dtype=np.float64)
    last_col = len(weights) - 1

    docs_parts: list[np.ndarray] = []
    pair_parts: list[np.ndarray] = []
    codes_of: dict[int, int] = {}  # (base << 32 | last) -> pair code
    per_term = np.zeros(len(terms), dtype=np.int64)
    start = 0
    while start < len(terms):
        stop, n = start, 0
        while stop < len(terms) and (n == 0 or n + counts[stop] <= CHUNK_INSTANCES):
            n += int(counts[stop])
            stop += 1
        text = con.execute(
            f"SELECT group_concat(doc * 8 + CASE col {col_case} END) FROM temp.kw_inst "
            "WHERE term >= ? AND term <= ?",
            (terms[start], terms[stop - 1]),
        ).fetchall()[0][0]
        keys = np.fromstring(text, dtype=np.int64, sep=",") if text else np.empty(0, np.int64)
        if len(keys) != n:
            raise ValueError("fts5vocab instances do not add up to its row counts")
        term_of = np.repeat(np.arange(start, stop, dtype=np.int32), counts[start:stop])
        doc = keys >> 3
        col = keys & 7
        new = np.ones(len(keys), dtype=bool)
        new[1:] = (term_of[1:] != term_of[:-1]) | (doc[1:] != doc[:-1])
        starts = np.flatnonzero(new)
        # instances are in (term, doc, column, offset) order: one posting per (term, doc)
        base = np.add.reduceat(int_w[col], starts).astype(np.int64)
        last = np.add.reduceat((col == last_col).astype(np.int64), starts)
        if len(base) and (int(base.max()) >= 1 << 31 or int(last.max()) >= 1 << 32):
            raise ValueError("a term too frequent in one memory")
        uniq, inverse = np.unique((base << 32) | last, return_inverse=True)
        code = np.array([codes_of.setdefault(int(k), len(codes_of)) for k in uniq], dtype=np.int32)
        pair_parts.append(code[inverse.reshape(-1)])
        docs_parts.append(np.searchsorted(rowids, doc[starts]).astype(np.int32))
        per_term[start:stop] = np.bincount(term_of[starts] - start, minlength=stop - start)
        start = stop
    docs = np.concatenate(docs_parts) if docs_parts else np.empty(0, np.int32)
    del docs_parts
    pair = np.concatenate(pair_parts) if pair_parts else np.empty(0, np.int32)
    del pair_parts
    packed = np.fromiter(codes_of, dtype=np.int64, count=len(codes_of))  # in code order
    pair_base = (packed >> 32).astype(np.float64)
    pair_last = packed & 0xFFFFFFFF
    ptr = np.zeros(len(terms) + 1, dtype=np.int64)
    np.cumsum(per_term, out=ptr[1:])

    slugs: list[str | None] = [None] * n_docs
    for rowid, slug in con.execute("SELECT id, slug FROM fts_docs").fetchall():
        i = int(np.searchsorted(rowids, rowid))
        if i < n_docs and rowids[i] == rowid:
            slugs[i] = slug
    named = sorted((s, i) for i, s in enumerate(slugs) if s is not None)
    rank = np.full(n_docs, -1, dtype=np.int32)
    for r, (_, i) in enumerate(named):
        rank[i] = r
    scope = np.full(n_docs, -1, dtype=np.int32)
    kind = np.full(n_docs, -1, dtype=np.int32)
    codes: dict[str, int] = {}
    kinds: dict[str, int] = {}
    for rowid, scope_hash, mtype in con.execute(
        "SELECT d.id, m.scope_hash, m.type FROM fts_docs d JOIN memories m ON m.slug = d.slug"
    ).fetchall():
        i = int(np.searchsorted(rowids, rowid))
        if i < n_docs and rowids[i] == rowid:
            scope[i] = codes.setdefault(scope_hash, len(codes))
            kind[i] = kinds.setdefault(mtype, len(kinds))
    return _Postings(
        stamp=stamp,
        rows=rows,
        avgdl=avgdl,
        terms=terms,
        term_ids={t: i for i, t in enumerate(terms)},
        ptr=ptr,
        docs=docs,
        pair=pair,
        pair_base=pair_base,
        pair_last=pair_last,
        pair_freq=accumulate(pair_base, pair_last, weights[-1]),
        norm=norm,
        slugs=slugs,
        rank=rank,
        scope=scope,
        scope_codes=codes,
        kind=kind,
        kind_codes=kinds,
        build_s=time.perf_counter() - t0,
    )
