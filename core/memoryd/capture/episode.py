"""Turn a parsed transcript and its hook payload into an episode-style session memory:
goal, what was done, files, commands, errors, outcome."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from memoryd import sentences, titles
from memoryd.capture.transcripts import Parsed
from memoryd.keyterms import Rarity, keywords
from memoryd.redact import Redactor

_LANG = {
    ".py": "python",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".js": "javascript",
    ".jsx": "javascript",
    ".rs": "rust",
    ".go": "go",
    ".java": "java",
    ".rb": "ruby",
    ".c": "c",
    ".cpp": "cpp",
    ".cs": "csharp",
    ".swift": "swift",
    ".kt": "kotlin",
    ".sql": "sql",
    ".sh": "shell",
    ".md": "docs",
    ".css": "css",
    ".html": "html",
}


@dataclass(frozen=True)
class Episode:
    title: str
    body: str
    triggers: list[str]
    tags: list[str]


def _first_line(text: str, limit: int) -> str:
    """A session's title: the first prompt's first line as typed, cut at a word boundary."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return titles.clip(line, limit)


def _sentence(text: str, limit: int = 200) -> str:
    """The first sentence of an answer or a request (Fly.io and v1.2.3 are not ends)."""
    return titles.clip(sentences.first(text) or " ".join(text.split()), limit)


def has_content(parsed: Parsed, payload: dict[str, Any]) -> bool:
    """Whether there is anything to remember: a transcript that yielded something, or a
    payload that carries its own text (Claude Code's `last_assistant_message`, Codex
    notify's `input_messages`), or carried it before a sensitive scope's hook withheld it.
    Without either, a memory would be only placeholders."""
    if parsed.turns or parsed.prompts or parsed.answers or parsed.tools or parsed.files or parsed.commands:
        return True
    if payload.get("_content_withheld"):  # a sensitive scope's hook kept only ids and paths
        return True
    for key in ("last_assistant_message", "prompt"):
        value = payload.get(key)
        if isinstance(value, str) and value.strip():
            return True
    msgs = payload.get("input_messages")
    if isinstance(msgs, str):
        return bool(msgs.strip())
    return isinstance(msgs, list) and any(str(m).strip() for m in msgs)


def build(
    parsed: Parsed,
    payload: dict[str, Any],
    source: str,
    redactor: Redactor,
    *,
    rarity: Rarity | None = None,
) -> Episode:
    goal = parsed.prompts[0] if parsed.prompts else ""
    if not goal:
        msgs = payload.get("input_messages") or payload.get("prompt")
        if isinstance(msgs, list) and msgs:
            goal = redactor(str(msgs[0]))
        elif isinstance(msgs, str):
            goal = redactor(msgs)
    last = payload.get("last_assistant_message")
    outcome = (
        redactor(last)
        if isinstance(last, str) and last.strip()
        else (parsed.answers[-1] if parsed.answers else "")
    )
    sid = str(payload.get("session_id", ""))
    title = _first_line(goal, 80) or f"Session {sid[:8]}"

    done = [f"- {_sentence(a)}" for a in parsed.answers[:-1][:12] if a.strip()]
    if parsed.tools:
        used = ", ".join(f"{n} ×{c}" for n, c in parsed.tools.most_common(8))
        done.append(f"- Tools used: {used}")
    sections = [("Goal", goal[:1500] or "(no user prompt captured)")]
    if done:
        sections.append(("What was done", "\n".join(done)))
    if parsed.files:
        sections.append(("Files touched", "\n".join(f"- `{f}`" for f in list(parsed.files)[:40])))
    if parsed.commands:
        uniq = list(dict.fromkeys(parsed.commands))[-20:]
        sections.append(("Commands run", "\n".join(f"- `{c}`" for c in uniq)))
    if parsed.errors:
        sections.append(("Errors", "\n".join(f"- {e}" for e in list(dict.fromkeys(parsed.errors))[:15])))
    if len(parsed.prompts) > 1:
        later = [f"- {_sentence(p, 160)}" for p in parsed.prompts[1:][-10:]]
        sections.append(("Later requests", "\n".join(later)))
    sections.append(("Outcome", outcome[:2000] or "(no answer captured)"))
    body = "\n\n".join(f"## {name}\n{text}" for name, text in sections) + "\n"

    corpus = " ".join([goal, *parsed.prompts[1:], *parsed.answers[:20], outcome])
    langs = [_LANG[s] for f in parsed.files if (s := PurePath(f).suffix.lower()) in _LANG]
    tags = list(dict.fromkeys([source, *[t.lower() for t, _ in parsed.tools.most_common(5)], *langs]))[:10]
    return Episode(title=title, body=body, triggers=keywords(corpus, 8, rarity=rarity), tags=tags)
