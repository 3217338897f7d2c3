"""Memory files on disk: `scopes/<hash>/<type>s/<slug>.md`, archived sessions in
`forgotten/`, and a session's raw turns beside it in `<slug>.turns.jsonl`."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from memoryd import atomic, frontmatter, slugs
from memoryd.errors import CorruptFile
from memoryd.frontmatter import Document
from memoryd.models import DecayState, MemoryType
from memoryd.paths import Layout

MD = ".md"
TURNS = ".turns.jsonl"
FORGOTTEN = "forgotten"


@dataclass(frozen=True)
class Turn:
    seq: int
    role: str
    text: str
    ts: str | None = None
    ext_id: str | None = None

    def to_json(self) -> str:
        data = {"seq": self.seq, "role": self.role, "ts": self.ts, "ext_id": self.ext_id, "text": self.text}
        return json.dumps(data, ensure_ascii=False)


class MemoryFiles:
    def __init__(self, layout: Layout) -> None:
        self.layout = layout

    def folder(self, scope_hash: str, memory_type: MemoryType, decay_state: DecayState) -> Path:
        base = self.layout.scope_dir(scope_hash)
        if decay_state is DecayState.forgotten:
            return base / FORGOTTEN
        return base / memory_type.folder

    def path_for(self, doc: Document) -> Path:
        slug = slugs.validate(doc.meta.slug)
        return self.folder(doc.meta.scope_hash, doc.meta.type, doc.meta.decay_state) / (slug + MD)

    def relative(self, path: Path) -> str:
        return path.relative_to(self.layout.home).as_posix()

    def absolute(self, body_path: str) -> Path:
        return self.layout.home / body_path

    def write(self, doc: Document, *, sync: bool = True) -> Path:
        path = self.path_for(doc)
        atomic.write_text(path, frontmatter.render(doc), sync=sync)
        return path

    def read(self, path: Path) -> Document:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise CorruptFile(f"{path}: file is missing") from None
        doc = frontmatter.parse_bytes(data, where=str(path))
        if doc.meta.slug + MD != path.name:
            raise CorruptFile(f"{path}: slug {doc.meta.slug!r} does not match the file name")
        return doc

    def turns_path(self, md_path: Path) -> Path:
        return md_path.with_name(md_path.name[: -len(MD)] + TURNS)

    def write_turns(self, md_path: Path, turns: list[Turn], *, sync: bool = True) -> None:
        text = "".join(t.to_json() + "\n" for t in turns)
        atomic.write_text(self.turns_path(md_path), text, sync=sync)

    def read_turns(self, md_path: Path) -> list[Turn]:
        path = self.turns_path(md_path)
        if not path.exists():
            return []
        out = []
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                d = json.loads(line)
                out.append(Turn(int(d["seq"]), str(d["role"]), str(d["text"]), d.get("ts"), d.get("ext_id")))
            except (ValueError, KeyError, TypeError):
                continue
        return out

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

    def all_files(self) -> Iterator[Path]:
        """Every live memory file under scopes/: temp leftovers, sidecars and the
        forgotten/ archive (not indexed, seed 001) excluded."""
        root = self.layout.scopes
        if not root.exists():
            return
        for scope_dir in sorted(root.iterdir()):
            if not scope_dir.is_dir():
                continue
            for folder in sorted(scope_dir.iterdir()):
                if not folder.is_dir() or folder.name == FORGOTTEN:
                    continue
                for entry in sorted(folder.iterdir()):
                    name = entry.name
                    if name.endswith(MD) and not atomic.is_temp(name) and entry.is_file():
                        yield entry

    def archived_count(self) -> int:
        """Memories in forgotten/ folders: out of the index, still on disk."""
        root = self.layout.scopes
        if not root.exists():
            return 0
        return sum(1 for p in root.glob(f"*/{FORGOTTEN}/*{MD}") if not atomic.is_temp(p.name))

    def temp_leftovers(self) -> Iterator[Path]:
        root = self.layout.scopes
        if root.exists():
            yield from root.rglob(".tmp-*.part")
