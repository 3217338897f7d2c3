"""Hybrid search in a sensitive scope: under a grant its sealed vectors are opened for the
query (Vectors.similar_sealed), so a Chinese question finds an English memory there too;
without a grant nothing of it is searched."""

from __future__ import annotations

import json
from pathlib import Path

from memoryd.app import Memoryd

from .support import PIN, grant_tty, set_pin

BODY = "We deploy the backend to Kubernetes on Google Cloud; staging and production are separate clusters."
ASK = "我们的后端服务部署在哪里？"  # where do we deploy the backend?


def test_a_granted_sensitive_scope_is_searched_by_meaning(
    cli, secret_service: str, project: Path, isolated_home: Path
) -> None:
    Memoryd().record("fact", "Deploy target", BODY, scope_path=project)
    Memoryd().record("fact", "Code style", "Python code is formatted with ruff.", scope_path=project)
    set_pin(cli)
    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0

    def found(*flags: str) -> list[str]:
        out = cli("search", ASK, "--scope", str(project), "--json", *flags)
        assert out.returncode == 0, out.stderr
        return [r["title"] for r in json.loads(out.stdout)]

    assert found() == []  # no grant: withheld
    assert cli("reindex").returncode == 0  # the vectors, sealed with the scope's key
    grant_tty(project)
    assert found()[:1] == ["Deploy target"]
    grant_tty(project)
    assert found("--mode", "keyword") == []  # no word in common
