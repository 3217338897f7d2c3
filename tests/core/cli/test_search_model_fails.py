"""A model that loads and then fails on the query: the cold CLI search answers by keywords
with one warning line, as the facade does, and no traceback (issue 20's fallback)."""

from __future__ import annotations

import os
from pathlib import Path

PLUGIN = """
import hashlib

import numpy as np

from memoryd.embed import CHECK_TEXTS, normalize


class Breaks:
    name = "breaks-on-queries"
    version = "1"
    dim = 64

    def embed_documents(self, texts):
        rows = [np.frombuffer(hashlib.sha512(t.encode()).digest(), dtype=np.uint8) for t in texts]
        return normalize(np.array(rows, dtype=np.float32).reshape(len(texts), self.dim) - 127.5)

    def embed_query(self, text):
        if text in CHECK_TEXTS:  # the load-time check passes: the model breaks later
            return self.embed_documents([text])[0]
        raise MemoryError("the model ran out of memory")


def make():
    return Breaks()
"""


def test_cold_search_falls_back_to_keywords_with_one_warning(cli, project: Path, tmp_path: Path) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / "breakembed.py").write_text(PLUGIN, encoding="utf-8")
    Path(os.environ["MEMORYD_CONFIG"]).write_text('[search]\nembedding_model = "breakembed:make"\n')
    env = {"PYTHONPATH": os.pathsep.join([str(plugins), os.environ.get("PYTHONPATH", "")])}
    rec = cli(
        "record", "--type", "decision", "--title", "Use Postgres for the job queue",
        "--body", "SQLite locked up under load.", cwd=project, env=env,
    )  # fmt: skip
    assert rec.returncode == 0, rec.stderr
    found = cli("search", "Postgres", cwd=project, env=env)
    assert found.returncode == 0, found.stderr
    assert "Use Postgres for the job queue" in found.stdout
    lines = [ln for ln in found.stderr.splitlines() if ln.strip()]
    assert "Traceback" not in found.stderr, found.stderr
    assert len(lines) == 1, found.stderr
    assert "breaks-on-queries" in lines[0] and "searching by keywords only" in lines[0]
