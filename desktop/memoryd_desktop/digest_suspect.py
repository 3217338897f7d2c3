"""The digest window's Suspect tab: memories whose text reads as aimed at an AI (hidden
characters, instructions to an agent), kept from agents until the person clears or forgets
them. The pane shows why each was flagged and its text, and owns the two buttons.

Everything from the memory is shown as plain text (labels in PlainText format, a plain
text editor for the body, the slug as the list's tooltip): attack text may carry markup,
and Qt renders rich text wherever it guesses it.

Core words the reasons in English with a fixed shape, "<where>: <kind>" (memoryd.suspect_doc,
memoryd.poison); `reason_text` words the known parts in the user's language and keeps
anything it does not know as it came.
"""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from memoryd_desktop import digest_model as dm
from memoryd_desktop import project_text
from memoryd_desktop.memory_detail import AGENTS

translate = QCoreApplication.translate  # the bare name lupdate recognises

_TURN = re.compile(r"turn (\d+) \(([^)]*)\)")
_MORE = re.compile(r"and (\d+) more")
_REMOVED = re.compile(r"(.+) \((\d+) removed\)")
HIDDEN = "hidden characters: "
NESTED = {"in the hidden text, ": "hidden", "in base64, ": "base64"}


def _where(where: str) -> str:
    """Which part of the memory: title, body, a captured turn, ..."""
    parts = {
        "title": translate("DigestWindow", "title"),
        "body": translate("DigestWindow", "body"),
        "triggers": translate("DigestWindow", "triggers"),
        "tags": translate("DigestWindow", "tags"),
        "category": translate("DigestWindow", "category"),
        "title and body": translate("DigestWindow", "title and body"),
    }
    if where in parts:
        return parts[where]
    turn = _TURN.fullmatch(where)
    if turn is None:
        return where
    roles = {
        "user": translate("DigestWindow", "user"),
        "assistant": translate("DigestWindow", "assistant"),
        "tool": translate("DigestWindow", "tool"),
    }
    return translate("DigestWindow", "turn {number} ({role})").format(
        number=turn.group(1), role=roles.get(turn.group(2), turn.group(2))
    )


def _hidden(kind: str) -> str:
    """A kind of hidden character (memoryd.poison's counts)."""
    names = {
        "bidi override": translate("DigestWindow", "bidi override"),
        "unbalanced bidi isolate": translate("DigestWindow", "unbalanced bidi isolate"),
        "bidi isolate across lines": translate("DigestWindow", "bidi isolate across lines"),
        "zero-width joiner inside a word": translate("DigestWindow", "zero-width joiner inside a word"),
        "zero-width characters": translate("DigestWindow", "zero-width characters"),
        "zero-width characters inside words": translate("DigestWindow", "zero-width characters inside words"),
        "deprecated format character": translate("DigestWindow", "deprecated format character"),
        "tag characters": translate("DigestWindow", "tag characters"),
        "variation selectors": translate("DigestWindow", "variation selectors"),
    }
    removed = _REMOVED.fullmatch(kind)
    if removed is None:
        return translate("DigestWindow", "hidden characters: {kind}").format(kind=names.get(kind, kind))
    name = removed.group(1)
    return translate("DigestWindow", "hidden characters: {kind} ({count} removed)").format(
        kind=names.get(name, name), count=removed.group(2)
    )


def kind_text(kind: str) -> str:
    """What was found, in the user's language; an unknown kind as core wrote it."""
    if kind.startswith(HIDDEN):
        return _hidden(kind.removeprefix(HIDDEN))
    for prefix, where in NESTED.items():
        if kind.startswith(prefix):
            inner = kind_text(kind.removeprefix(prefix))
            if where == "hidden":
                return translate("DigestWindow", "in the hidden text: {kind}").format(kind=inner)
            return translate("DigestWindow", "in base64: {kind}").format(kind=inner)
    labels = {  # memoryd.poison's rule labels
        "instructions addressed to an AI": translate("DigestWindow", "instructions addressed to an AI"),
        "claims system or developer authority": translate(
            "DigestWindow", "claims system or developer authority"
        ),
        "chat role markup": translate("DigestWindow", "chat role markup"),
        "fake tool-call markup": translate("DigestWindow", "fake tool-call markup"),
        "addressed to an AI reader": translate("DigestWindow", "addressed to an AI reader"),
        "instructions to a future session": translate("DigestWindow", "instructions to a future session"),
        "speaks for the user": translate("DigestWindow", "speaks for the user"),
        "asks to act without telling the user": translate(
            "DigestWindow", "asks to act without telling the user"
        ),
        "asks to act secretly": translate("DigestWindow", "asks to act secretly"),
        "asks to send secrets out": translate("DigestWindow", "asks to send secrets out"),
        "asks to reveal secrets": translate("DigestWindow", "asks to reveal secrets"),
        "risky action": translate("DigestWindow", "risky action"),
        "gives an AI a new role": translate("DigestWindow", "gives an AI a new role"),
        "orders an AI": translate("DigestWindow", "orders an AI"),
        "asks to decode and follow hidden text": translate(
            "DigestWindow", "asks to decode and follow hidden text"
        ),
        "hidden in a comment": translate("DigestWindow", "hidden in a comment"),
        "hidden text reads": translate("DigestWindow", "hidden text spells out words"),
    }
    return labels.get(kind, kind)


def source_text(source: str) -> str:
    """Where a memory came from, as a person names it (core stores "manual", agent ids)."""
    if source == "manual":
        return translate("DigestWindow", "recorded directly")
    return AGENTS.get(source, source)


def reason_text(reason: str) -> str:
    """One of core's reasons ("body: instructions addressed to an AI") for the user."""
    more = _MORE.fullmatch(reason)
    if more is not None:
        return translate("DigestWindow", "and {count} more").format(count=more.group(1))
    where, sep, kind = reason.partition(": ")
    if not sep:
        return kind_text(reason)
    return translate("DigestWindow", "{where}: {kind}").format(where=_where(where), kind=kind_text(kind))


def _plain(label: QLabel) -> QLabel:
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class SuspectPane(QWidget):
    """A suspect memory: what it is, why it was flagged, its text, and the two decisions."""

    def __init__(self) -> None:
        super().__init__()
        self.slug: str | None = None
        self.title = _plain(QLabel())
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.meta = _plain(QLabel())
        self.meta.setStyleSheet("color: palette(placeholder-text);")
        explain = QLabel(
            translate(
                "DigestWindow",
                "Its text reads as if written for an AI. Until you decide, agents are not shown "
                "it at start-up, and it is not exported or promoted.",
            )
        )
        explain.setWordWrap(True)
        explain.setTextFormat(Qt.TextFormat.PlainText)
        explain.setStyleSheet("color: palette(placeholder-text);")
        self.reasons = _plain(QLabel())
        reasons_box = QGroupBox(translate("DigestWindow", "Why it was flagged"))
        QVBoxLayout(reasons_box).addWidget(self.reasons)
        self.body = QPlainTextEdit()  # plain text only: never rendered as rich text
        self.body.setReadOnly(True)
        self.clear = QPushButton(translate("DigestWindow", "Not suspicious"))
        self.clear.setToolTip(
            translate("DigestWindow", "You vouch for it: agents may see it again (a in the list)")
        )
        self.forget = QPushButton(translate("DigestWindow", "Forget"))
        self.forget.setToolTip(translate("DigestWindow", "Remove it from memory (r in the list)"))
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.forget)
        row.addWidget(self.clear)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.title, self.meta, explain, reasons_box):
            layout.addWidget(widget)
        layout.addWidget(self.body, 1)
        layout.addLayout(row)

    def show_suspect(self, item: Any) -> None:
        """What the digest says of it; the text follows once read (`show_text`)."""
        if item.slug != self.slug:
            self.body.setPlainText(translate("DigestWindow", "Loading…"))
        self.slug = item.slug
        self.title.setText(item.title)
        self.meta.setText(
            translate(
                "DigestWindow", "{slug} · project {project} · {type} · {source} · created {day}"
            ).format(
                slug=item.slug,
                project=project_text.from_digest(item),
                type=dm.type_label(item.type),
                source=source_text(str(item.source or "")),
                day=dm.day(item.created_at),
            )
        )
        self.reasons.setText("\n".join(f"• {reason_text(r)}" for r in item.reasons))

    def show_text(self, slug: str, text: str) -> None:
        if slug == self.slug:
            self.body.setPlainText(text)

    def set_enabled(self, enabled: bool) -> None:
        for button in (self.clear, self.forget):
            button.setEnabled(enabled)


def forget_question(parent: QWidget, title: str) -> tuple[QMessageBox, QPushButton]:
    """ "Forget this memory?" with Cancel as the default (r then Enter must not forget), and
    the Forget button to compare the answer with. The title is shown as plain text."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setTextFormat(Qt.TextFormat.PlainText)  # the title is the memory's, markup and all
    box.setWindowTitle(translate("DigestWindow", "Forget memory"))
    box.setText(
        translate("DigestWindow", "Forget “{title}”? Agents will no longer recall it.").format(title=title)
    )
    confirm = box.addButton(translate("DigestWindow", "Forget"), QMessageBox.ButtonRole.DestructiveRole)
    cancel = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(cancel)
    box.setEscapeButton(cancel)
    return box, confirm
