"""memoryd.embed.cache's check stamp: a pack's parts are checked whole once per version
of the file, and any change to the file (a write, a truncation, a pack written anew, a
stamp of another version or garbage) has them checked again, so damage is still found.
Small packs of our own here; tests/core/embed/test_usecache.py damages the model's."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from memoryd.embed import cache

TAG = "test-pack-1"


@pytest.fixture
def pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(cache, "RACY_SECONDS", 0.0)  # no waiting for the file to age
    path = tmp_path / "models" / TAG / "model.pack"
    cache.write_pack(str(path), TAG, {"k": 1}, [("a", b"x" * 1000), ("b", b"y" * 3000)])
    time.sleep(0.05)  # past the clock tick of the write: a later change gets a later ctime
    return path


def _checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts whole-part checksums from now on."""
    calls: list[int] = []
    real = cache.checksum
    monkeypatch.setattr(cache, "checksum", lambda data: calls.append(len(data)) or real(data))
    return calls


def _damage(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-500] ^= 0x5A  # inside part "b", past the header
    with open(path, "r+b") as fh:  # in place: same inode, same size
        fh.write(bytes(data))


def test_parts_are_checked_whole_once_per_version_of_the_file(pack: Path, monkeypatch) -> None:
    calls = _checks(monkeypatch)
    cache.open_pack(str(pack), TAG)
    assert calls == [1000, 3000]
    assert Path(cache.stamp_path(str(pack))).is_file()
    calls.clear()
    assert bytes(cache.open_pack(str(pack), TAG).part("b")) == b"y" * 3000
    assert calls == []  # the same file: the stamp says it was checked


def test_damage_after_the_stamp_is_found(pack: Path) -> None:
    cache.open_pack(str(pack), TAG)
    assert Path(cache.stamp_path(str(pack))).is_file()
    _damage(pack)
    with pytest.raises(cache.BadPack, match="corrupt"):
        cache.open_pack(str(pack), TAG)


def test_a_change_that_keeps_size_and_mtime_is_still_found(pack: Path) -> None:
    """touch can put mtime back; ctime it cannot."""
    cache.open_pack(str(pack), TAG)
    before = pack.stat()
    _damage(pack)
    os.utime(pack, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert pack.stat().st_mtime_ns == before.st_mtime_ns and pack.stat().st_size == before.st_size
    with pytest.raises(cache.BadPack, match="corrupt"):
        cache.open_pack(str(pack), TAG)


def test_a_pack_written_anew_is_checked_anew(pack: Path, monkeypatch) -> None:
    cache.open_pack(str(pack), TAG)
    cache.write_pack(str(pack), TAG, {"k": 2}, [("a", b"z" * 1000), ("b", b"w" * 3000)])
    time.sleep(0.05)
    calls = _checks(monkeypatch)
    assert cache.open_pack(str(pack), TAG).meta == {"k": 2}
    assert calls == [1000, 3000]


@pytest.mark.parametrize("stamp", ["", "garbage\n", "other"])
def test_a_stamp_of_another_version_or_garbage_is_not_trusted(pack: Path, monkeypatch, stamp: str) -> None:
    cache.open_pack(str(pack), TAG)
    st = pack.stat()
    if stamp == "other":  # a stamp as it was before one more write
        stamp = cache.stamp_of(st, 0)
    Path(cache.stamp_path(str(pack))).write_text(stamp)
    _damage(pack)
    with pytest.raises(cache.BadPack, match="corrupt"):
        cache.open_pack(str(pack), TAG)


def test_a_file_changed_just_now_gets_no_stamp(pack: Path, monkeypatch) -> None:
    monkeypatch.setattr(cache, "RACY_SECONDS", 3600.0)
    cache.open_pack(str(pack), TAG)
    assert not Path(cache.stamp_path(str(pack))).exists()
    calls = _checks(monkeypatch)
    cache.open_pack(str(pack), TAG)
    assert calls == [1000, 3000]  # checked whole again, until it is old enough


def test_a_folder_that_cannot_be_written_still_opens(pack: Path, monkeypatch) -> None:
    def refuse(*_a: object, **_k: object) -> None:
        raise PermissionError("read-only")

    monkeypatch.setattr(cache.tempfile, "mkstemp", refuse)
    assert bytes(cache.open_pack(str(pack), TAG).part("a")) == b"x" * 1000
    assert not Path(cache.stamp_path(str(pack))).exists()
    assert not [p for p in pack.parent.iterdir() if p.name.startswith(".tmp-")]


@pytest.mark.parametrize("kind", ["fifo", "directory", "symlink"])
def test_a_stamp_path_that_is_no_regular_file_is_not_trusted_and_never_blocks(pack: Path, kind: str) -> None:
    """A FIFO put at the stamp's path hung every model load in open(); a directory, or a
    symlink to a valid stamp, is no stamp of this file either. Run in a child process, so
    a hang fails the test instead of stopping the suite."""
    import subprocess
    import sys

    cache.open_pack(str(pack), TAG)
    stamp = Path(cache.stamp_path(str(pack)))
    if kind == "symlink":
        real = pack.parent / "elsewhere.checked"
        stamp.replace(real)
        stamp.symlink_to(real)
    else:
        stamp.unlink()
        os.mkfifo(stamp) if kind == "fifo" else stamp.mkdir()
    _damage(pack)
    code = (
        "import sys; from memoryd.embed import cache\n"
        "try:\n    cache.open_pack(sys.argv[1], sys.argv[2])\n"
        "except cache.BadPack as e:\n    print('bad:', e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(pack), TAG], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert "corrupt" in out.stdout  # checked whole: the damage is found
