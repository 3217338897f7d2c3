"""Memory files on disk: `scopes/<hash>/<type>s/<slug>.md` (`.md.enc` in sensitive
scopes), archived memories in `forgotten/`, and a session's raw turns beside it in
`<slug>.turns.jsonl` (`.turns.jsonl.enc`)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from memoryd import atomic, crypto, frontmatter, slugs
from memoryd.errors import CorruptFile
from memoryd.frontmatter import Document
from memoryd.models import DecayState, MemoryType
from memoryd.paths import Layout
from memoryd.turns import Turn, turns_from_text

if TYPE_CHECKING:
    from memoryd.sensitive.keys import Keys

MD = ".md"
ENC = ".md.enc"
TURNS = ".turns.jsonl"
FORGOTTEN = "forgotten"

__all__ = ["ENC", "FORGOTTEN", "MD", "TURNS", "MemoryFiles", "Turn", "turns_from_text"]


class MemoryFiles:
    """With `keys`, memories of sensitive scopes are `<slug>.md.enc` and
    `<slug>.turns.jsonl.enc`, sealed to their scope and slug (memoryd.crypto); the
    plaintext exists only in memory."""

    def __init__(self, layout: Layout, keys: Keys | None = None) -> None:
        self.layout = layout
        self.keys = keys

    def sensitive(self, scope_hash: str) -> bool:
        return self.keys is not None and self.keys.sensitive(scope_hash)

    def folder(self, scope_hash: str, memory_type: MemoryType, decay_state: DecayState) -> Path:
        base = self.layout.scope_dir(scope_hash)
        if decay_state is DecayState.forgotten:
            return base / FORGOTTEN
        return base / memory_type.folder

    def path_for(self, doc: Document) -> Path:
        slug = slugs.validate(doc.meta.slug)
        ext = ENC if self.sensitive(doc.meta.scope_hash) else MD
        return self.folder(doc.meta.scope_hash, doc.meta.type, doc.meta.decay_state) / (slug + ext)

    def relative(self, path: Path) -> str:
        return path.relative_to(self.layout.home).as_posix()

    def absolute(self, body_path: str) -> Path:
        return self.layout.home / body_path

    @staticmethod
    def slug_of(path: Path) -> str:
        name = path.name
        return name[: -len(ENC)] if name.endswith(ENC) else name[: -len(MD)]

    @staticmethod
    def scope_of(path: Path) -> str:
        return path.parent.parent.name

    def _seal(self, path: Path, data: bytes, kind: str) -> bytes:
        assert self.keys is not None
        scope = self.scope_of(path)
        return crypto.seal(self.keys.get(scope), data, scope_hash=scope, slug=self._base(path), kind=kind)

    def _open(self, path: Path, data: bytes, kind: str, where: Path | None = None) -> bytes:
        """`where`: the file the bytes came from, named in errors (a turns sidecar is
        sealed to its memory's path, but a damaged sidecar is not a damaged memory)."""
        if self.keys is None:
            raise CorruptFile(f"{where or path}: encrypted, and no keys are available here")
        scope = self.scope_of(path)
        if not self.keys.sensitive(scope):
            # Planted (a crafted sync version) or left behind: no key exists to open it, and
            # it must not stop doctor, reindex or a sync over everything else.
            raise CorruptFile(
                f"{where or path}: encrypted, but scope {scope} is not sensitive on this machine "
                "(a stray or planted file; move it out of the data directory)"
            )
        return crypto.open_sealed(
            self.keys.get(scope),
            data,
            scope_hash=scope,
            slug=self._base(path),
            kind=kind,
            where=str(where or path),
        )

    @staticmethod
    def _base(path: Path) -> str:
        name = path.name
        for ext in (ENC, MD, TURNS + ".enc", TURNS):
            if name.endswith(ext):
                return name[: -len(ext)]
        return name

    def write(self, doc: Document, *, sync: bool = True) -> Path:
        path = self.path_for(doc)
        if self.keys is not None and not path.name.endswith(ENC):
            self.keys.refuse_clear(doc.meta.scope_hash)  # a marking whose settings were deleted
        text = frontmatter.render(doc)
        if path.name.endswith(ENC):
            atomic.write_bytes(path, self._seal(path, text.encode("utf-8"), "md"), sync=sync)
        else:
            atomic.write_text(path, text, sync=sync)
        return path

    def read(self, path: Path) -> Document:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise CorruptFile(f"{path}: file is missing") from None
        if path.name.endswith(ENC):
            data = self._open(path, data, "md")
        doc = frontmatter.parse_bytes(data, where=str(path))
        if doc.meta.slug != self.slug_of(path):
            raise CorruptFile(f"{path}: slug {doc.meta.slug!r} does not match the file name")
        return doc

    def read_clear(self, path: Path) -> Document:
        """A file its caller listed as an ordinary (not sensitive) memory: a sealed one here
        means the listing's row lies (index.db edited to move a sensitive memory into an
        open scope), so it is refused rather than opened with the keyring's key and shown
        past the gate (an outside test, 2026-11-28: `export-md`, the identity profile)."""
        if path.name.endswith(ENC):
            raise CorruptFile(f"{path}: sealed, but listed as an ordinary memory (index.db edited?)")
        return self.read(path)

    def turns_path(self, md_path: Path) -> Path:
        if md_path.name.endswith(ENC):
            return md_path.with_name(md_path.name[: -len(ENC)] + TURNS + ".enc")
        return md_path.with_name(md_path.name[: -len(MD)] + TURNS)

    def write_turns(self, md_path: Path, turns: list[Turn], *, sync: bool = True) -> None:
        text = "".join(t.to_json() + "\n" for t in turns)
        path = self.turns_path(md_path)
        if md_path.name.endswith(ENC):
            atomic.write_bytes(path, self._seal(md_path, text.encode("utf-8"), "turns"), sync=sync)
        else:
            atomic.write_text(path, text, sync=sync)

    def read_turns(self, md_path: Path) -> list[Turn]:
        path = self.turns_path(md_path)
        if not path.exists():
            return []
        data = path.read_bytes()
        if md_path.name.endswith(ENC):
            data = self._open(md_path, data, "turns", where=path)
        return turns_from_text(data.decode("utf-8", errors="replace"))

    def archive(self, doc: Document, src: Path, *, sync: bool = True) -> Path:
        """Rewrite a memory as forgotten into forgotten/, bring its turns, drop the old
        file. Safe to repeat: an interrupted archive finishes on the next call."""
        doc.meta.decay_state = DecayState.forgotten
        dst = self.write(doc, sync=sync)
        if self.turns_path(src).exists():
            os.replace(self.turns_path(src), self.turns_path(dst))
        if src != dst:
            self.remove(src)
        return dst

    def move(self, src: Path, dst: Path) -> None:
        """Move a memory (and its turns) between folders; the rename is atomic."""
        dst.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        src_turns, dst_turns = self.turns_path(src), self.turns_path(dst)
        if src_turns.exists():
            os.replace(src_turns, dst_turns)
        os.replace(src, dst)

    def remove(self, path: Path) -> None:
        for p in (path, self.turns_path(path)):
            with contextlib.suppress(FileNotFoundError):
                p.unlink()

    @staticmethod
    def is_memory(name: str) -> bool:
        return (name.endswith(MD) or name.endswith(ENC)) and not atomic.is_temp(name)

    def all_files(self, scope_hash: str | None = None, *, archived: bool = False) -> Iterator[Path]:
        """Every live memory file under scopes/ (or one scope's): temp leftovers,
        sidecars and the forgotten/ archive (not indexed, seed 001) excluded, unless
        `archived` asks for the archive too."""
        root = self.layout.scopes
        if not root.exists():
            return
        scope_dirs = [root / scope_hash] if scope_hash else sorted(root.iterdir())
        for scope_dir in scope_dirs:
            if not scope_dir.is_dir():
                continue
            for folder in sorted(scope_dir.iterdir()):
                if not folder.is_dir() or (folder.name == FORGOTTEN and not archived):
                    continue
                for entry in sorted(folder.iterdir()):
                    if self.is_memory(entry.name) and entry.is_file():
                        yield entry

    def archived_count(self) -> int:
        """Memories in forgotten/ folders: out of the index, still on disk."""
        root = self.layout.scopes
        if not root.exists():
            return 0
        return sum(1 for p in root.glob(f"*/{FORGOTTEN}/*") if self.is_memory(p.name))

    def temp_leftovers(self) -> Iterator[Path]:
        root = self.layout.scopes
        if root.exists():
            yield from root.rglob(".tmp-*.part")
