"""The quick run's cut is read from what pytest measured, setup and teardown included."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import slow_tests

LOG = """
============================= slowest durations ==============================
6.02s call     tests/core/test_a.py::test_long[zh]
3.10s call     tests/core/test_a.py::test_short
1.20s setup    tests/core/test_a.py::test_short
0.50s teardown tests/core/test_b.py::test_quick
(2 durations < 0.005s hidden.  Use -vv to show these durations.)
"""


def test_setup_call_and_teardown_add_up_per_test() -> None:
    times = slow_tests.measured(LOG)
    assert times == {
        "tests/core/test_a.py::test_long[zh]": 6.02,
        "tests/core/test_a.py::test_short": pytest.approx(4.3),
        "tests/core/test_b.py::test_quick": 0.5,
    }


def test_the_list_keeps_what_was_listed_and_adds_what_crossed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    listed = tmp_path / "slow_tests.txt"
    listed.write_text("# head\ntests/core/test_c.py::test_marked_earlier\n", encoding="utf-8")
    monkeypatch.setattr(slow_tests, "LIST", listed)
    log = tmp_path / "durations.log"
    log.write_text(LOG, encoding="utf-8")

    assert slow_tests.main([str(log)]) == 0

    assert slow_tests.load() == {
        "tests/core/test_a.py::test_long[zh]",
        "tests/core/test_a.py::test_short",
        "tests/core/test_c.py::test_marked_earlier",
    }


def test_a_log_without_durations_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "durations.log"
    log.write_text("1 passed in 0.1s\n", encoding="utf-8")
    assert slow_tests.main([str(log)]) == 2
