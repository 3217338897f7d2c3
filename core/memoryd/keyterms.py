"""Keywords a person would search for: the triggers of a session and of a proposal.

Callers pass `rarity` when they can see the store: a term found in few memories says more
about this one than a term found in most (inverse document frequency).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from memoryd import textproc

# terms -> a weight that grows as the term gets rarer in the store (e.g. idf)
Rarity = Callable[[Sequence[str]], Mapping[str, float]]


def keywords(text: str, limit: int = 8, *, rarity: Rarity | None = None) -> list[str]:
    """At most `limit` keywords of `text`, most specific first."""
    del rarity  # issue 21 ranks by it; until then the frequency ranking below
    return textproc.keywords(text, limit)
