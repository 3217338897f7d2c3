"""One memory as a person reads it: its title, what it is, the project, dates, triggers,
where it came from, and the body rendered from Markdown; the raw frontmatter (scope hash,
DURA scores, relations) only behind "Show raw fields".

The body is untrusted text (an agent or a session wrote it): it is rendered with raw HTML
off, so `<script>` or `<img src=…>` shows as the characters typed, and Markdown images are
replaced by their text before anything could load them. Nothing is ever fetched or read;
only a click on a web or mail link opens it, in the user's browser.

Why a document of our own: when nothing answers a resource request, QTextDocument reads a
local path itself, on the GUI thread (`![x](/some/fifo)` blocks forever, `![x](/dev/zero)`
fills the memory). So each body is parsed in a fresh InertDocument that is shown by no
widget yet, its images are turned into text there, and only then is it shown; and any
resource asked for anyway, by the document or the widget, is a blank 1x1 image. The
Markdown is parsed by Qt itself, so every image syntax it knows (inline, reference,
angle-bracket) is caught, and code such as `vec![1]` keeps its characters.

Hidden controls (a bidi override that would show "Invoice \\u202efdp.exe" as "Invoice
exe.pdf") are shown as their escapes (memoryd.visible, as the command line shows them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Qt, QUrl, Slot
from PySide6.QtGui import (
    QColor,
    QDesktopServices,
    QFont,
    QImage,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from memoryd.app import MemoryView, Project
from memoryd.visible import clean
from memoryd_desktop import highlight, project_text
from memoryd_desktop.memory_dialogs import type_name
from memoryd_desktop.texts import local_time

translate = QCoreApplication.translate  # the bare name lupdate recognises

MARKDOWN = QTextDocument.MarkdownFeature.MarkdownDialectGitHub | QTextDocument.MarkdownFeature.MarkdownNoHTML
RAW_SKIP = ("body", "path", "turns")  # shown elsewhere, or not frontmatter
AGENTS = {
    "claude-code": "Claude Code",
    "codex": "Codex",
    "codex-rollout": "Codex",
    "openclaw": "OpenClaw",
    "openclaw-fs": "OpenClaw",
}


def raw_lines(view: MemoryView) -> list[str]:
    """`key: value` lines of a memory's frontmatter, empty values left out."""
    out = []
    for key, value in view.as_dict().items():
        if key in RAW_SKIP or value is None or value == [] or value == {}:
            continue
        if isinstance(value, list):
            text = ", ".join(str(v) for v in value)
        elif isinstance(value, dict):
            text = ", ".join(f"{k}={v}" for k, v in value.items())
        else:
            text = str(value)
        out.append(f"{key}: {text}")
    return out


def origin(meta: Any) -> str:
    """Where a memory came from, in words: the session it was learned from, the agent
    whose session it is, or a memory recorded directly."""
    source = str(meta.source or "")
    agent = AGENTS.get(source, source)
    created = meta.created_at.isoformat() if meta.created_at else ""
    if meta.promoted_from:
        day = project_text.session_day(str(meta.promoted_from), created)
        if source in AGENTS:
            return translate("BrowserWindow", "Learned from a {agent} session of {day}").format(
                agent=agent, day=day
            )
        return translate("BrowserWindow", "Learned from the session of {day}").format(day=day)
    if str(getattr(meta.type, "value", meta.type)) == "session":
        return translate("BrowserWindow", "A {agent} session, captured as it happened").format(agent=agent)
    if source == "manual":
        return translate("BrowserWindow", "Recorded directly, not learned from a session")
    return translate("BrowserWindow", "Imported from {source}").format(source=agent)


def blank_image() -> QImage:
    """What every resource request gets: one transparent pixel, so Qt never falls back to
    reading the name as a path."""
    image = QImage(1, 1, QImage.Format.Format_ARGB32)
    image.fill(QColor(0, 0, 0, 0))
    return image


class InertDocument(QTextDocument):
    """A text document that loads nothing: every resource it is asked for is blank."""

    def loadResource(self, kind: int, name: QUrl) -> Any:
        del kind, name
        return blank_image()


class MarkdownBody(QTextBrowser):
    """Rendered Markdown that loads nothing: raw HTML is text, images become their text,
    and only web and mail links open (in the user's browser) when clicked."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._open)
        self.marks = 0  # search matches marked in the shown body
        self.setDocument(InertDocument(self))

    def show_markdown(self, text: str, terms: Sequence[str] = ()) -> None:
        doc = InertDocument(self)  # not shown yet: nothing lays it out or asks for images
        doc.setDefaultFont(self.document().defaultFont())
        doc.setMarkdown(clean(text), MARKDOWN)  # a bidi override shows, never reorders
        _images_as_text(doc)
        self.marks = highlight.mark_document(doc, terms)
        old: QObject = self.document()
        self.setDocument(doc)
        old.deleteLater()

    def loadResource(self, kind: int, name: QUrl) -> Any:
        del kind, name
        return blank_image()

    @Slot(QUrl)
    def _open(self, url: QUrl) -> None:
        if url.scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)


def _images_as_text(doc: QTextDocument) -> None:
    """Each image becomes "[image: alt or address]" in plain characters, so Qt never asks
    for it (a local path would otherwise be read and drawn)."""
    found: list[tuple[int, str]] = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            fmt = fragment.charFormat()
            if fmt.isImageFormat():
                image = fmt.toImageFormat()
                alt = str(image.property(QTextCharFormat.Property.ImageAltText) or "")
                for offset in range(fragment.length()):
                    found.append((fragment.position() + offset, alt or image.name()))
            it += 1
        block = block.next()
    for position, label in reversed(found):  # from the end: earlier positions stay valid
        cursor = QTextCursor(doc)
        cursor.setPosition(position)
        cursor.setPosition(position + 1, QTextCursor.MoveMode.KeepAnchor)
        cursor.insertText(translate("BrowserWindow", "[image: {name}]").format(name=label), QTextCharFormat())


class MemoryDetail(QWidget):
    """The detail pane of the memory browser."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = QFont(self.title.font())
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.title.setFont(font)
        self.facts: dict[str, QLabel] = {}
        self.form = QFormLayout()
        self.form.setContentsMargins(0, 0, 0, 0)
        for key, label in (
            ("type", translate("BrowserWindow", "Type")),
            ("project", translate("Projects", "Project")),
            ("created", translate("BrowserWindow", "Created")),
            ("updated", translate("BrowserWindow", "Updated")),
            ("triggers", translate("BrowserWindow", "Triggers")),
            ("tags", translate("BrowserWindow", "Tags")),
            ("origin", translate("BrowserWindow", "From")),
        ):
            value = QLabel()
            value.setWordWrap(True)
            value.setTextFormat(Qt.TextFormat.PlainText)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.facts[key] = value
            self.form.addRow(label, value)
        self.body = MarkdownBody()
        self.raw_toggle = QToolButton()
        self.raw_toggle.setText(translate("BrowserWindow", "Show raw fields"))
        self.raw_toggle.setCheckable(True)
        self.raw_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.raw_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.raw_toggle.setAutoRaise(True)
        self.raw_toggle.toggled.connect(self._show_raw)
        self.raw = QPlainTextEdit()
        self.raw.setObjectName("raw_fields")  # the file's own keys: tests/e2e/test_zh_strings.py
        self.raw.setReadOnly(True)
        self.raw.setMaximumHeight(160)
        self.raw.hide()
        self.content = QWidget()
        layout = QVBoxLayout(self.content)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addLayout(self.form)
        layout.addWidget(self.body, 1)
        layout.addWidget(self.raw_toggle, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.raw)
        self.empty = QLabel(translate("BrowserWindow", "Select a memory to read it here."))
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet("color: palette(placeholder-text);")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.content, 1)
        outer.addWidget(self.empty, 1)
        self.clear()

    @Slot(bool)
    def _show_raw(self, shown: bool) -> None:
        self.raw.setVisible(shown)
        self.raw_toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)

    def show_memory(self, view: MemoryView, project: Project, terms: Sequence[str] = ()) -> None:
        meta = view.doc.meta
        self.title.setText(clean(meta.title, one_line=True))  # a bidi override shows, never reorders
        self.facts["type"].setText(type_name(str(getattr(meta.type, "value", meta.type))))
        self.facts["project"].setText(clean(project_text.label(project), one_line=True))
        self.facts["project"].setToolTip(project_text.tooltip(project))
        self.facts["created"].setText(local_time(meta.created_at.isoformat() if meta.created_at else None))
        self.facts["updated"].setText(local_time(meta.updated_at.isoformat() if meta.updated_at else None))
        self.facts["triggers"].setText(clean(", ".join(meta.triggers), one_line=True))
        self.facts["tags"].setText(clean(", ".join(meta.tags), one_line=True))
        self.facts["origin"].setText(clean(origin(meta)))
        where = str(meta.promoted_from or meta.session_id or "")
        self.facts["origin"].setToolTip(project_text.plain_tip(where))
        if self.facts["updated"].text() == self.facts["created"].text():
            self.facts["updated"].clear()  # never changed since: one date says it
        for key in ("updated", "triggers", "tags"):
            self.form.setRowVisible(self.facts[key], bool(self.facts[key].text()))
        self.body.show_markdown(view.doc.body, terms)
        self.raw.setPlainText(clean("\n".join(raw_lines(view))))
        self.empty.hide()
        self.content.show()

    def clear(self) -> None:
        self.title.clear()
        for value in self.facts.values():
            value.clear()
            value.setToolTip("")
        self.body.clear()
        self.body.marks = 0
        self.raw.clear()
        self.content.hide()
        self.empty.show()

    def toPlainText(self) -> str:
        """The words a reader sees (title, facts, body; the raw fields only when open)."""
        parts = [self.title.text()]
        parts += [v.text() for v in self.facts.values() if v.text()]
        parts.append(self.body.toPlainText())
        if self.raw_toggle.isChecked():
            parts.append(self.raw.toPlainText())
        return "\n".join(p for p in parts if p)
