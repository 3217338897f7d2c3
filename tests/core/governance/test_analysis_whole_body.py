"""A session is due for analysis again whenever its body changes, wherever the change is.

The duplicate fingerprint reads only the body's first 500 characters; the analysis used it
too, so a recaptured session that grew after them (new requests, a new outcome) kept its
old scores and its old proposal.
"""

from __future__ import annotations

import json
from pathlib import Path

from .sessions import capture

LONG_GOAL = (
    "Remember: from now on always run the database migrations with the dry-run flag first, "
    "then read the plan, then apply it. " * 6
)


def test_a_change_past_the_first_500_characters_is_analysed_again(cli, project: Path, tmp_path: Path):
    first = [(LONG_GOAL, "Understood, dry-run first every time.")]
    slug = capture(cli, project, tmp_path, "long-goal", first)
    assert [a["slug"] for a in json.loads(cli("analyze-pending", "--json").stdout)] == [slug]
    body_before = json.loads(cli("get", slug, "--json").stdout)["body"]
    assert len(body_before) > 700

    capture(cli, project, tmp_path, "long-goal", [*first, ("also keep a backup before applying", "Will do.")])
    body_after = json.loads(cli("get", slug, "--json").stdout)["body"]
    assert body_after[:500] == body_before[:500] and body_after != body_before

    again = json.loads(cli("analyze-pending", "--json").stdout)
    assert [a["slug"] for a in again] == [slug], again
    assert json.loads(cli("analyze-session", slug, "--json").stdout)["status"] == "skipped"
