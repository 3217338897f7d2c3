"""The tray at idle holds no numpy (issue 22: idle RSS <= 150 MB; numpy is 14 MB of it):
it loads when the tray first searches by vectors, not when it starts."""

from __future__ import annotations

import os
import subprocess
import sys


def test_the_tray_starts_without_numpy() -> None:
    probe = "import sys, memoryd_desktop.main, memoryd_desktop.controller; print('numpy' in sys.modules)"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip() == "False"
