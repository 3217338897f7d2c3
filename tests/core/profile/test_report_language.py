"""Issue 22 item 5: the monthly report file is prose for people, so core writes it in the
user's language (memoryd.locale_text): a Chinese user's report had English headings,
sentences and counts around their own titles. The raw diff keeps the profile's lines."""

from __future__ import annotations

import re
from pathlib import Path

from memoryd.app import Memoryd


def _locale(monkeypatch, lang: str) -> None:
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", lang)


def _month(cli, project: Path, monkeypatch, home: Path) -> str:
    """October's profile, then November's memories, a supersede and a rewrite; November's
    report file."""
    monkeypatch.setenv("MEMORYD_NOW", "2026-10-20T09:00:00Z")
    app = Memoryd()
    react, _ = app.record("preference", "Prefers React", "Front ends in React.", scope_path=project)
    assert cli("profile", "rewrite-identity").returncode == 0
    monkeypatch.setenv("MEMORYD_NOW", "2026-11-08T09:00:00Z")
    app = Memoryd()
    solid, _ = app.record("preference", "Prefers Solid", "Front ends in Solid now.", scope_path=project)
    app.record("warning", "Never force-push main", "It rewrote shared history once.", scope_path=project)
    app.link_supersede(solid.meta.slug, react.meta.slug)
    assert cli("profile", "rewrite-identity", "--weekly").returncode == 0
    monkeypatch.setenv("MEMORYD_NOW", "2026-11-30T20:00:00Z")
    out = cli("profile", "generate-monthly-report")
    assert out.returncode == 0, out.stderr
    return (home / "profile" / "change-reports" / "2026-11.md").read_text(encoding="utf-8")


USER = re.compile(r"Prefers (React|Solid)|Never force-push main|Solid|React|npm|\bv\d+\b")


def test_a_chinese_users_report_is_in_chinese(cli, project: Path, monkeypatch, isolated_home: Path):
    _locale(monkeypatch, "zh_CN.UTF-8")
    text = _month(cli, project, monkeypatch, isolated_home)
    assert text.startswith("# 身份画像：2026-11 的变化\n\n本月共 1 个版本，从 v2 到 v2。\n"), text
    assert "\n## 新增的偏好\n- Prefers Solid\n" in text
    assert "\n## 放弃的偏好\n- Prefers React\n" in text
    assert "\n## 被取代\n- Prefers React → Prefers Solid（偏好）\n" in text
    assert "\n## 新增的警示\n- Never force-push main\n" in text
    assert re.search(r"\n## 版本\n- v2 2026-11-08（每周）：新增 \d+ 行，删除 \d+ 行\n", text), text
    prose, _, diff = text.partition("\n## 画像的差异\n")
    assert diff.startswith("\n```diff\n--- 本月之前\n+++ v2\n"), diff
    assert "+- 偏好：Prefers Solid" in diff  # the profile's own lines, in the user's language too
    # no English in the prose around the user's titles and names
    assert re.findall(r"[A-Za-z]{3,}", USER.sub(" ", prose)) == []


def test_an_english_users_report_is_in_english(cli, project: Path, monkeypatch, isolated_home: Path):
    _locale(monkeypatch, "en_US.UTF-8")
    text = _month(cli, project, monkeypatch, isolated_home)
    assert text.startswith("# Identity profile: changes in 2026-11\n\n1 version(s) this month, v2 to v2.\n")
    assert "\n## Superseded\n- Prefers React -> Prefers Solid (preference)\n" in text
    assert re.search(r"\n## Versions\n- v2 2026-11-08 \(weekly\): \d+ line\(s\) added, \d+ removed\n", text)
    assert "\n## The profile's diff\n\n```diff\n--- before the month\n+++ v2\n" in text
    assert not re.search(r"[\u4e00-\u9fff]", text), text


def test_the_tray_language_setting_words_the_report(cli, project: Path, monkeypatch, tmp_path: Path):
    """A user who chose Chinese in the tray under an English locale gets a Chinese report."""
    _locale(monkeypatch, "C.UTF-8")
    (tmp_path / "config.toml").write_text('[tray]\nlanguage = "zh_CN"\n', encoding="utf-8")
    text = _month(cli, project, monkeypatch, tmp_path / "data")
    assert text.startswith("# 身份画像：2026-11 的变化\n"), text
