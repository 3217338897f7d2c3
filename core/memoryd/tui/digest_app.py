"""`memoryd digest --tui`: the weekly review in the terminal, for machines without a
desktop. The same sections and the same facade calls as the tray's digest window; the
screen itself lives in memoryd.tui.review_screen."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.screen import Screen

from memoryd.app import Memoryd
from memoryd.tui.review_screen import ReviewScreen


class DigestApp(App[None]):
    TITLE = "memoryd: weekly review"
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        facade: Memoryd,
        *,
        since: str | None = None,
        scopes: list[str] | None = None,
        digest: Any = None,
    ) -> None:
        super().__init__()
        self.facade = facade
        self._review = ReviewScreen(facade, since=since, scopes=scopes, digest=digest)

    def get_default_screen(self) -> Screen[Any]:
        return self._review

    @property
    def review(self) -> ReviewScreen:
        return self._review
