"""Transcript parsers: Claude Code JSONL, Codex rollout JSONL, OpenClaw session JSONL.

None of these formats is a stable interface, so parsing is defensive: unknown line types
and fields are skipped, a damaged line costs that line only, and reading is bounded
(oversized lines are skipped, only the latest turns are kept) so a 50 MB transcript costs
seconds and a bounded amount of memory.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from memoryd import jsontext, safeopen
from memoryd.config import CaptureConfig
from memoryd.harness_messages import NOT_PROMPTS
from memoryd.redact import Redactor
from memoryd.store.files import Turn

_FILE_KEYS = ("file_path", "path", "notebook_path", "filename")


@dataclass
class Parsed:
    turns: deque[Turn]
    prompts: list[str] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    tools: Counter[str] = field(default_factory=Counter)
    files: dict[str, None] = field(default_factory=dict)
    commands: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    cwd: str | None = None
    first_ts: str | None = None
    seq: int = 0
    # The session's own id when the file states it (Codex session_meta, OpenClaw header).
    session_id: str | None = None
    # Lines that were not a JSON object (damaged, truncated, oversized): skipped.
    bad_lines: int = 0


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") in ("text", "input_text", "output_text"):
                parts.append(str(block.get("text", "")))
        return "\n".join(p for p in parts if p)
    return ""


def _cut(text: str, limit: int) -> str:
    """Cut redacted text at `limit` without splitting a placeholder in two."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    start = head.rfind("[REDACTED:")
    if start != -1 and "]" not in head[start:]:
        head = head[:start]
    return head


class _Builder:
    def __init__(self, cfg: CaptureConfig, redactor: Redactor) -> None:
        self.cfg = cfg
        self.redact = redactor
        self.out = Parsed(turns=deque(maxlen=cfg.max_turns))

    def _clip(self, text: str) -> str:
        text = self.redact(text.strip())
        return text if len(text) <= self.cfg.max_turn_chars else text[: self.cfg.max_turn_chars] + " …"

    def turn(self, role: str, text: str, ts: Any = None, ext_id: Any = None) -> str:
        clipped = self._clip(text)
        if clipped:
            if isinstance(ts, str) and self.out.first_ts is None:
                self.out.first_ts = ts
            self.out.turns.append(
                Turn(
                    self.out.seq,
                    role,
                    clipped,
                    ts if isinstance(ts, str) else None,
                    ext_id if isinstance(ext_id, str) else None,
                )
            )
            self.out.seq += 1
        return clipped

    def user_text(self, text: str, ts: Any, ext_id: Any) -> None:
        clipped = self.turn("user", text, ts, ext_id)
        if clipped and not clipped.startswith(NOT_PROMPTS):
            self.out.prompts.append(clipped)

    def assistant_text(self, text: str, ts: Any, ext_id: Any) -> None:
        clipped = self.turn("assistant", text, ts, ext_id)
        if clipped:
            self.out.answers.append(clipped[:2000])
            del self.out.answers[:-50]

    def tool_use(self, name: str, args: Any, ts: Any) -> None:
        name = str(name or "tool")
        self.out.tools[name] += 1
        if isinstance(args, str):
            try:
                args = jsontext.loads(args)
            except ValueError:
                args = {"input": args}
        if isinstance(args, dict):
            for key in _FILE_KEYS:
                if isinstance(args.get(key), str) and len(self.out.files) < 200:
                    self.out.files.setdefault(self.redact(args[key]), None)
            cmd = args.get("command") or args.get("cmd")
            if isinstance(cmd, list):
                cmd = " ".join(str(c) for c in cmd)
            if isinstance(cmd, str) and cmd.strip():
                self.out.commands.append(self._clip(cmd)[:300])
                del self.out.commands[:-100]
            patch = args.get("input") if name == "apply_patch" else None
            if isinstance(patch, str):
                for line in patch.splitlines():
                    for marker in ("*** Update File: ", "*** Add File: ", "*** Delete File: "):
                        if line.startswith(marker):
                            self.out.files.setdefault(line[len(marker) :].strip(), None)
        # Redact first, cut after: a cut made first leaves a PEM key without its END line
        # and a token too short for its pattern.
        summary = _cut(json.dumps(self.redact.redact_obj(args), ensure_ascii=False), 400) if args else ""
        self.turn("tool", f"[{name}] {summary}", ts)

    def tool_result(self, content: Any, is_error: bool, ts: Any) -> None:
        if isinstance(content, dict):
            text = _cut(json.dumps(self.redact.redact_obj(content), ensure_ascii=False), 2000)
        else:
            text = _text_of(content)
        if is_error and text.strip():
            self.out.errors.append(self._clip(text.strip().splitlines()[0])[:300])
            del self.out.errors[:-30]
        self.turn("tool", ("[error] " if is_error else "[result] ") + text, ts)


def _claude(b: _Builder, rec: dict[str, Any]) -> None:
    kind = rec.get("type")
    msg = rec.get("message")
    if kind not in ("user", "assistant") or not isinstance(msg, dict):
        return
    if rec.get("cwd") and not b.out.cwd:
        b.out.cwd = str(rec["cwd"])
    ts, uid = rec.get("timestamp"), rec.get("uuid")
    content = msg.get("content")
    if kind == "user":
        if rec.get("isMeta"):
            return
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    b.tool_result(block.get("content"), bool(block.get("is_error")), ts)
        text = _text_of(content)
        if text:
            b.user_text(text, ts, uid)
        return
    if isinstance(content, list):
        text = _text_of(content)
        if text:
            b.assistant_text(text, ts, uid)
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                b.tool_use(block.get("name"), block.get("input"), ts)
    elif isinstance(content, str):
        b.assistant_text(content, ts, uid)


def _codex(b: _Builder, rec: dict[str, Any]) -> None:
    payload = rec.get("payload")
    if not isinstance(payload, dict):
        return
    ts = rec.get("timestamp")
    kind = rec.get("type")
    if kind == "session_meta":
        if isinstance(payload.get("cwd"), str):
            b.out.cwd = payload["cwd"]
        if isinstance(payload.get("id"), str) and b.out.session_id is None:
            b.out.session_id = payload["id"]
        if isinstance(ts, str) and b.out.first_ts is None:
            b.out.first_ts = ts
        return
    if kind != "response_item":
        return
    ptype = payload.get("type")
    if ptype == "message":
        text = _text_of(payload.get("content"))
        role = payload.get("role")
        if role == "user":
            b.user_text(text, ts, payload.get("id"))
        elif role == "assistant":
            b.assistant_text(text, ts, payload.get("id"))
    elif ptype in ("function_call", "custom_tool_call", "local_shell_call"):
        args = payload.get("arguments", payload.get("input", payload.get("action")))
        b.tool_use(payload.get("name") or ptype, args, ts)
    elif ptype in ("function_call_output", "custom_tool_call_output"):
        out = payload.get("output")
        if isinstance(out, str) and out.startswith("{"):  # Codex writes the call's result as JSON text
            with contextlib.suppress(ValueError):
                out = jsontext.loads(out)
        if isinstance(out, dict):
            out = out.get("output") or out.get("content") or json.dumps(out)
        text = str(out or "")
        low = text.lower()
        b.tool_result(text, "exit code:" in low and "exit code: 0" not in low, ts)


def _openclaw(b: _Builder, rec: dict[str, Any]) -> None:
    if rec.get("type") == "session":
        if isinstance(rec.get("cwd"), str):
            b.out.cwd = rec["cwd"]
        if isinstance(rec.get("id"), str) and b.out.session_id is None:
            b.out.session_id = rec["id"]
        if isinstance(rec.get("timestamp"), str) and b.out.first_ts is None:
            b.out.first_ts = rec["timestamp"]
        return
    msg = rec.get("message") if rec.get("type") == "message" else None
    if not isinstance(msg, dict):
        return
    ts, mid = rec.get("timestamp"), rec.get("id")
    role, content = msg.get("role"), msg.get("content")
    if role == "user":
        b.user_text(_text_of(content), ts, mid)
    elif role == "assistant":
        text = _text_of(content)
        if text:
            b.assistant_text(text, ts, mid)
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") in ("toolCall", "tool_use"):
                    b.tool_use(block.get("name"), block.get("arguments", block.get("input")), ts)
    elif role in ("toolResult", "tool"):
        b.tool_result(content, bool(msg.get("isError")), ts)


def _detect(rec: dict[str, Any]) -> Any:
    if rec.get("type") in ("session_meta", "response_item", "turn_context", "event_msg", "compacted"):
        return _codex
    if rec.get("type") == "session" or (rec.get("type") == "message" and "message" in rec):
        return _openclaw
    return _claude


def _bounded(fh: BinaryIO, max_bytes: int, budget: int, skipped: list[int]) -> Iterator[bytes]:
    """Whole lines of at most `max_bytes` each, reading at most `budget` bytes in all; an
    oversized line is counted in `skipped` and dropped without being held."""
    while budget > 0:
        line = fh.readline(min(max_bytes + 1, budget))
        if not line:
            return
        budget -= len(line)
        if len(line) > max_bytes and not line.endswith(b"\n"):
            skipped[0] += 1
            while budget > 0:
                rest = fh.readline(min(max_bytes, budget))
                budget -= len(rest)
                if not rest or rest.endswith(b"\n"):
                    break
        elif line.endswith(b"\n") or budget > 0:  # not a line cut by the budget
            yield line


def _lines(path: Path, cfg: CaptureConfig, warnings: list[str]) -> Iterator[bytes]:
    """The file's lines, each at most `max_line_bytes`, `max_transcript_bytes` in all: of a
    bigger file its first line (Codex and OpenClaw state the session's id and folder there)
    and its latest lines, the ones the parser keeps. Only a regular file is read: a FIFO,
    a device or a directory raises safeopen.NotRegularFile (an OSError) before any read."""
    skipped = [0]
    with safeopen.open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        budget = cfg.max_transcript_bytes
        if size > budget:
            warnings.append(
                f"transcript is {safeopen.size_text(size)}, over the {safeopen.size_text(budget)} "
                "limit (capture.max_transcript_bytes): only its first line and latest lines were read"
            )
            first = fh.readline(cfg.max_line_bytes + 1)
            if first.endswith(b"\n"):
                yield first
            fh.seek(max(size - budget, fh.tell()) - 1)
            fh.readline(cfg.max_line_bytes)  # up to the next line start (the seek may cut one)
            budget = max(size - fh.tell(), 0)
        yield from _bounded(fh, cfg.max_line_bytes, budget, skipped)
    if skipped[0]:
        warnings.append(f"{skipped[0]} oversized transcript line(s) skipped")


def parse(path: str | None, cfg: CaptureConfig, redactor: Redactor) -> Parsed:
    """Parse whatever transcript is at `path`; problems become warnings, not failures."""
    b = _Builder(cfg, redactor)
    if not path:
        b.out.warnings.append("no transcript_path in payload")
        return b.out
    p = Path(path)
    handler = None
    bad = 0
    try:
        for raw in _lines(p, cfg, b.out.warnings):
            try:
                rec = jsontext.loads(raw)
            except ValueError:
                bad += 1
                continue
            if not isinstance(rec, dict):
                bad += 1
                continue
            handler = handler or _detect(rec)
            handler(b, rec)
    except OSError as exc:
        b.out.warnings.append(f"transcript unreadable: {p}: {exc.strerror or exc}")
    if bad:
        b.out.warnings.append(f"{bad} transcript line(s) were not JSON objects")
    b.out.bad_lines = bad + sum(int(w.split()[0]) for w in b.out.warnings if "oversized" in w)
    return b.out
