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


def test_an_all_scope_search_fuses_a_sensitive_scope_with_the_rest(
    cli, secret_service: str, project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    """Each scope's candidates were normalised alone and merged by score, so a sensitive
    scope's lone weak match scored as high as anything and ranked first."""
    plain = tmp_path / "plain"
    plain.mkdir()
    Memoryd().record("fact", "Deploy target", BODY, scope_path=plain)
    Memoryd().record("fact", "Code style", "Python code is formatted with ruff.", scope_path=plain)
    weak = "The backend team waters the office plants on Mondays."
    Memoryd().record("fact", "Office plants", weak, scope_path=project)
    set_pin(cli)
    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    assert cli("reindex").returncode == 0
    grant_tty(project)
    found = Memoryd().search("Where do we deploy the backend services?", scopes=None, mode="hybrid")
    scores = {r.title: r.score for r in found}
    assert "Office plants" in scores  # the premise: the grant let the sensitive scope be searched
    assert found[0].title == "Deploy target", found
    assert scores["Deploy target"] > scores["Office plants"], scores
