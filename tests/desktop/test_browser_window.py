"""The memory browser over a real temp store: search, filters, detail, record / edit / forget /
merge through its dialogs, the long jobs with progress and Cancel, and a sensitive scope."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from PySide6.QtCore import QLocale, Qt
from PySide6.QtGui import QColor, QFontMetrics, QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QStyle,
    QTextEdit,
    QWidget,
)
from pytestqt.qtbot import QtBot

from memoryd.app import Memoryd
from memoryd_desktop import highlight, i18n, project_text
from memoryd_desktop.browser_window import PROJECT_MAX_PX, TITLE_MIN_PX, BrowserWindow
from memoryd_desktop.long_task import LongTask
from memoryd_desktop.memory_dialogs import ImportDialog, MarkSensitiveDialog, MemoryDialog, MergeDialog
from memoryd_desktop.ops import Ops
from memoryd_desktop.texts import local_time
from memoryd_desktop.tray_state import Action
from memoryd_desktop.windows import Windows
from tests.desktop.test_digest_window import PNPM, _promotions

WAIT_MS = 10_000
PASSPHRASE = "correct horse battery staple"


@pytest.fixture
def slugs(facade: Memoryd, home: Path) -> dict[str, str]:
    """Three memories in the working directory's scope, by short name."""
    out = {}
    for name, mtype, title, body, triggers in (
        ("port", "fact", "Dev database port", "The dev database listens on 5433.", ["database port"]),
        ("pg", "decision", "Use Postgres", "We chose Postgres over MySQL for JSONB.", []),
        ("release", "playbook", "Release", "Tag, build the wheel, upload it.", []),
    ):
        doc, _ = facade.record(mtype, title, body, triggers=triggers)
        out[name] = doc.meta.slug
    return out


@pytest.fixture
def window(qtbot: QtBot, facade: Memoryd, slugs: dict[str, str]) -> Iterator[BrowserWindow]:
    errors: list[BaseException] = []
    ops = Ops(on_error=errors.append)
    # Not qtbot.addWidget: pytest-qt would delete the window before this fixture's teardown,
    # while an answer (e.g. a detail read) may still be on its way to it.
    win = BrowserWindow(facade, ops)
    with qtbot.waitSignal(win.results_shown, timeout=WAIT_MS) as blocker:
        win.show()
    assert blocker.args == [3]
    yield win
    assert ops.wait(WAIT_MS)
    qtbot.waitUntil(lambda: not ops.busy, timeout=WAIT_MS)  # answers delivered while the window lives
    win.close()
    win.deleteLater()
    assert errors == []


def titles(win: BrowserWindow) -> list[str]:
    return [r["title"] for r in win.model.rows]


def search(qtbot: QtBot, win: BrowserWindow, text: str) -> int:
    with qtbot.waitSignal(win.results_shown, timeout=WAIT_MS) as blocker:
        win.search_edit.setText(text)  # the search runs when typing pauses
    return int(blocker.args[0])


def open_detail(qtbot: QtBot, win: BrowserWindow, slug: str) -> None:
    with qtbot.waitSignal(win.detail_shown, timeout=WAIT_MS, check_params_cb=lambda s: s == slug):
        win.select(slug)


def test_the_listing_shows_every_memory_and_the_scopes(window: BrowserWindow, facade: Memoryd) -> None:
    assert sorted(titles(window)) == ["Dev database port", "Release", "Use Postgres"]
    scope = facade.scope().hash
    assert window.scope_combo.findData(scope) > 0
    assert window.status.text() == "Memories shown: 3"
    assert not window.edit_action.isEnabled() and not window.merge_action.isEnabled()


def test_search_finds_one(qtbot: QtBot, window: BrowserWindow, slugs: dict[str, str]) -> None:
    assert search(qtbot, window, "wheel") == 1
    assert titles(window) == ["Release"]
    assert window.model.rows[0]["slug"] == slugs["release"]

    assert search(qtbot, window, "") == 3  # an empty box lists again


def test_search_is_hybrid_a_chinese_question_finds_an_english_memory(
    qtbot: QtBot, window: BrowserWindow, facade: Memoryd
) -> None:
    """The browser searches through the facade's default mode, hybrid: a question in Chinese
    with no word in common finds the English memory it asks about (keyword search cannot)."""
    body = "We deploy the backend to Kubernetes on Google Cloud; staging and production are separate."
    facade.record("fact", "Deploy target", body)
    ask = "我们的后端服务部署在哪里？"  # where do we deploy the backend?
    assert facade.search(ask, scopes=None, mode="keyword", count_recall=False) == []
    assert search(qtbot, window, ask) >= 1
    assert titles(window)[0] == "Deploy target"


def test_the_first_keystroke_starts_loading_search_and_a_listing_alone_does_not(
    qtbot: QtBot, home: Path
) -> None:
    """A large store's vectors take seconds to load: they start loading at the first key
    the user types, not after typing pauses; a browser only used to list memories does not
    hold them (hundreds of MB at 100k memories)."""
    from memoryd import embed

    writer = Memoryd()
    model = writer.embedder()  # warm, so record embeds inline
    assert model is not None
    writer.record("fact", "Deploy target", "We deploy the backend to Kubernetes on Google Cloud.")
    facade = Memoryd()  # the tray's own facade: nothing loaded yet
    tag = embed.tag(model)
    ops = Ops(on_error=lambda exc: pytest.fail(str(exc)))
    win = BrowserWindow(facade, ops)
    try:
        with qtbot.waitSignal(win.results_shown, timeout=WAIT_MS):
            win.show()
        assert ops.wait(WAIT_MS)
        assert facade.preloading is None and not facade.store.vectors.loaded(tag, 1)
        win.search_timer.setInterval(60_000)  # the typed search waits: only the keystroke acts
        qtbot.keyClicks(win.search_edit, "K")
        qtbot.waitUntil(lambda: facade.preloading is not None, timeout=WAIT_MS)
        preload = facade.preloading
        assert preload is not None
        preload.join(timeout=60)
        assert facade.store.vectors.loaded(tag, 1)
        win.search_timer.setInterval(0)
        assert search(qtbot, win, "我们的后端服务部署在哪里？") == 1
    finally:
        assert ops.wait(WAIT_MS)
        win.close()
        win.deleteLater()


def test_type_filter(qtbot: QtBot, window: BrowserWindow) -> None:
    with qtbot.waitSignal(window.results_shown, timeout=WAIT_MS) as blocker:
        window.type_combo.setCurrentIndex(window.type_combo.findData("decision"))
    assert blocker.args == [1]
    assert titles(window) == ["Use Postgres"]
    assert window.model.index(0, 1).data() == "Decision"

    assert search(qtbot, window, "wheel") == 0  # the search honours the filter too


def test_state_and_scope_filters(qtbot: QtBot, window: BrowserWindow, facade: Memoryd) -> None:
    with qtbot.waitSignal(window.results_shown, timeout=WAIT_MS) as blocker:
        window.state_combo.setCurrentIndex(window.state_combo.findData("dim"))
    assert blocker.args == [0]
    with qtbot.waitSignal(window.results_shown, timeout=WAIT_MS) as blocker:
        window.state_combo.setCurrentIndex(window.state_combo.findData("alive"))
    assert blocker.args == [3]
    with qtbot.waitSignal(window.results_shown, timeout=WAIT_MS) as blocker:
        window.scope_combo.setCurrentIndex(window.scope_combo.findData(facade.scope().hash))
    assert blocker.args == [3]


def test_the_project_column_and_filter_show_names(
    qtbot: QtBot, window: BrowserWindow, facade: Memoryd, tmp_path: Path
) -> None:
    """Projects by name, not by hash: two folders both called "api" told apart by their
    parents, the folder on hover, in the column and in the filter."""
    work, personal = tmp_path / "work" / "acme" / "api", tmp_path / "personal" / "api"
    for folder, title in ((work, "Use pnpm"), (personal, "Tabs not spaces")):
        folder.mkdir(parents=True)
        facade.record("fact", title, f"{title}, noted.", scope_path=folder)
    with qtbot.waitSignal(window.results_shown, timeout=WAIT_MS):
        window.load()
    column = window.model.COLUMNS.index("project")
    assert window.model.headerData(column, Qt.Orientation.Horizontal) == "Project"
    shown = {
        window.model.index(i, 0).data(): (
            window.model.index(i, column).data(),
            window.model.index(i, column).data(Qt.ItemDataRole.ToolTipRole),
        )
        for i in range(window.model.rowCount())
    }
    assert shown["Use pnpm"] == ("api (work/acme)", str(work.resolve()))
    assert shown["Tabs not spaces"] == ("api (personal)", str(personal.resolve()))
    assert shown["Use Postgres"][0] == tmp_path.name  # the working directory's project
    h = facade.scope(work).hash
    at = window.scope_combo.findData(h)
    assert window.scope_combo.itemText(at) == "api (work/acme) (1)"
    assert window.scope_combo.itemData(at, Qt.ItemDataRole.ToolTipRole) == str(work.resolve())
    assert not any(h in window.scope_combo.itemText(i) for i in range(window.scope_combo.count()))
    with qtbot.waitSignal(window.results_shown, timeout=WAIT_MS) as blocker:
        window.scope_combo.setCurrentIndex(at)
    assert blocker.args == [1] and titles(window) == ["Use pnpm"]


def shown_text(widget: QWidget) -> str:
    """Every text a person can see in `widget` now: visible labels, buttons and text views."""
    parts = []
    for child in [widget, *widget.findChildren(QWidget)]:
        if not child.isVisible():
            continue
        if isinstance(child, (QLabel, QAbstractButton)):
            parts.append(child.text())
        elif isinstance(child, (QTextEdit, QPlainTextEdit)):
            parts.append(child.toPlainText())
    return "\n".join(parts)


def test_detail_pane_shows_a_memory_as_a_person_reads_it(
    qtbot: QtBot, window: BrowserWindow, slugs: dict[str, str], facade: Memoryd, tmp_path: Path
) -> None:
    open_detail(qtbot, window, slugs["port"])
    detail = window.detail
    facts = {key: label.text() for key, label in detail.facts.items()}
    meta = facade.get(slugs["port"], count_recall=False).doc.meta
    assert detail.title.text() == "Dev database port"
    assert facts["type"] == "Fact"
    assert facts["project"] == tmp_path.name  # the working directory's folder, by name
    assert detail.facts["project"].toolTip() == str(tmp_path.resolve())
    assert facts["created"] == local_time(meta.created_at.isoformat()) != ""
    assert facts["triggers"] == "database port"
    assert facts["origin"] == "Recorded directly, not learned from a session"
    assert not detail.facts["updated"].isVisible()  # never changed: the created date says it
    assert detail.body.toPlainText() == "The dev database listens on 5433."

    # The raw frontmatter is there, folded away until asked for.
    seen = shown_text(window)
    assert "scope_hash" not in seen and "dura_score" not in seen and slugs["port"] not in seen
    assert not detail.raw.isVisible() and detail.raw_toggle.text() == "Show raw fields"
    qtbot.mouseClick(detail.raw_toggle, Qt.MouseButton.LeftButton)
    assert detail.raw.isVisible()
    raw = detail.raw.toPlainText().splitlines()
    assert f"scope_hash: {facade.scope().hash}" in raw and f"slug: {slugs['port']}" in raw
    assert "scope_hash" in shown_text(window)

    assert window.history.toPlainText() == "Not part of a supersedes chain."
    assert window.edit_action.isEnabled() and window.forget_action.isEnabled()
    # reading in the browser is not a recall
    assert facade.get(slugs["port"], count_recall=False).doc.meta.recall_count == 0


def test_the_detail_says_which_session_a_memory_was_learned_from(
    qtbot: QtBot, window: BrowserWindow, facade: Memoryd, cli, project: Path, tmp_path: Path
) -> None:
    (pid,) = _promotions(cli, project, tmp_path, PNPM)
    doc, _ = facade.promote(pid)
    (session,) = [r for r in facade.list(scopes=None) if r["type"] == "session"]
    with qtbot.waitSignal(window.results_shown, timeout=WAIT_MS):
        window.load()
    open_detail(qtbot, window, doc.meta.slug)
    origin = window.detail.facts["origin"]
    day = project_text.session_day(str(doc.meta.promoted_from), "")
    assert origin.text() == f"Learned from a Claude Code session of {day}"
    assert origin.toolTip() == doc.meta.promoted_from == session["slug"]
    assert window.detail.facts["project"].text() == "proj"

    open_detail(qtbot, window, session["slug"])
    assert origin.text() == "A Claude Code session, captured as it happened"
    assert window.detail.facts["type"].text() == "Session"


def test_nothing_selected_says_where_a_memory_will_show(window: BrowserWindow) -> None:
    assert window.detail.empty.isVisible() and not window.detail.content.isVisible()
    assert window.detail.empty.text() == "Select a memory to read it here."


def test_the_body_is_rendered_from_markdown(qtbot: QtBot, window: BrowserWindow, facade: Memoryd) -> None:
    body = "# Release steps\n\n1. Tag the **release**\n2. Build the `wheel`\n\nSee [the docs](https://example.org).\n"
    doc, _ = facade.record("playbook", "How to release", body)
    with qtbot.waitSignal(window.results_shown, timeout=WAIT_MS):
        window.load()
    open_detail(qtbot, window, doc.meta.slug)
    rendered = window.detail.body.document()
    text = rendered.toPlainText()
    assert "Release steps" in text and "Tag the release" in text and "See the docs." in text
    assert "#" not in text and "**" not in text and "`" not in text
    assert rendered.firstBlock().blockFormat().headingLevel() == 1
    assert rendered.toHtml().count("font-weight:700") >= 2  # the heading and **release**
    assert 'href="https://example.org"' in rendered.toHtml()


class _Probe(BaseHTTPRequestHandler):
    """A real web server that records every request a hostile body might make."""

    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.end_headers()
        self.wfile.write(PNG_1PX)

    def log_message(self, format: str, *args: object) -> None:
        del format, args


PNG_1PX = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6300010000000500010d0a2db40000000049454e44ae426082"
)


@pytest.fixture
def probe() -> Iterator[str]:
    _Probe.hits = []
    server = HTTPServer(("127.0.0.1", 0), _Probe)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_hostile_body_loads_and_runs_nothing(
    qtbot: QtBot, window: BrowserWindow, facade: Memoryd, probe: str, tmp_path: Path
) -> None:
    """A body is untrusted text: HTML shows as typed, images (remote or local) are never
    loaded, and nothing reaches the network."""
    local = tmp_path / "local.png"
    local.write_bytes(PNG_1PX)
    body = (
        f"Hello <img src={probe}/html.png> and <script>alert(1)</script>\n\n"
        f'<iframe src="{probe}/frame"></iframe>\n\n'
        f"![remote]({probe}/markdown.png) ![local]({local})\n\n"
        f"<b>bold?</b> [link]({probe}/link)\n"
    )
    doc, _ = facade.record("fact", "Hostile body", body)
    with qtbot.waitSignal(window.results_shown, timeout=WAIT_MS):
        window.load()
    open_detail(qtbot, window, doc.meta.slug)
    window.detail.body.viewport().grab()  # lay out and paint what is shown
    qtbot.wait(300)
    assert _Probe.hits == []

    rendered = window.detail.body.document()
    text = rendered.toPlainText()
    assert f"<img src={probe}/html.png>" in text and "<script>alert(1)</script>" in text
    assert "<b>bold?</b>" in text and "<iframe" in text
    assert "[image: remote]" in text and "[image: local]" in text
    assert "<img" not in rendered.toHtml().replace("&lt;img", "")  # no image element is left
    assert "<script" not in rendered.toHtml()


def _cell_has_mark(window: BrowserWindow, row: int) -> bool:
    """Whether the title cell of `row`, as painted, shows the highlight colour."""
    window.table.scrollTo(window.model.index(row, 0))
    rect = window.table.visualRect(window.model.index(row, 0))
    image = window.table.viewport().grab(rect).toImage()
    mark = QColor(highlight.MARK_BACKGROUND).rgb()
    return any(image.pixel(x, y) == mark for x in range(image.width()) for y in range(image.height()))


def test_search_terms_are_highlighted_in_results_and_body(
    qtbot: QtBot, window: BrowserWindow, slugs: dict[str, str], facade: Memoryd
) -> None:
    assert search(qtbot, window, "POSTGRES") >= 1
    row = window.model.row_of(slugs["pg"])
    assert window.highlighter.terms == ["postgres"]
    assert highlight.spans(window.model.rows[row]["title"], window.highlighter.terms) == [(4, 12)]
    assert _cell_has_mark(window, row)
    other = window.model.row_of(slugs["release"])
    assert other < 0 or not _cell_has_mark(window, other)  # no match, no mark

    open_detail(qtbot, window, slugs["pg"])
    body = window.detail.body
    assert body.marks == 1  # "We chose Postgres over MySQL for JSONB."
    marked = _marked_text(body.document())
    assert marked == ["Postgres"] * body.marks

    # In Chinese too: the Han words of the query, inside longer Han text.
    doc, _ = facade.record("fact", "开发数据库端口", "开发环境的数据库监听 5433 端口。")
    assert search(qtbot, window, "数据库") >= 1
    row = window.model.row_of(doc.meta.slug)
    assert highlight.spans("开发数据库端口", window.highlighter.terms) == [(2, 5)]
    assert _cell_has_mark(window, row)
    open_detail(qtbot, window, doc.meta.slug)
    assert _marked_text(window.detail.body.document()) == ["数据库"]

    assert search(qtbot, window, "") == 4  # a plain listing marks nothing
    assert window.highlighter.terms == [] and not _cell_has_mark(window, window.model.row_of(slugs["pg"]))


def _marked_text(doc: QTextDocument) -> list[str]:
    out = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().background().color() == QColor(highlight.MARK_BACKGROUND):
                out.append(fragment.text())
            it += 1
        block = block.next()
    return out


def test_highlighting_escapes_user_text() -> None:
    shown = highlight.rich_text("<b>Use</b> Postgres & <img src=x>", ["postgres", "img"])
    doc = QTextDocument()
    doc.setHtml(shown)
    assert doc.toPlainText() == "<b>Use</b> Postgres & <img src=x>"
    assert shown.count("background-color") == 2


def test_supersedes_chain_is_listed(
    qtbot: QtBot, window: BrowserWindow, slugs: dict[str, str], facade: Memoryd
) -> None:
    newer, _ = facade.record("fact", "Dev database port moved", "The dev database now listens on 5434.")
    facade.link_supersede(newer.meta.slug, slugs["port"])
    with qtbot.waitSignal(window.results_shown, timeout=WAIT_MS):
        window.load()

    open_detail(qtbot, window, slugs["port"])

    lines = window.history.toPlainText().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("▶") and "Dev database port" in lines[0]
    assert f"→ replaced by {newer.meta.slug}" in lines[0]
    assert "Dev database port moved" in lines[1] and newer.meta.slug in lines[1]


def test_record_through_the_dialog(
    qtbot: QtBot, window: BrowserWindow, facade: Memoryd, tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    dialog = window.open_record()
    assert isinstance(dialog, MemoryDialog) and window.dialog is dialog and dialog.isVisible()
    assert not dialog.ok_button.isEnabled()
    dialog.type_combo.setCurrentIndex(dialog.type_combo.findData("warning"))
    dialog.title_edit.setText("Never force-push main")
    dialog.body_edit.setPlainText("CI deploys from main; a force-push breaks the release tags.")
    dialog.triggers_edit.setText("force push, git push -f, force push")
    dialog.folder.setText(str(project))
    assert dialog.ok_button.isEnabled()

    with qtbot.waitSignal(window.detail_shown, timeout=WAIT_MS) as shown:
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    slug = shown.args[0]

    view = facade.get(slug, count_recall=False)
    assert view.path.is_file()
    assert view.doc.meta.title == "Never force-push main"
    assert view.doc.meta.type.value == "warning"
    assert view.doc.meta.triggers == ["force push", "git push -f"]
    assert view.doc.meta.scope_hash == facade.scope(project).hash
    assert window.status.text() == "Recorded: Never force-push main"
    assert "Never force-push main" in titles(window)
    assert window.scope_combo.findData(facade.scope(project).hash) > 0
    (event,) = facade.audit_events(event_type="record")[-1:]
    assert event.actor == "tray" and event.target_id == slug

    # The same text again (issue 21): the memory already there is shown, no copy is made.
    recorded = len(facade.audit_events(event_type="record"))
    again = window.open_record()
    again.type_combo.setCurrentIndex(again.type_combo.findData("warning"))
    again.title_edit.setText("Never force-push main")
    again.body_edit.setPlainText("CI deploys from main; a force-push breaks the release tags.")
    again.folder.setText(str(project))
    with qtbot.waitSignal(window.detail_shown, timeout=WAIT_MS) as shown:
        qtbot.mouseClick(again.ok_button, Qt.MouseButton.LeftButton)
    assert shown.args[0] == slug
    assert window.status.text() == "Already recorded: Never force-push main"
    assert len(facade.audit_events(event_type="record")) == recorded
    assert titles(window).count("Never force-push main") == 1


def test_edit_through_the_dialog(
    qtbot: QtBot, window: BrowserWindow, slugs: dict[str, str], facade: Memoryd
) -> None:
    open_detail(qtbot, window, slugs["port"])
    dialog = window.open_edit()
    assert dialog is not None
    assert dialog.title_edit.text() == "Dev database port"
    assert not dialog.type_combo.isEnabled()
    dialog.body_edit.setPlainText("The dev database listens on 6543 since the upgrade.")
    dialog.triggers_edit.setText("database port, postgres port")

    with qtbot.waitSignal(window.changed, timeout=WAIT_MS) as changed:
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert slugs["port"] in changed.args[0].updated

    doc = facade.get(slugs["port"], count_recall=False).doc
    assert doc.body == "The dev database listens on 6543 since the upgrade.\n"
    assert doc.meta.triggers == ["database port", "postgres port"]
    qtbot.waitUntil(lambda: "6543" in window.detail.toPlainText(), timeout=WAIT_MS)
    event = facade.audit_events(event_type="update")[-1]
    assert event.actor == "tray" and event.target_id == slugs["port"]


def test_forget_asks_first(
    qtbot: QtBot, window: BrowserWindow, slugs: dict[str, str], facade: Memoryd
) -> None:
    open_detail(qtbot, window, slugs["pg"])

    box = window.ask_forget()
    assert isinstance(box, QMessageBox) and "Use Postgres" in box.text()
    assert box.textFormat() is Qt.TextFormat.PlainText  # a title is never rendered as markup
    cancel = box.button(QMessageBox.StandardButton.Cancel)
    with qtbot.assertNotEmitted(window.changed, wait=100):
        qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton)
    assert "Use Postgres" in titles(window)

    box = window.ask_forget()
    assert box is not None
    (forget,) = [b for b in box.buttons() if box.buttonRole(b) is QMessageBox.ButtonRole.DestructiveRole]
    with qtbot.waitSignals([window.changed, window.results_shown], timeout=WAIT_MS, order="strict"):
        qtbot.mouseClick(forget, Qt.MouseButton.LeftButton)

    assert sorted(titles(window)) == ["Dev database port", "Release"]
    assert window.detail.toPlainText() == ""
    assert all(r["slug"] != slugs["pg"] for r in facade.list(scopes=None, include_forgotten=True))
    (archived,) = facade.layout.home.glob(f"scopes/*/forgotten/{slugs['pg']}.md")
    assert "decay_state: forgotten" in archived.read_text(encoding="utf-8")
    (event,) = facade.audit_events(event_type="forget")
    assert event.actor == "tray" and event.target_id == slugs["pg"]
    assert event.details_obj["from_state"] == "alive"


def test_merge_two_into_one(qtbot: QtBot, window: BrowserWindow, facade: Memoryd) -> None:
    a, _ = facade.record("preference", "Tabs", "Indent with tabs.", triggers=["indent"])
    b, _ = facade.record("preference", "Tabs please", "Use tabs to indent.", triggers=["tabs"])
    with qtbot.waitSignal(window.results_shown, timeout=WAIT_MS):
        window.load()
    window.select(a.meta.slug, b.meta.slug)
    assert window.selected_slugs() == sorted([a.meta.slug, b.meta.slug], key=window.model.row_of)
    assert window.merge_action.isEnabled() and not window.forget_action.isEnabled()

    dialog = window.open_merge()
    assert isinstance(dialog, MergeDialog)
    dialog.keep_combo.setCurrentIndex(dialog.keep_combo.findData(a.meta.slug))
    assert dialog.drop() == [b.meta.slug]
    assert not dialog.across_scopes.isVisibleTo(dialog)
    with qtbot.waitSignals([window.changed, window.results_shown], timeout=WAIT_MS, order="strict"):
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)

    left = [r for r in facade.list(scopes=None, memory_type="preference")]
    assert [r["slug"] for r in left] == [a.meta.slug]
    assert facade.get(a.meta.slug, count_recall=False).doc.meta.triggers == ["indent", "tabs"]
    assert titles(window).count("Tabs") == 1 and "Tabs please" not in titles(window)
    assert window.status.text() == "Merged 1 into Tabs."
    (event,) = facade.audit_events(event_type="merge")
    assert event.actor == "tray" and event.target_id == b.meta.slug


def _started(window: BrowserWindow) -> list[LongTask]:
    started: list[LongTask] = []
    window.task_started.connect(started.append)
    return started


def test_reindex_reports_progress(qtbot: QtBot, window: BrowserWindow, facade: Memoryd) -> None:
    started = _started(window)
    seen: list[tuple[int, int]] = []
    window.task_started.connect(lambda task: task.progress.connect(lambda d, t: seen.append((d, t))))

    with qtbot.waitSignal(window.results_shown, timeout=WAIT_MS):  # the rows are read again
        task = window.reindex()
        assert started == [task] and task.running
        assert window.progress_panel.isVisibleTo(window) and not window.reindex_action.isEnabled()

    assert seen[0] == (1, 3) and seen[-1] == (3, 3)
    assert window.status.text() == "Reindexed 3 of 3 files; skipped 0."
    assert not window.progress_panel.isVisibleTo(window) and window.reindex_action.isEnabled()
    (event,) = facade.audit_events(event_type="reindex")
    assert event.actor == "tray"


def test_reindex_cancelled_leaves_the_index_as_it_was(
    qtbot: QtBot, window: BrowserWindow, facade: Memoryd
) -> None:
    raised: list[BaseException] = []

    def cancel_at_first_report(task: LongTask) -> None:
        # Direct: runs on the worker at the first report, so the second one raises Cancelled.
        task.progress.connect(lambda _d, _t: task.cancel(), Qt.ConnectionType.DirectConnection)
        real = task.report

        def report(done: int, total: int) -> None:
            try:
                real(done, total)
            except BaseException as exc:
                raised.append(exc)
                raise

        task.report = report  # type: ignore[method-assign]

    window.task_started.connect(cancel_at_first_report)
    with qtbot.waitSignal(window.results_shown, timeout=WAIT_MS):  # read again after the cancel
        task = window.reindex()
    assert not task.running
    assert [type(e).__name__ for e in raised] == ["Cancelled"]
    assert window.status.text() == "Reindex cancelled: the index is as it was."
    assert facade.audit_events(event_type="reindex") == []

    assert search(qtbot, window, "wheel") == 1
    # hybrid search may also bring the database port memory, close in meaning
    assert search(qtbot, window, "postgres") >= 1 and titles(window)[0] == "Use Postgres"
    assert len(facade.list(scopes=None)) == 3


def test_a_sensitive_scope_needs_a_grant(
    qtbot: QtBot, window: BrowserWindow, facade: Memoryd, tmp_path: Path
) -> None:
    secret = tmp_path / "secret"
    secret.mkdir()
    facade.record("fact", "Vault token place", "Kept under the desk.", scope_path=secret)
    with qtbot.waitSignal(window.results_shown, timeout=WAIT_MS):
        task = window.mark_sensitive(str(secret), PASSPHRASE)
    assert task is not None
    assert window.status.text().startswith(f"{secret} is sensitive now: 1 memories encrypted.")

    (row,) = [r for r in window.model.rows if r["scope_sensitive"]]
    assert row["title"] == "(sensitive: grant to read)"
    # Its folder's name is withheld too, without a grant (docs/security.md, "Project names").
    at = window.model.row_of(row["slug"])
    h = facade.scope(secret).hash
    assert window.model.index(at, window.model.COLUMNS.index("project")).data() == f"sensitive project {h}"
    with (
        qtbot.assertNotEmitted(window.grant_needed),  # a read never asks by itself
        qtbot.waitSignal(window.failed, timeout=WAIT_MS) as blocker,
    ):
        window.select(row["slug"])
    (text,) = blocker.args
    # the project by its name, in words (core's sentence names the hash and a command line)
    assert text == "\u201csecret\u201d is a sensitive project: grant access to read it."
    assert window.status.text() == text
    assert window.grant_button.isVisible()  # the user may ask for the grant from here
    assert window.detail.toPlainText() == ""
    assert not window.edit_action.isEnabled()
    with qtbot.waitSignal(window.grant_needed, timeout=WAIT_MS) as asked:
        qtbot.mouseClick(window.grant_button, Qt.MouseButton.LeftButton)
    assert asked.args == [text]

    assert search(qtbot, window, "desk") == 0
    # by its folder's name, as the grant prompt names it; the whole path on hover
    assert window.status.text() == "Sensitive projects not searched without a grant: 1 in secret"
    assert window.status.toolTip() == str(secret)
    assert window.grant_button.isVisible()
    assert search(qtbot, window, "") == 4  # the plain listing withholds nothing: no Grant…
    assert not window.grant_button.isVisible()


def test_the_tool_dialogs_check_their_input(qtbot: QtBot, window: BrowserWindow, tmp_path: Path) -> None:
    dialog = window.open_import()
    assert isinstance(dialog, ImportDialog)
    assert dialog.ok_button.isEnabled()  # codex: ~/.codex when no folder is given
    dialog.kind_combo.setCurrentIndex(dialog.kind_combo.findData("memory-system"))
    assert not dialog.ok_button.isEnabled()
    dialog.folder.setText(str(tmp_path))
    assert not dialog.ok_button.isEnabled()  # it also needs the project to file into
    dialog.scope.setText(str(tmp_path))
    assert dialog.ok_button.isEnabled()
    dialog.reject()

    dialog = window.open_import()  # a folder field shows its hint whole
    qtbot.waitUntil(dialog.isVisible)
    for field in (dialog.folder, dialog.scope):
        hint = field.edit.placeholderText()
        assert field.edit.fontMetrics().horizontalAdvance(hint) < field.edit.contentsRect().width(), hint
    dialog.reject()

    mark = window.open_mark_sensitive()
    assert isinstance(mark, MarkSensitiveDialog)
    assert not mark.ok_button.isEnabled()
    mark.folder.setText(str(tmp_path))
    assert mark.ok_button.isEnabled() and mark.chosen_passphrase() is None
    mark.passphrase.setText("one")
    assert not mark.ok_button.isEnabled()
    mark.repeat.setText("one")
    assert mark.ok_button.isEnabled() and mark.chosen_passphrase() == "one"
    mark.reject()


# -- regressions --------------------------------------------------------------------------
def test_an_edit_keeps_what_the_cli_changed_meanwhile(
    qtbot: QtBot, window: BrowserWindow, slugs: dict[str, str], facade: Memoryd
) -> None:
    """The CLI changes the body of the memory on screen; after a refresh the pane shows the
    change, and an edit of the triggers alone sends the triggers alone."""
    slug = slugs["port"]
    open_detail(qtbot, window, slug)
    Memoryd().update(slug, body="The dev database listens on 6000 since March.", actor="cli")

    with qtbot.waitSignal(window.detail_shown, timeout=WAIT_MS, check_params_cb=lambda s: s == slug):
        window.refresh()  # F5: the selected memory is read again, not only the rows
    assert "6000 since March" in window.detail.toPlainText()

    dialog = window.open_edit()
    assert dialog is not None and "6000 since March" in dialog.body_edit.toPlainText()
    dialog.triggers_edit.setText("database port, dev port")
    # Meanwhile the CLI changes the body again; the dialog's copy is now stale.
    Memoryd().update(slug, body="The dev database listens on 7000 since April.", actor="cli")
    with qtbot.waitSignal(window.changed, timeout=WAIT_MS):
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)

    doc = facade.get(slug, count_recall=False).doc
    assert doc.body == "The dev database listens on 7000 since April.\n"  # the CLI's change stays
    assert doc.meta.triggers == ["database port", "dev port"]
    assert facade.audit_events(event_type="update")[-1].details_obj["fields"] == ["triggers"]
    qtbot.waitUntil(lambda: "7000 since April" in window.detail.toPlainText(), timeout=WAIT_MS)


def test_an_edit_without_changes_sends_nothing(
    qtbot: QtBot, window: BrowserWindow, slugs: dict[str, str], facade: Memoryd
) -> None:
    open_detail(qtbot, window, slugs["port"])
    dialog = window.open_edit()
    assert dialog is not None and dialog.edits() == {}
    with qtbot.assertNotEmitted(window.changed, wait=200):
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert window.status.text() == "Nothing changed."
    assert facade.audit_events(event_type="update") == []


def test_sorting_keeps_the_selection_on_its_memory(
    qtbot: QtBot, window: BrowserWindow, slugs: dict[str, str]
) -> None:
    open_detail(qtbot, window, slugs["port"])  # "Dev database port"
    window._sort_by(0)
    assert titles(window) == ["Dev database port", "Release", "Use Postgres"]
    window._sort_by(0)  # the same header again: descending
    assert titles(window) == ["Use Postgres", "Release", "Dev database port"]

    assert window.selected_slugs() == [slugs["port"]]
    assert window.table.currentIndex().row() == 2
    assert window.view is not None and window.view.doc.meta.slug == slugs["port"]
    assert window.edit_action.isEnabled() and window.forget_action.isEnabled()
    box = window.ask_forget()
    assert box is not None and "Dev database port" in box.text()  # the memory on screen
    box.reject()


def test_forget_confirmation_defaults_to_cancel(
    qtbot: QtBot, window: BrowserWindow, slugs: dict[str, str], facade: Memoryd
) -> None:
    """Del then Enter must not forget: Cancel is the default and the escape button."""
    open_detail(qtbot, window, slugs["pg"])
    box = window.ask_forget()
    assert box is not None
    cancel = box.button(QMessageBox.StandardButton.Cancel)
    assert box.defaultButton() is cancel and box.escapeButton() is cancel
    with qtbot.assertNotEmitted(window.changed, wait=200):
        qtbot.keyClick(box, Qt.Key.Key_Return)
    assert window.dialog is None  # Enter answered Cancel and closed the question
    assert "Use Postgres" in titles(window)
    assert facade.get(slugs["pg"], count_recall=False).doc.meta.title == "Use Postgres"


def test_triggers_and_tags_split_on_chinese_commas(qtbot: QtBot, window: BrowserWindow) -> None:
    dialog = window.open_record()
    dialog.triggers_edit.setText("数据库，迁移、备份")
    dialog.tags_edit.setText("运维；数据库, ops")
    draft = dialog.draft()
    assert draft.triggers == ["数据库", "迁移", "备份"]
    assert draft.tags == ["运维", "数据库", "ops"]
    dialog.reject()


def test_sealed_rows_open_no_window_until_grant_is_clicked(
    qtbot: QtBot, facade: Memoryd, tmp_path: Path
) -> None:
    """Moving over memories of a sensitive scope without a grant shows why in the status
    line; only a click on Grant… opens the Sensitive projects window."""
    secret = tmp_path / "secret"
    secret.mkdir()
    for i in range(3):
        facade.record("fact", f"Secret {i}", f"Secret body {i}.", scope_path=secret)
    facade.record("fact", "Public", "Open body.")
    facade.mark_sensitive(secret, passphrase=PASSPHRASE)
    assert facade.grants() == []

    errors: list[BaseException] = []
    windows = Windows(facade, Ops(on_error=errors.append))
    opened: list[Action] = []
    windows.opened.connect(lambda action, _window: opened.append(action))
    browser = windows.get(Action.SEARCH)
    assert isinstance(browser, BrowserWindow)
    try:
        with qtbot.waitSignal(browser.results_shown, timeout=WAIT_MS):
            windows.open(Action.SEARCH)
        sealed = [r["slug"] for r in browser.model.rows if r["scope_sensitive"]]
        assert len(sealed) == 3
        with qtbot.assertNotEmitted(browser.grant_needed):
            for slug in sealed:
                with qtbot.waitSignal(browser.failed, timeout=WAIT_MS):
                    browser.select(slug)
        assert opened == [Action.SEARCH]
        assert Action.SCOPES not in windows.made
        assert browser.grant_button.isVisible() and "sensitive project" in browser.status.text()

        qtbot.mouseClick(browser.grant_button, Qt.MouseButton.LeftButton)
        assert opened == [Action.SEARCH, Action.SCOPES]
        assert windows.made[Action.SCOPES].isVisible()

        # Closed and opened again, the browser reads the rows again.
        browser.close()
        facade.record("fact", "Recorded while closed", "New body.")
        with qtbot.waitSignal(browser.results_shown, timeout=WAIT_MS) as shown:
            windows.open(Action.SEARCH)
        assert shown.args == [5]
    finally:
        assert windows.ops.wait(WAIT_MS)
        qtbot.waitUntil(lambda: not windows.ops.busy, timeout=WAIT_MS)
        windows.close_all()
        for made in windows.made.values():
            made.deleteLater()
    assert errors == []


BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f"


def test_hidden_bidi_controls_show_as_escapes_not_reversed_text(
    qtbot: QtBot, window: BrowserWindow, facade: Memoryd, home: Path
) -> None:
    """Core strips bidi controls from what it writes, but a memory file edited by hand or
    synced in keeps them: "Invoice \\u202efdp.exe" must not read "Invoice exe.pdf"."""
    doc, _ = facade.record("fact", "Invoice pdf", "Pay the invoice.", triggers=["invoice"])
    path = next(home.rglob(f"{doc.meta.slug}.md"))
    text = path.read_text(encoding="utf-8")
    text = text.replace("Invoice pdf", "Invoice \u202efdp.exe").replace(
        "Pay the invoice.", "Pay \u2067the\u2069 \u202eevil\u202c invoice \u200f."
    )
    path.write_text(text.replace("- invoice", "- \u202dinvoice"), encoding="utf-8")
    facade.reindex()
    with qtbot.waitSignal(window.results_shown, timeout=WAIT_MS):
        window.load()
    row = window.model.row_of(doc.meta.slug)
    cell = window.model.index(row, 0)
    assert cell.data() == "Invoice \\u202efdp.exe"
    assert not set(BIDI) & set(cell.data(Qt.ItemDataRole.ToolTipRole))
    open_detail(qtbot, window, doc.meta.slug)
    detail = window.detail
    assert detail.title.text() == "Invoice \\u202efdp.exe"
    assert detail.facts["triggers"].text() == "\\u202dinvoice"
    assert detail.body.toPlainText() == "Pay \\u2067the\\u2069 \\u202eevil\\u202c invoice \\u200f."
    qtbot.mouseClick(detail.raw_toggle, Qt.MouseButton.LeftButton)
    seen = shown_text(window) + window.history.toPlainText()
    assert "\\u202e" in seen and not set(BIDI) & set(seen)


def test_a_folder_named_like_html_shows_as_written_in_tooltips(
    qtbot: QtBot, window: BrowserWindow, facade: Memoryd, tmp_path: Path
) -> None:
    """Qt renders a tooltip that looks like HTML as rich text: a folder called
    `<img src=x>` must read as its name on hover, not load an image."""
    folder = tmp_path / "<img src=x>" / "<b>loud"
    folder.mkdir(parents=True)
    facade.record("fact", "Odd folder", "Named like markup.", scope_path=folder)
    with qtbot.waitSignal(window.results_shown, timeout=WAIT_MS):
        window.load()
    column = window.model.COLUMNS.index("project")
    row = next(i for i in range(window.model.rowCount()) if window.model.index(i, 0).data() == "Odd folder")
    at = window.scope_combo.findData(facade.scope(folder).hash)
    for tip in (
        window.model.index(row, column).data(Qt.ItemDataRole.ToolTipRole),
        window.scope_combo.itemData(at, Qt.ItemDataRole.ToolTipRole),
    ):
        assert "<img" not in tip and "<b>" not in tip, tip
        doc = QTextDocument()
        doc.setHtml(tip)
        assert doc.toPlainText() == str(folder.resolve()), tip


@pytest.fixture(params=["en", "zh_CN"])
def language(request: pytest.FixtureRequest, qapp: QApplication) -> Iterator[str]:
    """The browser's language for one test: English, or zh_CN installed and removed after."""
    installed = i18n.install(qapp, QLocale("zh_CN")) if request.param == "zh_CN" else []
    yield str(request.param)
    for translator in installed:
        qapp.removeTranslator(translator)


def test_columns_fit_their_text_in_both_languages(
    qtbot: QtBot, language: str, facade: Memoryd, slugs: dict[str, str]
) -> None:
    """The title takes the room (never ~70 px), and no header or date is cut, in English
    and in Chinese."""
    folder = Path.cwd() / "a-project-with-a-rather-long-name-for-its-folder"
    folder.mkdir()
    facade.record("fact", "A long title " * 8, "Long.", scope_path=folder)
    ops = Ops(on_error=lambda exc: pytest.fail(f"unrouted error: {exc}"))
    win = BrowserWindow(facade, ops)
    try:
        with qtbot.waitSignal(win.results_shown, timeout=WAIT_MS):
            win.show()
        qtbot.waitExposed(win)
        header = win.table.horizontalHeader()
        headers = [win.model.headerData(c, Qt.Orientation.Horizontal) for c in range(win.model.columnCount())]
        assert (headers[0] == "标题") == (language == "zh_CN")  # the catalogue is in use
        metrics = QFontMetrics(header.font())
        style = win.table.style()
        room = 2 * style.pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header)
        for column, text in enumerate(headers):
            assert header.sectionSize(column) >= metrics.horizontalAdvance(text) + room, (language, text)
        cells = QFontMetrics(win.table.font())
        room = 2 * (style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, win.table) + 1)
        project = win.model.COLUMNS.index("project")
        for column in range(1, win.model.columnCount()):
            if column == project:
                continue  # elided at a cap; the folder is on hover
            for row in range(win.model.rowCount()):
                text = str(win.model.index(row, column).data())
                assert header.sectionSize(column) >= cells.horizontalAdvance(text) + room, (language, text)
        assert header.sectionSize(0) >= TITLE_MIN_PX
        assert header.sectionSize(project) <= PROJECT_MAX_PX
        win.resize(700, 500)  # a small window keeps the title's room: the detail pane gives way
        qtbot.waitUntil(lambda: win.table.width() >= TITLE_MIN_PX, timeout=WAIT_MS)
        assert header.sectionSize(0) >= TITLE_MIN_PX
    finally:
        assert ops.wait(WAIT_MS)
        qtbot.waitUntil(lambda: not ops.busy, timeout=WAIT_MS)
        win.close()
        win.deleteLater()
