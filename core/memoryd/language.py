"""Which language a short Latin-script text is in, judged by its function words.

Keyword search matches words, so it can only find a memory written in the question's
language: an English question shares no word with a German memory about the same thing,
just as it shares none with a Chinese one (memoryd.fusion treats both alike). Writing
systems tell Chinese from English; within the Latin script only the words do. Function
words (articles, pronouns, prepositions, question words) are the most frequent words of
every language and nearly disjoint between them, and a title or a question of five words
usually holds one or two. A text with none, or with as many of one language's as of
another's, gets no language: the caller then knows only its script, as before.

Character n-gram identifiers (langid and its kin) are the textbook method, but they take
half a second to load, which a cold `memoryd search` cannot pay, and they guess on texts
of two words ("Kubernetes" read as German, "pnpm peer deps" as Afrikaans) where abstaining
is right. Words shared by languages (the Romance "la", the Germanic "in") count a share to
each, so only a word that tells them apart decides.
"""

from __future__ import annotations

import re
from collections import defaultdict

# The most frequent function words of each language (lower case), as grammars list them:
# articles, pronouns, prepositions, conjunctions, auxiliaries and question words.
_WORDS: dict[str, str] = {
    "en": """the a an and or but of to in on at by as for with from this that these those
        what which when where how why who whom whose do does did was is are should would
        could can not no our your their my we you they it its i be been have had there
        here about into than then also only just after before never always if all so up
        out per non via""",
    "de": """der die das den dem des und ist sind nicht mit für wir ich du er ihr sie es
        ein eine einen einem einer an auf in zu von bei wie was wann welche welcher
        welches wo warum wer wird werden wurde immer nie auch aus nach oder aber kein keine
        unser unsere mein meine dein sich im zum zur vom über noch schon nur so""",
    "fr": """le la les un une de des du au aux à et est sont en pour dans avec sur pas ne
        nous je vous il elle ils elles on qui que quoi quel quelle quels quelles quand où
        comment pourquoi ce cette ces sa ses mon ma mes notre nos votre vos leur être fait
        jamais toujours aussi mais ou chez""",
    "es": """el la los las un una unos unas de del al a y es son en que qué por para con no
        se su sus lo como cómo cuándo cuando dónde donde cuál cuáles quién nuestro nuestra
        nuestros mi mis está están hay pero nunca siempre también muy ya este esta estos
        sin sobre""",
    "pt": """o os a as um uma uns umas de do da dos das e é em no na nos nas que não com
        para por se seu sua seus suas como quando onde qual quais quem nosso nossa meu
        minha está estão mas nunca sempre também ao aos pelo pela este esta isso""",
    "it": """il lo la i gli le un una uno a di del della dei delle degli e è in che non per
        con su da dal dalla al alla ai quando dove quale quali chi nostro nostra mio mia
        sono ma mai sempre anche questo questa quello ci si nel nella""",
    "nl": """de het een en van is zijn niet met voor op in wij we ik jij je dat die dit wat
        wanneer waar hoe welke waarom wie ons onze mijn maar nooit altijd ook bij naar om
        uit er wordt worden""",
}
# Elided articles and pronouns before an apostrophe (l'ordre, dell'anno, qu'il).
_ELIDED: dict[str, tuple[str, ...]] = {
    "l": ("fr", "it"),
    "d": ("fr",),
    "qu": ("fr",),
    "n": ("fr",),
    "j": ("fr",),
    "c": ("fr",),
    "s": ("fr",),
    "dell": ("it",),
    "nell": ("it",),
    "all": ("it",),
    "dall": ("it",),
    "un": ("it",),
    "sull": ("it",),
}

LATIN = frozenset(_WORDS)  # the languages told apart
_LANGS: dict[str, tuple[str, ...]] = {}
for _lang, _text in _WORDS.items():
    for _word in _text.split():
        _LANGS[_word] = (*_LANGS.get(_word, ()), _lang)

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def latin_language(text: str) -> str | None:
    """The language (ISO 639-1) whose function words `text` holds clearly more of than any
    other's: each different word counts once, a share to each language that has it, and the
    best needs 1.5 and a lead of 1 (a word only it has); None when none does. A repeated
    word is no more evidence ("per user per minute", "import os ... os.path"), and an
    acronym is no function word (CI, AI, OS, MIT and IM are not Italian, Portuguese or
    German)."""
    score: dict[str, float] = defaultdict(float)
    seen: set[str] = set()
    for word in _WORD.findall(text.replace("\u2019", "'")):
        if len(word) > 1 and word.isupper():
            continue
        word = word.lower()
        if word in seen:
            continue
        seen.add(word)
        head, _, tail = word.partition("'")
        if tail in ("s", "t", "re", "ll", "ve", "m", "d"):  # it's, don't, we're: English
            langs: tuple[str, ...] | None = ("en",)
        else:
            langs = _ELIDED.get(head) if tail else _LANGS.get(word)
        for lang in langs or ():
            score[lang] += 1 / len(langs)
    if "¿" in text or "¡" in text:  # only Spanish opens a question or an exclamation
        score["es"] += 1
    if not score:
        return None
    ranked = sorted(score.values(), reverse=True)
    best = max(score, key=lambda lang: score[lang])
    runner_up = ranked[1] if len(ranked) > 1 else 0.0
    return best if score[best] >= 1.5 and score[best] - runner_up >= 1 else None


def function_words(code: str) -> frozenset[str]:
    """The function words this module tells `code` by (empty for a language it does not)."""
    return frozenset(_WORDS.get(code, "").split())
