"""A read refused for want of a grant says which project as values (the tray words it in
the user's language, issue 22 item 5); the CLI's English line is unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from memoryd.app import Memoryd
from memoryd.errors import AuthorizationRequired

PASSPHRASE = "correct horse battery staple"


@pytest.mark.parametrize("key", ["passphrase", "random"])
def test_the_refusal_names_the_project_as_values(
    isolated_home: Path, project: Path, cli, request: pytest.FixtureRequest, key: str
) -> None:
    """A random key's scope is named by its folder; a passphrase scope's folder is sealed
    with the passphrase (memoryd.sensitive.state), so until a grant only its hash is."""
    if key == "random":
        request.getfixturevalue("secret_service")
    app = Memoryd()
    app.record("fact", "Vault token place", "Kept under the desk.", scope_path=project)
    app.mark_sensitive(project, passphrase=PASSPHRASE if key == "passphrase" else None)
    scope = app.scope(project)
    (row,) = app.list(scopes=[scope.hash])
    with pytest.raises(AuthorizationRequired) as refused:
        Memoryd().get(row["slug"], count_recall=False)
    assert refused.value.scope_hash == scope.hash
    assert refused.value.root == (str(scope.root) if key == "random" else None)
    assert "no live grant" in str(refused.value)  # the CLI's and the agents' sentence
    out = cli("get", row["slug"])
    assert out.returncode == 3 and out.stderr.count("\n") == 1 and "no live grant" in out.stderr
