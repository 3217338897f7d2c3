"""No English left in the Chinese tray: every window tests/e2e/window_shots.py shoots, on
a real X display with a tray host, over the demo store (tests/e2e/demo.py), in zh_CN.

window_shots.py writes each window's texts beside its PNG (tests/e2e/widget_texts.py
walks the widget tree). Here a run of three or more ASCII letters fails the test unless
it is user content: the words the user's store holds (memory and proposal titles,
bodies, triggers, slugs, project names and paths, entity names), text in quotes (a title
quoted in a sentence), or one of ALLOWED below.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from memoryd.app import Memoryd
from tests.delivery import Desktop
from tests.e2e.demo import seed

ROOT = Path(__file__).resolve().parents[2]
# Words a Chinese UI keeps in Latin letters, each for a reason:
ALLOWED = {
    "memoryd",  # the app's name
    "dura",  # the name of the scoring model (durability, utility, recency, accuracy)
    "claude",  # agent names, as their makers write them: Claude Code, Codex, MCP clients
    "code",
    "codex",
    "openclaw",
    "mcp",
    "llm",  # acronyms Chinese software keeps: LLM, API (key), SMTP, SSL/TLS, STARTTLS
    "api",
    "pin",  # the grant PIN: Chinese software says PIN (码) too
    "smtp",
    "ssl",
    "tls",
    "starttls",
    "anthropic",  # LLM providers' names: OpenAI, Anthropic, Ollama
    "openai",
    "ollama",
    "english",  # the language choice names each language in itself (English, 简体中文)
    "cron",  # the advanced schedule form is a cron line, the name it goes by everywhere
    "ctrl",  # key names as printed on the keyboard (Ctrl+Z)
    "mib",  # units
    "gib",
}
# Not words of the UI: quoted text (a title in a sentence), absolute paths, file and host
# names (config.toml, smtp.example.com), and hex ids standing alone: scope hashes, sync
# revisions (8+ hex digits, one a digit at least; not the tail of a slug, which is content).
# The monthly report's file (#report_view) is core's prose, written in the user's language
# (memoryd.profile.report): checked like the rest. A memory's raw fields (#raw_fields, behind
# "Show raw fields") are its file's own keys and values as stored, not UI words.
RAW = "#raw_fields"
QUOTED = re.compile(r"“[^”]*”|「[^」]*」|\"[^\"]*\"|`[^`]*`")
NAMES = re.compile(
    r"(?<![\w/])/[^\s，。；：）)]+|\b[\w-]+(?:\.[\w-]+)+\b|(?<![\w-])(?=[a-f]*\d)[0-9a-f]{8,}(?![\w-])"
)
TAG = re.compile(r"<[^>]+>|&[a-z]+;")
WORD = re.compile(r"[A-Za-z]{3,}")


def content(app: Memoryd, projects: list[Path]) -> list[str]:
    """What the user's store holds, longest first (so a title is cut out before its words)."""
    found: set[str] = {str(p) for p in projects} | {p.name for p in projects}
    hashes: set[str] = set()
    for row in app.list(scopes=None, include_forgotten=True):
        found.update([row["slug"], row["title"], *(row.get("triggers") or [])])
        hashes.add(row["scope_hash"])
        if not row.get("scope_sensitive"):
            doc = app.get(row["slug"], count_recall=False).doc
            found.update([doc.body, *doc.meta.triggers])
    for p in app.promotions():
        found.update([p.get("proposed_title") or "", p.get("proposed_body") or ""])
        found.update(p.get("proposed_triggers") or [])
        found.update(str(v) for k, v in p.items() if k.endswith(("slug", "title")) and v)
    for project in app.project_names(hashes).values():
        found.update([project.name, project.root or ""])
    found.update(str(e.get("name") or "") for e in app.entities())
    for conflict in app.sync_conflicts():  # every version of a conflicted memory is the user's
        for version in app.sync_show(conflict["slug"]):
            fields = version.get("fields") or {}
            found.update([str(fields.get("title") or ""), str(fields.get("body") or "")])
    pieces = {line.strip(" -#*>0123456789.") for text in found for line in text.splitlines()}
    pieces |= {x.replace("**", "").replace("`", "") for x in pieces}  # as Markdown renders them
    return sorted((x for x in found | pieces if len(x) >= 3), key=len, reverse=True)


def english_left(text: str, user: list[str]) -> list[str]:
    """The runs of Latin letters in `text` that are neither user content nor allowed."""
    text = QUOTED.sub(" ", TAG.sub(" ", text))
    for item in user:  # before names are cut out: a user's line may hold a path
        if item in text:
            text = text.replace(item, " ")
    text = NAMES.sub(" ", text)
    return [w for w in WORD.findall(text) if w.lower() not in ALLOWED]


def test_no_english_in_the_chinese_windows(desktop: Desktop, cli, tmp_path: Path, monkeypatch) -> None:
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")  # a Chinese user: core writes their profile in Chinese
    seeded = seed(cli, tmp_path / "work", tmp_path)
    out = tmp_path / "zh_CN"
    env = {**desktop.env(), "MEMORYD_NOW": os.environ["MEMORYD_NOW"], "TZ": "UTC"}
    proc = subprocess.run(
        [sys.executable, "-m", "tests.e2e.window_shots", str(out), "zh_CN"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    dumps = sorted(out.glob("*.texts.json"))
    assert len(dumps) >= 8, [p.name for p in dumps]  # every window was walked
    user = content(Memoryd(), [seeded["project"], seeded["secret"]])
    left = []
    for dump in dumps:
        for where, text in json.loads(dump.read_text(encoding="utf-8")):
            if where.endswith(RAW):
                continue
            words = english_left(text, user)
            if words:
                left.append(f"{dump.name.removesuffix('.texts.json')}: {where}: {words} in {text[:200]!r}")
    assert not left, "English in the Chinese UI:\n" + "\n".join(left)


def test_the_check_finds_english_and_spares_user_content() -> None:
    user = ["Tabs over spaces", "webshop"]
    assert english_left("整理完成：0 captured, 0 analysed", user) == ["captured", "analysed"]
    assert english_left("用途: search", user) == ["search"]
    assert english_left("“Tabs over spaces” 取代了 “Use SQLite”", user) == []
    assert english_left("偏好：Tabs over spaces（webshop）", user) == []
    assert english_left("<b>memoryd</b> 正在运行 · 12 MiB", user) == []
    assert english_left("数据文件夹：/tmp/pytest-of-root/data。API 密钥不写入 config.toml", user) == []
    assert english_left("范围：56f2efcf5a98，Scope", user) == ["Scope"]
    assert english_left("副本 e6f2cbb2，修改于", user) == []
    assert english_left("deadbeef", user) == ["deadbeef"]
