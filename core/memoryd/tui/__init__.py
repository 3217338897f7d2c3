"""The terminal review (`memoryd digest --tui`), built on textual.

Nothing here imports textual: `run` imports it when the review is opened, so the other
commands do not pay for it. Modules: `review` (what each key asks the facade, plain
rules), `panes` (what is drawn), `screens` (edit form, help), `review_screen` (the
screen), `digest_app` (the App).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memoryd.app import Memoryd


def run(facade: Memoryd, *, since: str | None, scopes: list[str] | None, digest: Any = None) -> int:
    """Open the review on this terminal until the user quits; the exit code."""
    from memoryd.sensitive.keys import set_prompt
    from memoryd.tui.digest_app import DigestApp

    # A passphrase prompt on the terminal would fight textual for it: a scope whose key
    # needs one says so in the status line instead.
    set_prompt(None)
    DigestApp(facade, since=since, scopes=scopes, digest=digest).run()
    return 0
