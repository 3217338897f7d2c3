"""The rules provider: DURA without a network, from seed 003's rule-first importance
scoring (intrinsic importance of what was said + explicit signals in how it was said).
It answers the same DuraOutput the LLM does, with reasoning that says it was rule-scored.

The type comes from what the user's sentences state (memoryd.llm.cues); the title is the
sentence that states it, and the body the session's points in the order they were made.
A session that states nothing of a kind worth keeping is typed "none" and scored so that
its DURA mean stays below 0.6 (D 0.2, U at most 0.6, A 0.5: a mean of at most 0.575),
whatever hooks it has: a routine bug fix stays a session."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from memoryd import jsontext, rule_reasoning, sentences, titles
from memoryd.keyterms import Rarity, keywords
from memoryd.llm import cues
from memoryd.llm.schemas import DuraOutput

if TYPE_CHECKING:
    from memoryd.embed import Embedder

NAME = "rules"

# Seed 003, intrinsic importance: identity/health/safety 1.0, preference/relationship/
# change of state 0.8, a general fact 0.5 (the default), temporary information 0.2.
_IDENTITY = re.compile(
    r"过敏|我叫|我的名字|身份证|健康|生病|药|安全|密码|allerg|my name is|\bi am called\b|health|"
    r"medical|medication|diagnos|security|safety|credential",
    re.I,
)
_TEMPORARY = re.compile(
    r"今天下午|今晚|明天|待会|临时|暂时|this afternoon|tonight|tomorrow|for now|temporar|right now|"
    r"later today",
    re.I,
)
# Explicit signals and their weights (seed 003's table, with English equivalents).
_SIGNALS: tuple[tuple[re.Pattern[str], float, str], ...] = (
    (
        re.compile(
            r"记住|记得|以后都|以后一律|remember|always|never|from now on|every time|don'?t ever", re.I
        ),
        0.5,
        "asked to remember",
    ),
    (
        re.compile(r"重要|关键|务必|必须|important|critical|crucial|must\b|essential", re.I),
        0.3,
        "marked important",
    ),
    (
        re.compile(r"顺便说一下|顺便|随便问|by the way|\bbtw\b|just curious|off topic", re.I),
        -0.2,
        "said in passing",
    ),
)
_HOOK = re.compile(
    r"`[^`\n]+`|\b\d{4}-\d{2}-\d{2}\b|\b[A-Z][a-z]+[A-Z]\w*\b|\b[A-Z]{2,}\b|(?<!\w)\w+\.(?:py|ts|js|go|rs|md|sql|toml)\b|"
    r"https?://\S+|#\d+"
)
_USER_SECTIONS = ("## Goal", "## Later requests")


def _user_text(body: str, user_turns: Sequence[str]) -> str:
    """What the user said: their turns when kept, else the body's Goal and Later
    requests sections (the assistant's words are not the user's signals)."""
    if user_turns:
        return "\n".join(user_turns)
    parts, keep = [], False
    for line in body.splitlines():
        if line.startswith("## "):
            keep = line.strip() in _USER_SECTIONS
            continue
        if keep:
            parts.append(line)
    return "\n".join(parts) or body


def _sentences(said: str, user_turns: Sequence[str], *, code: bool = False) -> list[str]:
    """The sentences of what the user said, turn by turn: a turn that ends without
    punctuation is not a hard-wrapped line of the next one (the person pressed enter)."""
    if not user_turns:
        return sentences.split(said, code=code)
    return [s for turn in user_turns for s in sentences.split(turn, code=code)]


def _count(text: str, word: str, edge: str = r"\w") -> int:
    """How often `word` stands whole in `text`: an ASCII word between characters outside
    `edge` (a regex class body), case aside; a Han or kana one anywhere."""
    if word.isascii():
        return len(re.findall(rf"(?<![{edge}]){re.escape(word)}(?![{edge}])", text, re.I))
    return text.count(word)


# Sentences that explain the point before them ("This is important for the lockfile.",
# "否则会锁表。"): kept with it in the body.
_FOLLOW_UP = re.compile(
    r"^(?:it|this|that|these|those|they|otherwise|because|since|so|the reason|that's why|which|"
    r"else|or)\b|^(?:因为|否则|不然|这样|所以|这个|那样|由于)",
    re.I,
)
SUBJECT_TERMS = 3  # keywords a title sentence is chosen by where no sentence states the type
NONE_MEAN_CAP = {"D": 0.2, "U": 0.6, "A": 0.5}  # a "none" session's mean stays <= 0.575
_TYPE_D = {"decision": 0.85, "preference": 0.8, "warning": 0.8, "playbook": 0.75, "fact": 0.75}
_TYPE_INTRINSIC = {"decision": 0.8, "preference": 0.8, "warning": 0.8, "playbook": 0.7, "fact": 0.5}


def _points(reading: cues.Reading) -> list[str]:
    """The sentences worth keeping, in the order they were said, each once: those with a
    cue, and a sentence right after one that explains it (a playbook: all its steps)."""
    out: list[str] = []
    kept = False
    for sentence, cue in zip(reading.sentences, reading.cues, strict=True):
        if (
            reading.type == "playbook"
            or cue.type
            or (kept and _FOLLOW_UP.search(titles.strip_filler(sentence)))
        ):
            kept = True
            step = reading.type == "playbook" and cues.STEP_LINE.match(sentence)
            point = sentence if step else titles.capitalise(titles.strip_filler(sentence))
            if point and point not in out:
                out.append(point)
        else:
            kept = False
    return out


def _answer_steps(body: str) -> list[str]:
    """The steps of a how-to the assistant laid out (the body's sections other than the
    user's), numbered: what a person adopts when they say "that's our procedure"."""
    parts, keep = [], False
    for line in body.splitlines():
        if line.startswith("## "):
            keep = line.strip() not in _USER_SECTIONS
            continue
        if keep:
            parts.append(line)
    text = "\n".join(parts)
    lines = [ln.strip() for ln in text.splitlines() if cues.STEP_LINE.match(ln)]
    if len(lines) >= 2:
        return lines
    return [f"{i}. {step}" for i, step in enumerate(cues.inline_steps(text), 1)]


def _title(reading: cues.Reading, points: list[str], fallback: str) -> str:
    key = reading.key()
    if key is not None:
        sentence = reading.sentences[key]
        label, colon, rest = sentence.partition(":")
        if reading.type == "playbook" and colon and not cues.of_sentence(rest).type:
            sentence = label  # "How to release: 1. bump the version" -> "How to release"
        return titles.make(sentence)
    source = points[0] if points else fallback
    return titles.make(sentences.first(source) or source) or titles.clip(fallback)


def _naming(said: Sequence[str], subject: Sequence[str]) -> str:
    """Where no sentence states the type in its words (the learned type decided), the
    sentence that names most of what the session is about (`subject`: its keywords, most
    specific first, weighted by rank), the first on a tie; "" when none names any."""
    best, best_score = "", 0
    for sentence in said:
        low = sentence.casefold()
        score = sum(len(subject) - i for i, term in enumerate(subject) if _names(low, term.casefold()))
        if score > best_score:
            best, best_score = sentence, score
    return best


def _names(low: str, term: str) -> bool:
    return _count(low, term, "A-Za-z0-9_") > 0  # ASCII edges: "postgres" is named in 用postgres做队列


def score(
    title: str,
    body: str,
    *,
    user_turns: Sequence[str] = (),
    reason: str = "",
    rarity: Rarity | None = None,
    embedder: Embedder | None = None,
) -> DuraOutput:
    """Seed 003's importance = min(1, intrinsic + signals), mapped onto D/U/R/A; the type
    and the proposal from memoryd.llm.cues. `rarity`: the store's, to rank the triggers.
    `embedder`: the store's; when it is the one memoryd.llm.typeclf was trained with, the
    learned classifier types the session (the title still from the cue that states it)."""
    # Every field of the answer is made from these four: a lone surrogate in them (a JSON
    # transcript can escape one, and `reason` may quote a server's error) would make
    # DuraOutput refuse the whole answer.
    title, body = jsontext.without_surrogates(title), jsontext.without_surrogates(body)
    reason = jsontext.without_surrogates(reason)
    user_turns = [jsontext.without_surrogates(t) for t in user_turns]
    said = _user_text(body, user_turns)
    said_sentences = _sentences(said, user_turns)
    reading = cues.classify(said, said_sentences)
    if embedder is not None:
        from memoryd.llm import typeclf

        learned = typeclf.classify(list(user_turns) or [said], embedder, reading=reading)
        if learned is not None:
            reading = replace(reading, type="" if learned[0] == "session" else learned[0])
    mtype = reading.type or "none"
    keep = [s for s, c in zip(reading.sentences, reading.cues, strict=True) if c.type]
    notes: list[str] = []

    if _IDENTITY.search(f"{title}\n{said}"):
        intrinsic, kind = 1.0, "identity/health/safety"
    elif keep and _TEMPORARY.search(" ".join(keep)):
        intrinsic, kind = 0.2, "temporary"
    elif mtype in _TYPE_INTRINSIC:
        intrinsic, kind = _TYPE_INTRINSIC[mtype], mtype
    else:
        intrinsic, kind = 0.5, "nothing stated to keep"
    notes.append(f"{kind} {intrinsic:.1f}")
    if mtype != "none":
        why = next((c.why for c in reading.cues if c.type == mtype), "steps" if mtype == "playbook" else "")
        if why:  # a learned type no cue states has no words to quote
            notes.append(f"{mtype} ({why})")

    signal = 0.0
    for pattern, weight, label in _SIGNALS:
        if pattern.search(said):
            signal += weight
            notes.append(f"{label} {weight:+.1f}")
    words = Counter({w: _count(said, w) for w in keywords(said, 40, weak=True)})
    repeated = [w for w, n in words.items() if n >= 3 and len(w) > 2]
    if repeated:
        signal += 0.2
        notes.append(f"repeated ({', '.join(repeated[:3])}) +0.2")
    importance = max(0.0, min(1.0, intrinsic + signal))

    hooks = len(set(_HOOK.findall(body)))
    r = min(1.0, 0.3 + 0.07 * hooks)
    if mtype == "none":
        d, u, a = NONE_MEAN_CAP["D"], min(importance, NONE_MEAN_CAP["U"]), NONE_MEAN_CAP["A"]
    else:
        d, u, a = _TYPE_D[mtype], importance, 0.85
    points = _points(reading)
    adopted = _answer_steps(body) if mtype == "playbook" and cues.steps(said) < 2 else []
    if adopted:
        points = [p for p, c in zip(reading.sentences, reading.cues, strict=True) if c.type] + adopted
    memory = "\n".join(p if cues.STEP_LINE.match(p) else f"- {p}" for p in points) or said.strip()[:800]
    # "Heads up:" is no keyword
    plain = [titles.strip_filler(x) for x in _sentences(said, user_turns, code=True)]
    framing = _title(reading, points, title)
    # What the triggers are about: the sentence that states the point (else the first
    # prompt) and the kept points; for adopted steps, the user's own words for what the
    # how-to is for (the steps are its detail).
    focus = "\n".join([framing, *(p for p in points if p not in adopted)])
    said_plain = "\n".join([*plain, *adopted])
    triggers = None
    if embedder is not None:  # which ranked terms to keep, learned (the ranking's cut without a model)
        from memoryd.llm import kwclf

        triggers = kwclf.choose(said_plain, 8, embedder=embedder, rarity=rarity, focus=focus)
    if triggers is None:
        triggers = keywords(said_plain, 8, rarity=rarity, focus=focus)
    # Where no sentence states the type, the title names what the session is about; a
    # how-to's is what it is for, which its first prompt says (its steps name the parts).
    named = (
        _naming(reading.sentences, triggers[:SUBJECT_TERMS])
        if reading.type and reading.type != "playbook" and reading.key() is None
        else ""
    )
    proposal_title = (titles.make(named) if named else "") or framing
    why = rule_reasoning.line(reason, importance, notes)  # read back by rule_reasoning.read
    return DuraOutput(
        D=round(min(1.0, d), 2),
        U=round(max(0.1, u), 2),
        R=round(r, 2),
        A=a,
        type=mtype,  # type: ignore[arg-type]
        title=proposal_title[:200],
        body=memory[:4000],
        triggers=triggers,
        reasoning=why[:1000],
        supersedes=[],
    )
