"""Vectors for hybrid search, kept as derived data in index.db (migration 017).

`vector_refs` says which texts a memory has (level 1: its windows, level 2: its turns, as
memoryd.embed.texts cuts them), each by fingerprint; `vectors` holds one embedding per
distinct text per model. So unchanged text is never embedded twice, a model change
re-embeds only what the new model lacks, and refs are cheap to rewrite on every index.
Refs are written with the memory's rows (Store._index); vectors are filled later by
`embed_missing` (the capture worker, `record`, `reindex`), in committed batches, so a kill
loses at most one batch.

A sensitive scope's refs carry a fingerprint keyed from the scope key and its vectors are
sealed with that key (AES-GCM, sealed=1): an embedding can be inverted to text, so none
derived from a sensitive scope lies on disk in the clear. Without the key nothing is
embedded. `similar` never reads sealed rows; `similar_sealed` does, under a grant.

Stdlib sqlite3 and numpy only: the fast read path uses this module without SQLAlchemy.
`PRAGMA user_version` of index.db counts changes to these two tables (nothing else uses
it), so the in-process matrix cache knows when to reload with one header read.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from memoryd import faults, pooling
from memoryd.lazynp import np

if TYPE_CHECKING:
    from memoryd.embed import Embedder

log = logging.getLogger(__name__)

MEMORY = 1  # level 1: a memory's windows
TURN = 2  # level 2: one turn each
BUSY_TIMEOUT_S = 60.0
_HMAC_LABEL = b"memoryd vector v1\0"
# Texts a search embeds before it answers (see Memoryd._embed_pending): about a second of
# the default model on a 2-core machine. Here, not in memoryd.app, for the CLI's read path.
INLINE_EMBED = 200
_INSERT = "INSERT OR IGNORE INTO vectors (fingerprint, model, dim, sealed, data) VALUES (?, ?, ?, ?, ?)"
# A batch replaces what it embedded: a row it picked may be there but unusable (wrong
# length). DELETE then INSERT, not INSERT OR REPLACE, whose delete fires no trigger and
# would leave migration 018's counts off by one.
_UNSET = "DELETE FROM vectors WHERE fingerprint = ? AND model = ?"
_SET = "INSERT INTO vectors (fingerprint, model, dim, sealed, data) VALUES (?, ?, ?, ?, ?)"


def fingerprint(text: str, key: bytes | None = None) -> str:
    """sha256 of the text; in a sensitive scope an HMAC keyed from the scope key, so the
    index holds nothing that can be matched against a guessed text without the key."""
    data = text.encode("utf-8")
    if key is None:
        return hashlib.sha256(data).hexdigest()
    return "k:" + hmac.new(key, _HMAC_LABEL + data, hashlib.sha256).hexdigest()


def texts_of(title: str, body: str, turns: Iterable[tuple[int, str, str]]) -> list[tuple[int, int, str]]:
    """(level, part, text) for one memory: level-1 windows (title with the body's start,
    then windows over body and user turns), level-2 one text per turn (seq, role, text)."""
    from memoryd.embed.texts import memory_texts, turn_text

    turns = list(turns)
    users = [text for _, role, text in turns if role == "user"]
    out = [(MEMORY, i, t) for i, t in enumerate(memory_texts(title, body, users))]
    seen: set[int] = set()
    for seq, _role, text in turns:
        t = turn_text(text)
        if t and seq not in seen:
            seen.add(seq)
            out.append((TURN, seq, t))
    return out


# Reads end with fetchall(): a SELECT stepped only part-way stays open in sqlite3 and
# holds its WAL snapshot, so the connection would go on seeing old data.


# -- writes in the caller's transaction ---------------------------------------------------
def bump(con: sqlite3.Connection) -> None:
    """Tell every process's matrix cache that vectors or refs changed (in the caller's
    transaction, so a rolled-back change bumps nothing)."""
    n = int(con.execute("PRAGMA user_version").fetchall()[0][0])
    con.execute(f"PRAGMA user_version = {(n + 1) % 2_000_000_000}")


def write_refs(
    con: sqlite3.Connection,
    slug: str,
    items: Sequence[tuple[int, int, str]],
    key: bytes | None,
    *,
    moved: bool = False,
) -> None:
    """Replace one memory's refs, inside the caller's transaction; nothing is written when
    they are already as given (a re-save of the same text), unless the memory `moved`
    (another scope or type: caches that filter on those must reload)."""
    want = sorted({(level, part): fingerprint(text, key) for level, part, text in items}.items())
    have = sorted(
        ((r[0], r[1]), r[2])
        for r in con.execute("SELECT level, part, fingerprint FROM vector_refs WHERE slug = ?", (slug,))
    )
    if want == have:
        if moved:
            bump(con)
        return
    con.execute("DELETE FROM vector_refs WHERE slug = ?", (slug,))
    con.executemany(
        "INSERT INTO vector_refs (slug, level, part, fingerprint) VALUES (?, ?, ?, ?)",
        [(slug, lp[0], lp[1], fp) for lp, fp in want],
    )
    _drop_orphans(con, {fp for _, fp in have} - {fp for _, fp in want})
    bump(con)


def drop_refs(con: sqlite3.Connection, slugs: Iterable[str]) -> None:
    """A memory's refs go with its rows, and the vectors no other memory shares with them
    (a forgotten text's vector, and its plain sha256, should not wait for `gc`)."""
    slugs = list(slugs)
    if not slugs:
        return
    gone: set[str] = set()
    for s in slugs:
        gone |= {
            r[0] for r in con.execute("SELECT fingerprint FROM vector_refs WHERE slug = ?", (s,)).fetchall()
        }
    con.executemany("DELETE FROM vector_refs WHERE slug = ?", [(s,) for s in slugs])
    _drop_orphans(con, gone)
    bump(con)


def _drop_orphans(con: sqlite3.Connection, fps: set[str]) -> None:
    """Vectors of `fps` that no ref uses any more, in the caller's transaction."""
    con.executemany(
        "DELETE FROM vectors WHERE fingerprint = ? AND NOT EXISTS "
        "(SELECT 1 FROM vector_refs WHERE fingerprint = ?)",
        [(fp, fp) for fp in fps],
    )


def drop_clear_refs(con: sqlite3.Connection, slugs: Iterable[str]) -> None:
    """Refs under plain fingerprints (a scope being marked sensitive: those already keyed
    by an interrupted run stay)."""
    con.executemany(
        "DELETE FROM vector_refs WHERE slug = ? AND fingerprint NOT LIKE 'k:%'", [(s,) for s in slugs]
    )
    bump(con)


def clear_refs(con: sqlite3.Connection, keep_scopes: Sequence[str] = ()) -> None:
    """Every ref except those of `keep_scopes` (sensitive scopes whose key is not at hand,
    whose rows reindex keeps). Vectors stay: a rebuild finds its texts embedded already."""
    marks = ",".join("?" * len(keep_scopes))
    keep = f"SELECT slug FROM memories WHERE scope_hash IN ({marks})" if keep_scopes else "SELECT NULL"
    con.execute(f"DELETE FROM vector_refs WHERE slug NOT IN ({keep})", tuple(keep_scopes))
    bump(con)


def gc(con: sqlite3.Connection, keep_model: str | None = None) -> int:
    """Drop vectors no memory refers to (and, with `keep_model`, those of other models).
    Returns the rows removed. Run after bulk changes, not on every write."""
    n = con.execute(
        "DELETE FROM vectors WHERE fingerprint NOT IN (SELECT fingerprint FROM vector_refs)"
    ).rowcount
    if keep_model is not None:
        n += con.execute("DELETE FROM vectors WHERE model != ?", (keep_model,)).rowcount
    if n:
        bump(con)
    return n


def unreferenced(
    con: sqlite3.Connection, skip_scopes: Sequence[str] = (), limit: int = -1, after: str = ""
) -> list[str]:
    """Memories without any ref (indexed before vectors existed, or with no text), in slug
    order from after `after`."""
    marks = ",".join("?" * len(skip_scopes))
    skip = f" AND m.scope_hash NOT IN ({marks})" if skip_scopes else ""
    rows = con.execute(
        "SELECT m.slug FROM memories m WHERE m.slug > ? AND NOT EXISTS "
        "(SELECT 1 FROM vector_refs r WHERE r.slug = m.slug)" + skip + " ORDER BY m.slug LIMIT ?",
        (after, *skip_scopes, limit),
    ).fetchall()
    return [r[0] for r in rows]


def has_refs(con: sqlite3.Connection, slug: str) -> bool:
    return con.execute("SELECT 1 FROM vector_refs WHERE slug = ? LIMIT 1", (slug,)).fetchall() != []


def carry(
    con: sqlite3.Connection,
    items: Sequence[tuple[int, int, str]],
    src: tuple[str, bytes | None],
    dst: tuple[str, bytes | None],
) -> int:
    """Copy a memory's vectors from one protection to another, (scope, key or None) each:
    sealed when a scope is marked sensitive, opened when it is unmarked, re-sealed when its
    key rotates; the texts need no new embedding. The source rows stay for `gc`. Returns
    the rows written."""
    (src_scope, src_key), (dst_scope, dst_key) = src, dst
    written = 0
    for text in dict.fromkeys(t for _, _, t in items):
        old_fp, new_fp = fingerprint(text, src_key), fingerprint(text, dst_key)
        rows = con.execute(
            "SELECT model, dim, data FROM vectors WHERE fingerprint = ? AND sealed = ?",
            (old_fp, 0 if src_key is None else 1),
        ).fetchall()
        for model, dim, data in rows:
            try:
                plain = data if src_key is None else open_sealed(src_key, src_scope, old_fp, model, data)
            except Exception:  # damaged or not this key's: embedded anew when missing
                continue
            out = plain if dst_key is None else seal(dst_key, dst_scope, new_fp, model, plain)
            written += con.execute(
                _INSERT,
                (new_fp, model, dim, 0 if dst_key is None else 1, out),
            ).rowcount
    if written:
        bump(con)
    return written


NORM_TOLERANCE = 0.05  # float16 storage and model rounding stay far inside it


def valid(vec: np.ndarray, dim: int) -> bool:
    """A vector worth storing or scoring: shape (dim,), finite, unit length (cosine is a
    dot product here; a NaN or a scaled row would rank nonsense first or last)."""
    v = np.asarray(vec, dtype=np.float32)
    if v.shape != (dim,) or not np.all(np.isfinite(v)):
        return False
    return abs(float(np.linalg.norm(v)) - 1.0) <= NORM_TOLERANCE


def _blob_valid(data: bytes, dim: int) -> bool:
    if len(data) != dim * 2:
        return False
    return valid(np.frombuffer(data, dtype="<f2").astype(np.float32), dim)


def _still_wanted(con: sqlite3.Connection, rows: list[tuple[str, str, int, int, bytes]]) -> list[Any]:
    """The rows of a batch to insert, checked in the write transaction: texts were read
    before it, and meanwhile a memory may have been forgotten or its scope marked
    sensitive (which drops its plain refs). Only fingerprints still referred to, and a
    clear row only when a memory outside every sensitive scope refers to it."""
    fps = list({r[0] for r in rows})
    live: set[str] = set()
    clear_ok: set[str] = set()
    for i in range(0, len(fps), 500):
        chunk = fps[i : i + 500]
        marks = ",".join("?" * len(chunk))
        live |= {
            r[0]
            for r in con.execute(
                f"SELECT DISTINCT fingerprint FROM vector_refs WHERE fingerprint IN ({marks})", chunk
            ).fetchall()
        }
        clear_ok |= {
            r[0]
            for r in con.execute(
                "SELECT DISTINCT r.fingerprint FROM vector_refs r JOIN memories m ON m.slug = r.slug "
                f"WHERE r.fingerprint IN ({marks}) AND m.scope_sensitive = 0 AND m.scope_hash NOT IN "
                "(SELECT scope_hash FROM sensitive_scopes)",
                chunk,
            ).fetchall()
        }
    return [r for r in rows if r[0] in live and (r[3] == 1 or r[0] in clear_ok)]


# -- sealing ------------------------------------------------------------------------------
def _aad_kind(model: str) -> str:
    return f"vector:{model}"


def seal(key: bytes, scope_hash: str, fp: str, model: str, data: bytes) -> bytes:
    from memoryd import crypto

    return crypto.seal(key, data, scope_hash=scope_hash, slug=fp, kind=_aad_kind(model))


def open_sealed(key: bytes, scope_hash: str, fp: str, model: str, data: bytes) -> bytes:
    from memoryd import crypto

    return crypto.open_sealed(key, data, scope_hash=scope_hash, slug=fp, kind=_aad_kind(model))


def to_blob(vec: np.ndarray) -> bytes:
    return np.asarray(vec, dtype="<f2").tobytes()


def _checked(rows: Sequence[tuple[str, int, bytes]], dim: int) -> tuple[list[str], np.ndarray]:
    """The (fingerprint, dim, data) rows `valid` accepts, as float32 rows; checked at once
    (one row at a time took half of a first load)."""
    ok = [(fp, data) for fp, d, data in rows if d == dim and len(data) == dim * 2]
    vecs = from_blobs([data for _, data in ok], dim)
    # float16 values square well inside float32: the sum is not finite only for NaN or inf
    with np.errstate(invalid="ignore"):
        squares = np.einsum("ij,ij->i", vecs, vecs)
        good = np.isfinite(squares) & (np.abs(np.sqrt(squares) - 1.0) <= NORM_TOLERANCE)
    if good.all():
        return [fp for fp, _ in ok], vecs
    return [fp for (fp, _), g in zip(ok, good, strict=True) if g], vecs[good]


def from_blobs(blobs: Sequence[bytes], dim: int) -> np.ndarray:
    if not blobs:
        return np.zeros((0, dim), dtype=np.float32)
    return np.frombuffer(b"".join(blobs), dtype="<f2").reshape(len(blobs), dim).astype(np.float32)


# -- what embed_missing needs of the store ---------------------------------------------------
@dataclass
class Texts:
    """A memory's texts as its refs were written: `key` is the scope key of a sensitive
    scope (vectors are sealed with it), None for a plain one."""

    scope_hash: str
    key: bytes | None
    items: list[tuple[int, int, str]]


class Source(Protocol):
    def vector_texts(self, slug: str) -> Texts | None:
        """None when the memory cannot be read here (gone, damaged, key not at hand)."""
        ...

    def writing(self) -> AbstractContextManager[None]: ...


# -- the matrix cache -------------------------------------------------------------------------
# A pool of more rows than this keeps a projection for a two-stage scan (`_Projection`).
# Below it one exact product over every row costs a few ms and nothing changes; above it
# the full product reads 2 KB a row (330 MB at 100k memories) on every query.
PROJECT_ABOVE = 25_000
# At most this many refs asked for are scored in full on their own rows, whatever the pool
# (a gather of 2 KB a row): cheaper than a first stage over a big pool up to about 10k refs
# (a 5,000-ref scope in a 200k pool: 2.6 ms against 13.8 ms; 25,000 refs: 21 ms against 7-12).
OWN_ROWS = 8_192
PROJECT_DIM = 128  # leading components kept: 89% of the variance of the default model
FIT_SAMPLE = 20_000  # rows the covariance is estimated from
FIT_SEED = 0
# Candidates rescored exactly per scope range (level 1: memories, every window of each;
# level 2: turns): at least this many, and RESCORE_PER per result wanted (with a states
# filter _top wants 3 x limit + 10).
RESCORE_MIN = 1000
RESCORE_PER = 10
WIDEN = 3  # level 1: refs read per memory rescored, whose windows pool into its first-stage rank
_CHUNK = 16_384  # rows projected at once (bounds the temporary copy)


def _one_blas_thread() -> AbstractContextManager[Any]:
    """OpenBLAS limited to one thread (threadpoolctl, as for the query embedding): eigh of
    a 512 x 512 covariance makes hundreds of small BLAS calls, and with two spinning
    threads on a busy 2-core machine took 1.4-9.8 s against 0.12 s on one."""
    try:
        from threadpoolctl import threadpool_limits

        return threadpool_limits(limits=1, user_api="blas")
    except Exception:  # not installed or no BLAS found: the fit is only slower
        return nullcontext()


@dataclass(frozen=True)
class _Projection:
    """A pool's rows, centred and projected on the leading principal components.

    x . q = mean . q + (x - mean) . q, and the second term is nearly (B'(x - mean)) . (B'q)
    for the basis B of the top components; mean . q is the same for every row, so rows
    rank by `rows @ (B'q)`. That ranking picks the candidates, the full rows score them.

    The fit is deterministic (a fixed-seed sample of the rows, `eigh` of its covariance),
    so two processes over the same pool rank alike. Rows added later are projected on the
    basis as it is: any basis gives a correct score after the exact rescoring, a stale one
    only picks candidates a little worse. The pool refits when it has doubled since the
    fit, so at least half its rows were in the population the basis was fitted on, and the
    refit work (one fit and one projection of every row) stays proportional to the rows
    added, like the growth of the arrays themselves."""

    mean: np.ndarray  # (dim,)
    basis: np.ndarray  # (dim, k)
    rows: np.ndarray  # (capacity, k); the first pool.n are valid
    fit_n: int  # pool rows when fitted

    @staticmethod
    def fit(data: np.ndarray, capacity: int) -> _Projection:
        n, dim = data.shape
        k = min(PROJECT_DIM, dim)
        if n > FIT_SAMPLE:
            pick = np.sort(np.random.default_rng(FIT_SEED).choice(n, FIT_SAMPLE, replace=False))
            sample = data[pick]
        else:
            sample = data.copy()
        mean = sample.mean(axis=0, dtype=np.float64).astype(np.float32)
        sample -= mean
        cov = (sample.T @ sample).astype(np.float64)
        with _one_blas_thread():
            _, vecs = np.linalg.eigh(cov)  # ascending eigenvalues
        basis = np.ascontiguousarray(vecs[:, ::-1][:, :k], dtype=np.float32)
        out = _Projection(mean, basis, np.zeros((capacity, k), dtype=np.float32), n)
        out.put(0, data)
        return out

    def put(self, at: int, data: np.ndarray) -> None:
        for i in range(0, len(data), _CHUNK):
            chunk = data[i : i + _CHUNK]
            self.rows[at + i : at + i + len(chunk)] = (chunk - self.mean) @ self.basis

    def grown(self, capacity: int, n: int) -> _Projection:
        rows = np.zeros((capacity, self.rows.shape[1]), dtype=np.float32)
        rows[:n] = self.rows[:n]
        return _Projection(self.mean, self.basis, rows, self.fit_n)


@dataclass
class _Pool:
    """The unsealed vectors of one (db, model, level) as float32 rows, by fingerprint. Kept
    across reloads, so a write costs reading its new vectors, not all of them again. A
    small pool is scored whole (one matrix-vector product); a big one (more than
    PROJECT_ABOVE rows) also keeps a `_Projection`, so `similar` scans 128 floats a row
    and rescores only the best rows in full.

    Queries read a pool while a loader may add to it: rows are written before `n` grows,
    and the projection is replaced whole, never changed under a reader's `n`."""

    dim: int
    index: dict[str, int] = field(default_factory=dict)
    data: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    n: int = 0
    projection: _Projection | None = None

    def add(self, fps: Sequence[str], vecs: np.ndarray) -> None:
        """Append rows (float32, already checked)."""
        if not fps:
            return
        need = self.n + len(fps)
        proj = self.projection
        if self.n == 0 and proj is None:  # a first load keeps the array it read (330 MB at 100k)
            self.data = np.ascontiguousarray(vecs, dtype=np.float32)
        elif need > len(self.data):
            grown = np.zeros((max(need, 2 * len(self.data), 1024), self.dim), dtype=np.float32)
            grown[: self.n] = self.data[: self.n]
            grown[self.n : need] = vecs
            if proj is not None:
                proj = proj.grown(len(grown), self.n)
            self.data = grown
        else:
            self.data[self.n : need] = vecs
        if proj is not None:
            proj.put(self.n, self.data[self.n : need])
            self.projection = proj
        for i, fp in enumerate(fps):
            self.index[fp] = self.n + i
        self.n = need

    def project(self) -> None:
        """Keep a projection exactly when the pool is big: fit it when the pool crosses
        PROJECT_ABOVE, refit when the pool has doubled since the fit (see _Projection)."""
        if self.n <= PROJECT_ABOVE:
            self.projection = None
        elif self.projection is None or self.n > 2 * self.projection.fit_n:
            self.projection = _Projection.fit(self.data[: self.n], len(self.data))

    def kept(self, live: set[str]) -> _Pool:
        """Only `live` texts: a copy once dead rows are half the pool; until then the dead
        rows are zeroed where they lie and forgotten. A text that left (deleted, edited, or
        of a scope marked sensitive since: its vectors on disk are gone) must not stay in a
        long-lived process's memory, where a dump could invert it."""
        if self.n <= 2 * len(live) + 1024:
            dead = [self.index.pop(fp) for fp in [fp for fp in self.index if fp not in live]]
            if dead:
                self.data[dead] = 0.0
                if self.projection is not None:
                    self.projection.rows[dead] = 0.0
            return self
        fps = [fp for fp in self.index if fp in live]
        rows = [self.index[fp] for fp in fps]
        out = _Pool(self.dim)
        out.data = self.data[rows].copy()
        out.index = {fp: i for i, fp in enumerate(fps)}
        out.n = len(fps)
        p = self.projection
        if p is not None:
            out.projection = _Projection(p.mean, p.basis, p.rows[rows].copy(), p.fit_n)
        return out

    def scores(self, q: np.ndarray) -> np.ndarray:
        if not self.n:
            return np.zeros(0, dtype=np.float32)
        return self.data[: self.n] @ q

    def approx(self, q: np.ndarray) -> np.ndarray | None:
        """First-stage scores of every row (None without a projection): they rank rows
        nearly as `scores` does, up to a constant, at a quarter of the reading."""
        n, p = self.n, self.projection
        if p is None:
            return None
        return p.rows[:n] @ (q @ p.basis)

    def exact(self, rows: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Full scores of some rows. einsum, not BLAS: for a few thousand rows the threads
        BLAS wakes cost more than the product (ms on a busy 2-core machine)."""
        return np.einsum("ij,j->i", self.data[rows], q)


@dataclass
class _Matrix:
    """One (db, model, level)'s unsealed refs, ordered by scope, slug, part, each pointing
    at its vector's row in the pool."""

    stamp: tuple[Any, ...]
    pool: _Pool
    rows: np.ndarray  # per ref: its row in pool
    slugs: list[str]  # per ref
    parts: np.ndarray  # per ref
    types: np.ndarray  # per ref, type code
    type_codes: dict[str, int]
    scopes: dict[str, tuple[int, int]]  # scope -> ref range
    starts: np.ndarray  # level 1: the ref where each memory's windows start
    ends: np.ndarray  # level 1: where they end (the next start)
    memory: np.ndarray  # per ref: its memory, as an index into starts


_cache: dict[tuple[str, str, int], _Matrix] = {}
Hit = tuple[str, int, float, float]  # slug, part, score, best cosine
# Subtracted from the rank of a memory under the floor: pooled scores lie within
# [-1, 1 + T log 64] (memoryd.pooling), so this puts it after every memory over the floor.
_UNDER_FLOOR = 4.0
_cache_lock = threading.RLock()
_FETCH = 500  # vectors read per statement when the pool grows
# One statement, so one snapshot and one step for the check every query makes.
_STAMP = (
    "SELECT (SELECT user_version FROM pragma_user_version), "
    "(SELECT max(rowid) FROM vector_refs), (SELECT max(rowid) FROM vectors)"
)


def _group_max(values: np.ndarray, offs: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per group of `values` (consecutive runs: starts `offs`, lengths `lens`, none empty)
    its maximum and the index of its first maximum, as np.argmax picks it (a NaN counts
    as the maximum, first NaN first)."""
    best = np.maximum.reduceat(values, offs)
    hit = (values == np.repeat(best, lens)) | np.isnan(values)
    group = np.repeat(np.arange(len(offs)), lens)[hit]
    first = np.flatnonzero(hit)[np.searchsorted(group, np.arange(len(offs)))]
    return best, first


def _spans(starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """The indices of consecutive runs (starts[i], lens[i] long), concatenated."""
    offs = np.cumsum(lens) - lens
    return np.repeat(starts - offs, lens) + np.arange(int(lens.sum()))


def _run_starts(values: np.ndarray) -> np.ndarray:
    """Where each run of equal values begins (the groups of a sorted array)."""
    return np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))


class Vectors:
    """Reached as `store.vectors`; a read-only user may make one from the index path."""

    def __init__(self, db: Path, source: Source | None = None) -> None:
        self.db = Path(db)
        self.source = source
        self._con: sqlite3.Connection | None = None
        self._lock = threading.RLock()
        self._default: tuple[tuple[Any, ...], str | None] | None = None

    # -- connection --------------------------------------------------------------------
    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self._con is None:
                con = sqlite3.connect(
                    self.db, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
                )
                con.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
                # Deleted vectors (gc after a mark) are zeroed, not left in free pages.
                con.execute("PRAGMA secure_delete = ON")
                self._con = con
            yield self._con

    def close(self) -> None:
        with self._lock:
            if self._con is not None:
                self._con.close()
                self._con = None

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        lock = self.source.writing() if self.source is not None else nullcontext()
        with lock, self._connection() as con:
            con.execute("BEGIN IMMEDIATE")
            try:
                yield con
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise

    # -- counts --------------------------------------------------------------------------
    def missing(self, model_tag: str, *, skip_scopes: Sequence[str] = ()) -> int:
        """Distinct texts referred to that have no usable vector of this model
        (`skip_scopes`: sensitive scopes whose key is not at hand, which cannot be embedded
        here). Without `skip_scopes`, from the counts migration 018's triggers keep (two
        rows, for every search that loads the model); with them, counted by `missing_join`."""
        if skip_scopes:
            return self.missing_join(model_tag, skip_scopes=skip_scopes)
        with self._connection() as con:
            row = con.execute(
                "SELECT (SELECT n FROM vector_texts WHERE id = 1) - "
                "coalesce((SELECT n FROM vector_have WHERE model = ?), 0)",
                (model_tag,),
            ).fetchall()[0]
        return int(row[0])

    def missing_join(self, model_tag: str, *, skip_scopes: Sequence[str] = ()) -> int:
        """`missing` counted over every ref (a join: 90 ms at 10k memories, 3.3 s at 100k)."""
        where, params = self._skip(skip_scopes)
        with self._connection() as con:
            row = con.execute(
                "SELECT count(DISTINCT r.fingerprint) FROM vector_refs r LEFT JOIN vectors v "
                "ON v.fingerprint = r.fingerprint AND v.model = ? WHERE (v.fingerprint IS NULL "
                "OR (v.sealed = 0 AND length(v.data) != v.dim * 2))" + where,
                (model_tag, *params),
            ).fetchall()[0]
        return int(row[0])

    def invalid(self, model_tag: str, *, drop: bool = False) -> int:
        """Clear rows of this model that cannot be scored (wrong length, NaN or inf, not
        unit length: a damaged or hand-edited file). `drop`: delete them, so they count as
        missing and the next embedding run replaces them. Reads every clear row: for
        doctor and reindex, not for every search."""
        bad: list[tuple[str]] = []
        with self._connection() as con:
            rows = con.execute(
                "SELECT fingerprint, dim, data FROM vectors WHERE model = ? AND sealed = 0", (model_tag,)
            ).fetchall()
            bad = [(fp,) for fp, dim, data in rows if not _blob_valid(data, int(dim))]
        if drop and bad:
            with self._write() as con:
                con.executemany(
                    "DELETE FROM vectors WHERE fingerprint = ? AND model = ? AND sealed = 0",
                    [(fp, model_tag) for (fp,) in bad],
                )
                bump(con)
        return len(bad)

    def stale(self, model_tag: str) -> int:
        """Vectors of another model, or of no memory any more (removed by `gc`)."""
        with self._connection() as con:
            row = con.execute(
                "SELECT count(*) FROM vectors WHERE model != ? OR fingerprint NOT IN "
                "(SELECT fingerprint FROM vector_refs)",
                (model_tag,),
            ).fetchall()[0]
        return int(row[0])

    def counts(self) -> dict[str, int]:
        with self._connection() as con:
            refs, vecs, sealed, size = con.execute(
                "SELECT (SELECT count(*) FROM vector_refs), count(*), coalesce(sum(sealed), 0), "
                "coalesce(sum(length(data)), 0) FROM vectors"
            ).fetchall()[0]
        return {"refs": int(refs), "vectors": int(vecs), "sealed": int(sealed), "bytes": int(size)}

    @staticmethod
    def _skip(skip_scopes: Sequence[str]) -> tuple[str, tuple[str, ...]]:
        if not skip_scopes:
            return "", ()
        marks = ",".join("?" * len(skip_scopes))
        return (
            f" AND r.slug NOT IN (SELECT slug FROM memories WHERE scope_hash IN ({marks}))",
            tuple(skip_scopes),
        )

    # -- embedding ---------------------------------------------------------------------------
    def embed_missing(
        self,
        embedder: Embedder,
        *,
        batch: int = 64,
        progress: Callable[[int, int], None] | None = None,
        slugs: Sequence[str] | None = None,
        skip_scopes: Sequence[str] = (),
    ) -> int:
        """Embed every referred text this model has no vector for (only those of `slugs`
        when given), `batch` texts per committed transaction: a kill loses at most one
        batch and a rerun does only what is left. `progress(done, total)` after each batch
        (it may raise to stop; what was committed stays). Returns the texts embedded."""
        from memoryd.embed import tag

        if self.source is None:
            raise RuntimeError("embed_missing needs a store to read the texts from")
        model = tag(embedder)
        where, params = self._skip(skip_scopes)
        if slugs is not None:
            if not slugs:
                return 0
            where += f" AND r.slug IN ({','.join('?' * len(slugs))})"
            params = (*params, *slugs)
        with self._connection() as con:
            rows = con.execute(
                "SELECT r.slug, r.fingerprint FROM vector_refs r LEFT JOIN vectors v "
                "ON v.fingerprint = r.fingerprint AND v.model = ? WHERE (v.fingerprint IS NULL "
                "OR (v.sealed = 0 AND length(v.data) != v.dim * 2))" + where + " ORDER BY r.slug",
                (model, *params),
            ).fetchall()
        need: dict[str, set[str]] = {}
        for slug, fp in rows:
            need.setdefault(slug, set()).add(fp)
        total = len({fp for _, fp in rows})
        pending: dict[str, tuple[str, str, bytes | None]] = {}  # fp -> (text, scope, key)
        done = 0

        def flush(items: list[tuple[str, tuple[str, str, bytes | None]]]) -> None:
            nonlocal done
            vecs = embedder.embed_documents([text for _, (text, _, _) in items])
            out = []
            bad = 0
            for (fp, (_, scope, key)), vec in zip(items, vecs, strict=True):
                if not valid(vec, embedder.dim):
                    bad += 1
                    continue
                blob = to_blob(vec)
                if key is not None:
                    out.append((fp, model, embedder.dim, 1, seal(key, scope, fp, model, blob)))
                else:
                    out.append((fp, model, embedder.dim, 0, blob))
            if bad:
                log.warning(
                    "%s returned %d invalid vectors of %d (not (%d,), not finite or not unit length): "
                    "not stored, keyword search covers those texts",
                    model,
                    bad,
                    len(items),
                    embedder.dim,
                )
            faults.pause("vectors:flush")
            with self._write() as con:
                out = _still_wanted(con, out)
                if out:
                    con.executemany(_UNSET, [(r[0], r[1]) for r in out])
                    con.executemany(_SET, out)
                    bump(con)
            done += len(items)
            faults.point("vectors:batch")
            faults.pause("vectors:batch")
            if progress is not None:
                progress(done, total)

        seen: set[str] = set()
        for slug, fps in need.items():
            texts = self.source.vector_texts(slug)
            if texts is None:
                continue
            for _level, _part, text in texts.items:
                fp = fingerprint(text, texts.key)
                if fp in fps and fp not in seen:
                    seen.add(fp)
                    pending[fp] = (text, texts.scope_hash, texts.key)
            while len(pending) >= batch:
                chunk = list(pending.items())[:batch]
                for fp, _ in chunk:
                    del pending[fp]
                flush(chunk)
        if pending:
            flush(list(pending.items()))
        return done

    def gc(self, keep_model: str | None = None) -> int:
        with self._write() as con:
            return gc(con, keep_model)

    # -- similarity ----------------------------------------------------------------------------
    def similar(
        self,
        qvec: np.ndarray,
        *,
        scopes: Sequence[str] | None,
        level: int,
        limit: int,
        types: Sequence[str] | None = None,
        states: Sequence[str] | None = None,
        model: str | None = None,
        peaks: dict[str, float] | None = None,
        floor: float | None = None,
    ) -> list[tuple[str, int, float]]:
        """(slug, part, score), best first, over unsealed vectors of `model` (default: the
        model most vectors have). Level 2: the score is the turn's cosine. Level 1: one row
        per memory, its best window as the part and its windows' pooled score
        (memoryd.pooling); `peaks`, when given, gets each returned memory's best cosine.
        Given a `floor`, memories whose best cosine reaches it come before those that do
        not: long memories just under it, lifted by pooling, must not crowd out of `limit`
        a short one over it (the caller drops what is under it).
        Memories of sensitive scopes never appear. `scopes` None: every scope.

        More than OWN_ROWS refs asked for in a big pool are scanned in two stages
        (`_two_stage`); when its candidates cannot fill `limit` (a states filter dropped most
        of them) the exact scan answers. Fewer are scored exactly, on their own rows: a
        project's memories in a home of many projects cost what they are, not the home."""
        if limit <= 0:
            return []
        m = self._matrix(model, level)
        if m is None or not len(m.slugs):
            return []
        q = np.asarray(qvec, dtype=np.float32).reshape(-1)
        if q.shape[0] != m.pool.dim:
            return []
        ranges = list(m.scopes.values()) if scopes is None else [m.scopes[s] for s in scopes if s in m.scopes]
        if not ranges:
            return []
        ok = None  # per type code: wanted
        if types is not None:
            ok = np.zeros(len(m.type_codes), dtype=bool)
            ok[[m.type_codes[t] for t in types if t in m.type_codes]] = True
        asked = sum(b - a for a, b in ranges)
        approx = m.pool.approx(q) if asked > OWN_ROWS else None
        if approx is not None:
            want = limit if states is None else limit * 3 + 10
            rows, scores, peak, best, complete = self._two_stage(
                m, q, approx, ranges, ok, level, max(RESCORE_MIN, RESCORE_PER * want)
            )
            got = self._top(m, rows, scores, peak, level, limit, states, complete, best=best, floor=floor)
            if got is not None:
                return _peaks(got, peaks)
        # Every ref asked for, scored exactly: on their own rows when they are few or a small
        # part of the pool (a project's few thousand among a home's 200k), else one product
        # over the pool. Scopes are taken together: one gather, one pooling, however many.
        refs = _spans(
            np.fromiter((a for a, _ in ranges), dtype=np.int64, count=len(ranges)),
            np.fromiter((b - a for a, b in ranges), dtype=np.int64, count=len(ranges)),
        )
        if not len(refs):
            return []
        if asked > OWN_ROWS and asked * 4 > m.pool.n:
            scores = m.pool.scores(q)[m.rows[refs]]
        else:
            scores = m.pool.exact(m.rows[refs], q)
        if ok is not None:
            scores = np.where(ok[m.types[refs]], scores, -np.inf)
        best = None
        if level == MEMORY:
            mem = m.memory[refs]  # a scope's refs are whole memories, in order
            first = _run_starts(mem)
            soft, _ = pooling.pooled(scores, first)
            peak, where = _group_max(scores, first, np.diff(np.append(first, len(refs))))
            rows, scores, best = refs[first], soft, refs[where]
        else:
            rows, peak = refs, scores
        keep = np.isfinite(scores)
        got = self._top(
            m,
            rows[keep],
            scores[keep],
            peak[keep],
            level,
            limit,
            states,
            True,
            best=None if best is None else best[keep],
            floor=floor,
        )
        return _peaks(got or [], peaks)

    @staticmethod
    def _two_stage(
        m: _Matrix,
        q: np.ndarray,
        approx: np.ndarray,
        ranges: list[tuple[int, int]],
        ok: np.ndarray | None,
        level: int,
        r: int,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, bool]:
        """Candidates by first-stage score, scored exactly: per scope range the `r` refs
        that rank best by `approx`; at level 1 the `r` memories whose windows among the
        WIDEN x `r` best refs pool best (pooling is shift-invariant, so approx's missing
        constant does not change the order, and a window far below the cut adds next to
        nothing to its memory's pool: e^-4 at 4 T), every window of them rescored, so a
        candidate's pooled score and best window are exact. Pooling every ref instead cost
        5 ms a query at 161k refs. Returns the candidates, their scores and best cosines as
        `_top` takes them, at level 1 the ref of each one's best window, and whether they
        are every ref that passed the filters."""
        complete = True
        cand_rows: list[np.ndarray] = []
        cand_scores: list[np.ndarray] = []
        cand_peak: list[np.ndarray] = []
        cand_best: list[np.ndarray] = []
        for a, b in ranges:
            s = approx[m.rows[a:b]]
            if ok is not None:
                s = np.where(ok[m.types[a:b]], s, -np.inf)
            n, wide = b - a, r * WIDEN if level == MEMORY else r
            top = np.argpartition(-s, wide - 1)[:wide] if n > wide else np.arange(n)
            finite = np.isfinite(s[top])
            if n > wide and finite.all():  # else every ref the filter keeps is in
                complete = False
            top = np.sort(top[finite])
            if not len(top):
                continue
            if level == MEMORY:
                mem = m.memory[a + top]  # sorted: refs are
                first = _run_starts(mem)
                groups = mem[first]
                if len(groups) > r:
                    part, _ = pooling.pooled(s[top], first)
                    groups = groups[np.sort(np.argpartition(-part, r - 1)[:r])]
                    complete = False
                starts = m.starts[groups]
                lens = m.ends[groups] - starts
                offs = np.cumsum(lens) - lens
                refs = _spans(starts, lens)
            else:
                refs = a + top
            exact = m.pool.exact(m.rows[refs], q)
            if level == MEMORY:
                soft, _ = pooling.pooled(exact, offs)
                peak, where = _group_max(exact, offs, lens)
                cand_rows.append(starts)
                cand_scores.append(soft)
                cand_peak.append(peak)
                cand_best.append(refs[where])
            else:
                cand_rows.append(refs)
                cand_scores.append(exact)
                cand_peak.append(exact)
        if not cand_rows:
            none = np.zeros(0, dtype=np.float32)
            return np.zeros(0, dtype=np.int64), none, none, None, complete
        best_refs = np.concatenate(cand_best) if level == MEMORY else None
        rows, scores = np.concatenate(cand_rows), np.concatenate(cand_scores)
        return rows, scores, np.concatenate(cand_peak), best_refs, complete

    def _top(
        self,
        m: _Matrix,
        rows: np.ndarray,
        scores: np.ndarray,
        peak: np.ndarray,
        level: int,
        limit: int,
        states: Sequence[str] | None,
        complete: bool,
        *,
        best: np.ndarray | None = None,
        floor: float | None = None,
    ) -> list[tuple[str, int, float, float]] | None:
        """The best `limit` of the candidates as (slug, part, score, best cosine `peak`);
        None when they fall short of it and are not `complete` (the caller scans every ref
        instead). At level 1 a candidate is a memory (its first ref) and its part is its
        best window's: the ref in `best` (aligned with `rows`). Candidates whose `peak` is under
        `floor` rank after every one that reaches it (see `similar`)."""
        want = limit if states is None else limit * 3 + 10
        order = scores if floor is None else np.where(peak >= floor, scores, scores - _UNDER_FLOOR)
        while True:
            k = min(want, len(rows))
            if k == 0:
                return [] if complete else None
            idx = np.argpartition(-order, k - 1)[:k] if k < len(rows) else np.arange(len(rows))
            idx = idx[np.argsort(-order[idx], kind="stable")]
            picked = rows[idx]
            if level != MEMORY:
                at = picked
            else:
                assert best is not None
                at = best[idx]
            out = list(
                zip(
                    [m.slugs[i] for i in picked.tolist()],
                    m.parts[at].tolist(),
                    scores[idx].tolist(),
                    peak[idx].tolist(),
                    strict=True,
                )
            )
            if states is not None:
                out = self._keep_states(out, states, limit)
            if len(out) >= limit:
                return out[:limit]
            if k == len(rows):
                return out if complete else None
            want *= 4

    def _keep_states(self, picked: list[Hit], states: Sequence[str], limit: int) -> list[Hit]:
        """`picked` (best first) without memories outside `states`; asked in rank order, the
        first `limit` first: usually they all pass and the rest is never looked up."""
        alive = self._in_states({p[0] for p in picked[:limit]}, states)
        out = [p for p in picked[:limit] if p[0] in alive]
        if len(out) < limit and len(picked) > limit:
            alive = self._in_states({p[0] for p in picked[limit:]}, states)
            out += [p for p in picked[limit:] if p[0] in alive]
        return out

    def _in_states(self, slugs: set[str], states: Sequence[str]) -> set[str]:
        """Which of `slugs` are in `states`. `+decay_state` keeps SQLite on the slug key: with
        the decay_state index it walked every alive memory (24 ms at 10k, 0.6 ms without)."""
        if not slugs or not states:
            return set()
        s_list, st_list = list(slugs), list(states)
        with self._connection() as con:
            got = con.execute(
                f"SELECT slug FROM memories WHERE slug IN ({','.join('?' * len(s_list))}) "
                f"AND +decay_state IN ({','.join('?' * len(st_list))})",
                (*s_list, *st_list),
            ).fetchall()
        return {r[0] for r in got}

    def _stamp(self, con: sqlite3.Connection) -> tuple[Any, ...]:
        """Changes whenever vectors or refs do (`bump`), or the file is another one (a
        restored backup)."""
        try:
            inode = os.stat(self.db).st_ino
        except OSError:
            inode = 0
        return (inode, *con.execute(_STAMP).fetchall()[0])

    def default_model(self) -> str | None:
        """The model most unsealed vectors have (counted once per change of the tables)."""
        with self._connection() as con:
            stamp = self._stamp(con)
            if self._default is not None and self._default[0] == stamp:
                return self._default[1]
            rows = con.execute(
                "SELECT model FROM vectors WHERE sealed = 0 GROUP BY model ORDER BY count(*) DESC LIMIT 1"
            ).fetchall()
        model = str(rows[0][0]) if rows else None
        self._default = (stamp, model)
        return model

    def preload(self, model: str, level: int = 1) -> int:
        """Load the level's matrix now, so a long-lived process's first search does not pay
        for it (3-5 s at 100k memories); returns how many refs it holds."""
        m = self._matrix(model, level)
        return len(m.slugs) if m is not None else 0

    def loaded(self, model: str, level: int = 1) -> bool:
        """Whether this level's matrix is in memory and current (no load on the next search)."""
        with self._connection() as con:
            stamp = self._stamp(con)
        m = _cache.get((str(self.db.resolve()), model, level))
        return m is not None and m.stamp == stamp

    def _matrix(self, model: str | None, level: int) -> _Matrix | None:
        with self._connection() as con:
            stamp = self._stamp(con)
        if model is None:
            model = self.default_model()
            if model is None:
                return None
        key = (str(self.db.resolve()), model, level)
        with _cache_lock:  # one loader at a time: loads grow a shared pool
            old = _cache.get(key)
            if old is not None and old.stamp == stamp:
                return old
            m = self._load(model, level, stamp, old.pool if old is not None else None)
            _cache[key] = m
            return m

    def _load(self, model: str, level: int, stamp: tuple[Any, ...], pool: _Pool | None) -> _Matrix:
        """The refs, then the vectors the pool lacks (refs without one, not embedded yet, are
        left out). Keyed fingerprints (sensitive scopes) are left out with their scopes."""
        with self._connection() as con:
            refs = con.execute(
                "SELECT m.scope_hash, m.type, r.slug, r.part, r.fingerprint FROM vector_refs r "
                "JOIN memories m ON m.slug = r.slug "
                "WHERE r.level = ? AND m.scope_sensitive = 0 AND r.fingerprint NOT LIKE 'k:%' "
                "ORDER BY m.scope_hash, r.slug, r.part",
                (level,),
            ).fetchall()
            live = {r[4] for r in refs}
            new = sorted(live - set(pool.index)) if pool is not None else sorted(live)
            got: list[tuple[str, int, bytes]] = []
            for i in range(0, len(new), _FETCH):
                chunk = new[i : i + _FETCH]
                got += con.execute(
                    "SELECT fingerprint, dim, data FROM vectors WHERE model = ? AND sealed = 0 "
                    f"AND fingerprint IN ({','.join('?' * len(chunk))})",
                    (model, *chunk),
                ).fetchall()
        if pool is None or (pool.n == 0 and got):
            pool = _Pool(int(got[0][1]) if got else 0)
        pool = pool.kept(live)
        fps, vecs = _checked(got, pool.dim)
        pool.add(fps, vecs)
        pool.project()
        refs = [r for r in refs if r[4] in pool.index]
        type_codes: dict[str, int] = {}
        scopes: dict[str, tuple[int, int]] = {}
        starts: list[int] = []
        for i, (scope, mtype, slug, *_rest) in enumerate(refs):
            type_codes.setdefault(mtype, len(type_codes))
            a, _ = scopes.get(scope, (i, i))
            scopes[scope] = (a, i + 1)
            if i == 0 or refs[i - 1][2] != slug:
                starts.append(i)
        return _Matrix(
            stamp=stamp,
            pool=pool,
            rows=np.array([pool.index[r[4]] for r in refs], dtype=np.int64),
            slugs=[r[2] for r in refs],
            parts=np.array([r[3] for r in refs], dtype=np.int64),
            types=np.array([type_codes[r[1]] for r in refs], dtype=np.int64),
            type_codes=type_codes,
            scopes=scopes,
            starts=np.array(starts, dtype=np.int64),
            ends=np.array([*starts[1:], len(refs)] if starts else [], dtype=np.int64),
            memory=np.repeat(np.arange(len(starts)), np.diff([*starts, len(refs)])),
        )

    # -- sensitive scopes, under a grant ---------------------------------------------------
    def similar_sealed(
        self,
        qvec: np.ndarray,
        scope_hash: str,
        key: bytes,
        *,
        level: int,
        limit: int,
        types: Sequence[str] | None = None,
        states: Sequence[str] | None = None,
        model: str | None = None,
        peaks: dict[str, float] | None = None,
        floor: float | None = None,
    ) -> list[tuple[str, int, float]]:
        """`similar` over one sensitive scope's sealed vectors, opened with its key in
        memory for this query only (nothing opened is cached or written)."""
        if limit <= 0:
            return []
        q = np.asarray(qvec, dtype=np.float32).reshape(-1)
        where = ""
        params: list[Any] = [scope_hash, level]
        if types is not None:
            where += f" AND m.type IN ({','.join('?' * len(types))})"
            params += list(types)
        if states is not None:
            where += f" AND m.decay_state IN ({','.join('?' * len(states))})"
            params += list(states)
        if model is not None:
            where += " AND v.model = ?"
            params.append(model)
        with self._connection() as con:
            rows = con.execute(
                "SELECT r.slug, r.part, v.fingerprint, v.model, v.dim, v.data FROM vector_refs r "
                "JOIN memories m ON m.slug = r.slug JOIN vectors v ON v.fingerprint = r.fingerprint "
                "WHERE m.scope_hash = ? AND r.level = ? AND v.sealed = 1" + where,
                params,
            ).fetchall()
        found: dict[tuple[str, int], list[tuple[float, int]]] = {}
        for slug, part, fp, vmodel, dim, data in rows:
            if dim != q.shape[0]:
                continue
            try:
                plain = open_sealed(key, scope_hash, fp, vmodel, data)
            except Exception:  # a damaged or swapped row scores nothing; doctor reports the files
                continue
            score = float(np.frombuffer(plain, dtype="<f2").astype(np.float32) @ q)
            found.setdefault((slug, 0 if level == MEMORY else int(part)), []).append((score, int(part)))
        got: list[Hit] = []
        for (slug, _), windows in found.items():
            peak, part = max(windows)
            score = pooling.pooled_one([w for w, _ in windows])[0] if level == MEMORY else peak
            got.append((slug, part, score, peak))
        got.sort(key=lambda g: (floor is not None and g[3] < floor, -g[2]))
        return _peaks(got[:limit], peaks)


def _peaks(got: list[Hit], peaks: dict[str, float] | None) -> list[tuple[str, int, float]]:
    """(slug, part, score) of `got`; each one's best cosine into `peaks` when given."""
    if peaks is not None:
        peaks.update((slug, peak) for slug, _, _, peak in got)
    return [(slug, part, score) for slug, part, score, _ in got]
