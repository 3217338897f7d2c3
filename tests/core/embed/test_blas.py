"""memoryd.embed.blas: the read path starts numpy's BLAS with one thread, leaves the
environment as it was, and the model's thread limit is then skipped; anything it cannot
vouch for keeps the limit. Each case is a fresh process (BLAS reads its thread count once)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

PROBE = """
import json, os, sys
from memoryd.embed import blas
blas.import_single_threaded()
from memoryd.embed import usecache
with usecache._LazyLimit()(limits=1, user_api="blas"):
    limit_imported = "threadpoolctl" in sys.modules
from threadpoolctl import threadpool_info
print(json.dumps({
    "single": blas.single_threaded(),
    "env": os.environ.get("OPENBLAS_NUM_THREADS"),
    "limit_imported_threadpoolctl": limit_imported,
    "threads": [i["num_threads"] for i in threadpool_info() if i["internal_api"] == "openblas"],
}))
"""


def _probe(code: str = PROBE, **env: str) -> dict[str, object]:
    full = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run(
        [sys.executable, "-c", code], env={**full, **env}, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _openblas() -> bool:
    import numpy as np

    return "openblas" in str(np.__config__.CONFIG["Build Dependencies"]["blas"].get("name", "")).lower()


@pytest.mark.skipif(not _openblas(), reason="numpy is not built with OpenBLAS here")
def test_numpy_starts_one_blas_thread_and_the_environment_is_restored() -> None:
    got = _probe()
    assert got["single"] is True
    assert got["threads"] == [1]
    assert got["env"] is None  # a child process gets the environment as it was
    assert got["limit_imported_threadpoolctl"] is False  # no limit to find: one thread since load


def test_a_thread_count_the_user_set_is_left_alone_and_the_limit_kept() -> None:
    got = _probe(OPENBLAS_NUM_THREADS="2")
    assert got["single"] is False
    assert got["env"] == "2"
    assert got["limit_imported_threadpoolctl"] is True


@pytest.mark.parametrize("variable", ["OMP_NUM_THREADS", "GOTO_NUM_THREADS"])
def test_other_thread_count_variables_the_user_set_are_left_alone(variable: str) -> None:
    """OpenBLAS also reads these: forcing one thread would override the user's choice."""
    got = _probe(**{variable: "2"})
    assert got["single"] is False
    assert got["env"] is None
    assert got["limit_imported_threadpoolctl"] is True


def test_numpy_imported_before_keeps_its_threads_and_the_limit() -> None:
    got = _probe("import numpy\n" + PROBE)
    assert got["single"] is False
    assert got["limit_imported_threadpoolctl"] is True
    if _openblas() and (os.cpu_count() or 1) > 1:
        assert got["threads"] != [1]


def test_a_limit_of_more_than_one_thread_is_still_set() -> None:
    code = PROBE.replace("limits=1", "limits=2")
    got = _probe(code)
    assert got["limit_imported_threadpoolctl"] is True


def _numpy_built_with(blas: dict[str, str]) -> SimpleNamespace:
    return SimpleNamespace(__config__=SimpleNamespace(CONFIG={"Build Dependencies": {"blas": blas}}))


def test_an_unknown_blas_is_not_vouched_for() -> None:
    from memoryd.embed import blas

    assert blas._pthreads_openblas(_numpy_built_with({"name": "scipy-openblas"})) is True
    assert blas._pthreads_openblas(_numpy_built_with({"name": "mkl-sdl"})) is False
    openmp = {"name": "openblas", "openblas configuration": "USE_OPENMP=1"}
    assert blas._pthreads_openblas(_numpy_built_with(openmp)) is False
    assert blas._pthreads_openblas(object()) is False
