"""Screenshots of every tray window, in English and Simplified Chinese, on a real X display
with a tray host, written as test artifacts (test-artifacts/screenshots/<lang>/, or
$MEMORYD_ARTIFACTS) so a person can look at them after CI.

What is checked here: every window opened with its data and was drawn (a PNG of real size
with more than a handful of colours), and the Chinese shots differ from the English ones
(the translation was applied, not just loaded)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtGui import QImage

from tests.delivery import Desktop
from tests.e2e.demo import seed

ROOT = Path(__file__).resolve().parents[2]
SHOTS = (
    "tray-menu",
    "screen-tray",
    "digest",
    "digest-trends",
    "browser",
    "browser-memory",
    "scopes",
    "identity",
    "identity-diff",
    "settings",
    "grant-prompt",
    "grant-pin",
    "status-window",
    "welcome",
)
DIALOG_SHOTS = (  # tests/e2e/window_shots.py dialog_shots(): each dialog a window opens
    "browser-record",
    "browser-edit",
    "browser-forget",
    "browser-merge",
    "browser-import",
    "browser-mark-sensitive",
    "digest-approve-all",
    "digest-duplicates",
    "digest-merge",
    "digest-suspect",
    "digest-forget",
    "digest-conflicts",
    "digest-versions",
    "scopes-grant",
    "scopes-unmark",
    "settings-tab2",
    "settings-tab3",
    "settings-tab4",
    "settings-tab5",
    "identity-report",
    "identity-report-file",
)


def artifacts() -> Path:
    return Path(os.environ.get("MEMORYD_ARTIFACTS") or ROOT / "test-artifacts") / "screenshots"


def _colours(image: QImage, step: int = 0) -> int:
    step = step or max(1, image.width() // 80)
    xs, ys = range(0, image.width(), step), range(0, image.height(), step)
    return len({image.pixel(x, y) for x in xs for y in ys})


def test_every_window_in_both_languages(desktop: Desktop, cli, tmp_path: Path) -> None:
    seed(cli, tmp_path / "work", tmp_path)
    (Path(os.environ["HOME"]) / ".claude").mkdir(exist_ok=True)  # an agent for the welcome to find
    out = artifacts()
    for language in ("en", "zh_CN"):
        env = {**desktop.env(), "MEMORYD_NOW": os.environ["MEMORYD_NOW"], "TZ": "UTC"}
        proc = subprocess.run(
            [sys.executable, "-m", "tests.e2e.window_shots", str(out / language), language],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=240,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
    for name in SHOTS + DIALOG_SHOTS:
        en, zh = QImage(str(out / "en" / f"{name}.png")), QImage(str(out / "zh_CN" / f"{name}.png"))
        for image, language in ((en, "en"), (zh, "zh_CN")):
            assert not image.isNull(), f"{language}/{name}.png missing"
            assert image.width() >= 150 and image.height() >= 60, (language, name, image.size())
            if name == "screen-tray":  # a bare X root, and trayer's strip at the top with our icon
                image = image.copy(image.width() - 200, 0, 200, 40)
            assert _colours(image, 1 if name == "screen-tray" else 0) > 5, (
                f"{language}/{name}.png looks blank"
            )
        if name != "screen-tray":  # the whole screen differs only by the open menu's words
            assert en != zh, f"{name}: the Chinese screenshot is the English one"
