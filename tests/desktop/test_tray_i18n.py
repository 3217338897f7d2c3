"""Translations: zh_CN is picked for Simplified Chinese locales only, applied, and complete."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QLocale, QTranslator
from PySide6.QtWidgets import QApplication, QMenu
from pytestqt.qtbot import QtBot

from memoryd.app import Memoryd
from memoryd_desktop import assets, i18n, tray_state
from memoryd_desktop.main import locale_for
from memoryd_desktop.status_window import StatusWindow
from memoryd_desktop.tray import populate

SOURCES = Path(i18n.__file__).parent
QM_MAGIC = bytes([0x3C, 0xB8, 0x64, 0x18, 0xCA, 0xEF, 0x9C, 0x95])
PLACEHOLDER = re.compile(r"\{\w*\}")


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[list[QTranslator]]:
    """zh_CN installed for one test, then removed so later tests see English again."""
    installed = i18n.install(qapp, QLocale("zh_CN"))
    yield installed
    for translator in installed:
        qapp.removeTranslator(translator)


@pytest.mark.parametrize(
    ("locale", "expected"),
    [
        ("zh_CN", "zh_CN"),
        ("zh_SG", "zh_CN"),
        ("zh_TW", None),
        ("zh_HK", None),
        ("en_US", "en"),
        ("en_GB", "en"),
        ("de_DE", None),
    ],
)
def test_catalogue_choice_follows_the_locale(locale: str, expected: str | None) -> None:
    assert i18n.catalog_name(QLocale(locale)) == expected


@pytest.mark.parametrize("locale", [QLocale("en_US"), locale_for("en")], ids=["en_US", "settings-English"])
def test_english_loads_the_english_catalogue(qapp: QApplication, locale: QLocale) -> None:
    """English is shipped like Chinese (its translations are the source text), also when
    Settings picks English on a Chinese system."""
    installed = i18n.install(qapp, locale)
    try:
        assert installed
        assert QCoreApplication.translate("TrayState", "Quit") == "Quit"
        assert QCoreApplication.translate("TrayState", "Review digest...") == "Review digest..."
    finally:
        for translator in installed:
            qapp.removeTranslator(translator)


def test_english_catalogue_has_every_message_as_its_source() -> None:
    def messages(name: str) -> dict[tuple[str, str], str]:
        root = ET.parse(assets.translations_dir() / name).getroot()
        return {
            (ctx.findtext("name") or "", msg.findtext("source") or ""): msg.findtext("translation") or ""
            for ctx in root.iter("context")
            for msg in ctx.iter("message")
        }

    english, chinese = messages("memoryd_en.ts"), messages("memoryd_zh_CN.ts")
    assert english.keys() == chinese.keys()
    assert all(source == text for (_ctx, source), text in english.items())


def test_zh_cn_translation_is_applied(qtbot: QtBot, chinese: list[QTranslator], facade: Memoryd) -> None:
    assert chinese, "no translator installed for zh_CN"
    facade.record("fact", "Port", "The dev database listens on 5433.")
    state = tray_state.load(facade)

    menu = QMenu()
    populate(menu, state)
    texts = [a.text() for a in menu.actions() if not a.isSeparator()]
    assert texts == [
        "待确认的长期记忆：0",
        "记忆：1",
        "    事实：1",
        "待处理的捕获：0",
        "查看每周摘要…",
        "搜索记忆…",
        "敏感项目…",
        "身份画像…",
        "立即整理",
        "立即同步（未设置文件夹：设置 → 同步）",
        "暂停捕获",
        "立即处理捕获",
        "设置…",
        "打开数据文件夹",
        "退出",
    ]

    window = StatusWindow()
    qtbot.addWidget(window)
    window.show_state(state)
    assert window.home_label.text() == f"数据文件夹：{facade.layout.home}"


def test_status_window_buttons_are_never_cut(qtbot: QtBot, facade: Memoryd) -> None:
    """The longest label ("Sync now (no folder: Settings → Sync)") was cut in the English
    screenshot: the window may not be narrower than its rows of buttons."""
    window = StatusWindow()
    qtbot.addWidget(window)
    window.show_state(tray_state.load(facade))
    window.show()
    qtbot.waitExposed(window)
    cut = [b.text() for b in window.buttons.values() if b.width() < b.sizeHint().width()]
    assert cut == []


def test_qt_own_strings_follow_too(chinese: list[QTranslator]) -> None:
    # the second translator is Qt's qtbase catalogue (standard dialog buttons)
    assert len(chinese) == 2
    assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "取消"


def test_catalogue_compiles_with_lrelease() -> None:
    data = i18n.catalog_bytes("zh_CN")
    assert data.startswith(QM_MAGIC)
    assert i18n.Catalog(data).translate("TrayState", "Quit") == "退出"


def test_translations_keep_the_placeholders() -> None:
    """A {name} lost or invented in a translation would break its .format() call at run time."""
    root = ET.parse(assets.translations_dir() / "memoryd_zh_CN.ts").getroot()
    broken = [
        f"{ctx.findtext('name')}: {msg.findtext('source')}"
        for ctx in root.iter("context")
        for msg in ctx.iter("message")
        if sorted(PLACEHOLDER.findall(msg.findtext("source") or ""))
        != sorted(PLACEHOLDER.findall(msg.findtext("translation") or ""))
    ]
    assert broken == []


def test_every_source_string_is_translated(tmp_path: Path) -> None:
    """lupdate (shipped with PySide6) merges the sources into a copy of the .ts; nothing new may appear."""
    lupdate = i18n.qt_tool("lupdate")
    if lupdate is None:
        pytest.skip("lupdate not available (PySide6 normally bundles it)")
    ts = tmp_path / "memoryd_zh_CN.ts"
    shutil.copy(assets.translations_dir() / ts.name, ts)
    subprocess.run(
        [str(lupdate), "-silent", "-locations", "none", "-extensions", "py", str(SOURCES), "-ts", str(ts)],
        check=True,
    )
    untranslated = [
        f"{ctx.findtext('name')}: {msg.findtext('source')} ({tr.get('type')})"
        for ctx in ET.parse(ts).getroot().iter("context")
        for msg in ctx.iter("message")
        if (tr := msg.find("translation")) is not None and (tr.get("type") or not (tr.text or "").strip())
    ]
    assert untranslated == []
    assert sum(1 for _ in ET.parse(ts).getroot().iter("message")) >= 20


def test_the_rules_dura_reasoning_is_worded_in_chinese(chinese: list[QTranslator]) -> None:
    """Issue 22: the review showed the rules' English line in the Chinese UI."""
    from memoryd.llm import rules
    from memoryd_desktop.dura_text import reasoning_text

    line = rules.score(
        "x",
        "In this repo always use pnpm. This is important, remember it.",
        reason="no API key: X is not set",
    ).reasoning
    shown = reasoning_text(line)
    assert shown.startswith("按规则评分（没有 LLM 的 API 密钥）：重要性 1.00 = 偏好 0.8；偏好（原话“"), shown
    assert "要求记住 +0.5；标为重要 +0.3" in shown
    english = re.findall(r"[A-Za-z]{3,}", shown.split("“")[0] + shown.split("”")[-1])
    assert english == ["LLM", "API"], shown  # only the user's words in quotes, and acronyms
    assert reasoning_text("The model thinks so.") == "The model thinks so."  # an LLM's own prose


def test_the_consolidation_summary_is_worded_from_counts(chinese: list[QTranslator]) -> None:
    """Issue 22: "整理完成：0 captured, 0 analysed…" mixed core's English into the notice."""
    from memoryd_desktop.texts import consolidation_summary

    counts = {"captured": 0, "analysed": 2, "queued": 1, "decayed": 0, "tokens": 1200}
    assert consolidation_summary(counts) == "分析了 2 次会话，1 条提议待审核，1,200 个 LLM 词元"
    assert consolidation_summary(dict.fromkeys(counts, 0)) == ""  # nothing happened: nothing to say


def test_one_term_for_sensitive_projects() -> None:
    """What the user marks as private is a "sensitive project" / 敏感项目 everywhere the
    tray speaks: never a scope (范围), nor a sensitive folder or place (文件夹, 位置).
    Real folders (the data folder, the sync folder) keep their word."""
    root = ET.parse(assets.translations_dir() / "memoryd_zh_CN.ts").getroot()
    english = re.compile(
        r"\bscopes?\b|sensitive\s+folder|folders?\s+(is\s+)?(marked\s+)?sensitive|folder is marked",
        re.IGNORECASE,
    )
    chinese = re.compile(r"范围|敏感的?(文件夹|位置)|文件夹[已被]?标记为敏感")
    wrong = []
    for ctx in root.iter("context"):
        name = ctx.findtext("name") or ""
        for msg in ctx.iter("message"):
            source, text = msg.findtext("source") or "", msg.findtext("translation") or ""
            # the Sensitive projects window speaks only of projects
            folder = name == "ScopesWindow" and ("folder" in source.lower() or "文件夹" in text)
            if english.search(source) or chinese.search(text) or folder:
                wrong.append(f"{name}: {source} -> {text}")
    assert wrong == []
