"""The memory body as rendered: a hostile body must never make Qt open a file.

Qt's QTextDocument falls back to reading an image's path itself when the widget gives no
resource, on the GUI thread: a FIFO blocks it forever and /dev/zero fills the memory. So
each check runs in a child process under a time limit and a memory cap: a regression fails
the test instead of hanging the run or the machine.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QImage, QTextDocument
from pytestqt.qtbot import QtBot

import memoryd
import memoryd_desktop
from memoryd_desktop.memory_detail import MarkdownBody

CHILD_TIMEOUT_S = 60  # a child that is not done by then hung on a file read
CHILD_MEMORY = 4 * 1024**3  # address space: /dev/zero read whole fails fast, not the machine

CHILD = """
import sys
from PySide6.QtWidgets import QApplication
from memoryd_desktop.memory_detail import MarkdownBody

app = QApplication([])
body = MarkdownBody()
body.resize(500, 400)
body.show()
app.processEvents()
for text in sys.argv[1:]:
    body.show_markdown(text, ["x"])
    body.viewport().grab()  # lay out and paint what is shown
    app.processEvents()
    print("shown:", body.toPlainText().replace("\\n", " "), flush=True)
"""


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY, CHILD_MEMORY))


def _show_in_child(tmp_path: Path, *bodies: str) -> list[str]:
    """What a visible MarkdownBody shows for each body in turn, in a child process."""
    script = tmp_path / "child.py"
    script.write_text(CHILD, encoding="utf-8")
    paths = [str(Path(memoryd.__file__).parent.parent), str(Path(memoryd_desktop.__file__).parent.parent)]
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": os.pathsep.join(paths)}
    try:
        out = subprocess.run(
            [sys.executable, str(script), *bodies],
            env=env,
            capture_output=True,
            text=True,
            timeout=CHILD_TIMEOUT_S,
            preexec_fn=_cap_memory,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"showing {bodies!r} hung for {CHILD_TIMEOUT_S} s (a file was read)")
    assert out.returncode == 0, out.stderr[-2000:]
    return [line.removeprefix("shown: ") for line in out.stdout.splitlines()]


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("first", [True, False], ids=["first shown", "after another"])
def test_an_image_on_a_fifo_never_blocks(tmp_path: Path, fifo: Path, first: bool) -> None:
    hostile = f"Before ![pipe]({fifo}) after ![ref][r]\n\n[r]: {fifo}\n"
    bodies = [hostile] if first else ["An ordinary memory about x.", hostile]
    shown = _show_in_child(tmp_path, *bodies)
    assert shown[-1] == "Before [image: pipe] after [image: ref]"


@pytest.mark.parametrize("first", [True, False], ids=["first shown", "after another"])
def test_an_image_on_dev_zero_never_fills_the_memory(tmp_path: Path, first: bool) -> None:
    hostile = "Zero ![zero](/dev/zero) and ![url](file:///dev/zero) ![](/dev/zero)end"
    bodies = [hostile] if first else ["An ordinary memory about x.", hostile]
    shown = _show_in_child(tmp_path, *bodies)
    assert shown[-1] == "Zero [image: zero] and [image: url] end"  # Qt drops one without alt


def test_no_resource_is_ever_asked_for(qtbot: QtBot, tmp_path: Path, fifo: Path) -> None:
    """The images become text before the body is shown: nothing asks for them at all."""
    asked: list[str] = []

    class Probe(MarkdownBody):
        def loadResource(self, kind: int, name: QUrl) -> object:
            asked.append(name.toString())
            return super().loadResource(kind, name)

    body = Probe()
    qtbot.addWidget(body)
    body.resize(500, 400)
    body.show()
    body.show_markdown("![a](/etc/hostname) ![b](https://example.invalid/b.png)")
    body.viewport().grab()
    assert body.toPlainText() == "[image: a] [image: b]"
    assert asked == []
    assert "<img" not in body.document().toHtml()


def test_a_resource_asked_for_anyway_is_an_empty_image(qtbot: QtBot, fifo: Path) -> None:
    """The second guard: whatever name Qt asks for, the answer is a blank image, so Qt never
    falls back to reading the path itself."""
    body = MarkdownBody()
    qtbot.addWidget(body)
    for name in (str(fifo), "/dev/zero", "file:///etc/passwd", "https://example.invalid/x.png"):
        value = body.loadResource(QTextDocument.ResourceType.ImageResource, QUrl(name))
        assert isinstance(value, QImage) and value.size().width() == 1
        value = body.document().loadResource(QTextDocument.ResourceType.ImageResource, QUrl(name))
        assert isinstance(value, QImage) and value.size().width() == 1
