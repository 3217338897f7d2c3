"""numpy loads on first use (memoryd.lazynp): a process that opens the store and never
searches by vectors or embeds (the tray at idle, most CLI commands) does not carry it."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
import memoryd.app, memoryd.vectors, memoryd.pooling, memoryd.store.keywords
print("numpy" in sys.modules)
from memoryd.lazynp import np
import memoryd.pooling as pooling
soft, peak = pooling.pooled(np.array([0.1, 0.9, 0.5], dtype=np.float32), np.array([0, 2]))
print("numpy" in sys.modules, [round(float(x), 3) for x in peak])
"""


def test_numpy_is_imported_on_first_use_only() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    before, after = out.stdout.splitlines()
    assert before == "False", "importing the facade and the vector modules imported numpy"
    assert after == "True [0.9, 0.5]"
