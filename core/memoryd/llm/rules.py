"""The rules provider: DURA without a network, from seed 003's rule-first importance
scoring (intrinsic importance of what was said + explicit signals in how it was said).
It answers the same DuraOutput the LLM does, with reasoning that says it was rule-scored."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from memoryd.llm.schemas import DuraOutput
from memoryd.textproc import keywords

NAME = "rules"

# Seed 003, intrinsic importance: identity/health/safety 1.0, preference/relationship/
# change of state 0.8, a general fact 0.5 (the default), temporary information 0.2.
_IDENTITY = re.compile(
    r"过敏|我叫|我的名字|身份证|健康|生病|药|安全|密码|allerg|my name is|\bi am called\b|health|"
    r"medical|medication|diagnos|security|safety|credential",
    re.I,
)
_PREFERENCE = re.compile(
    r"喜欢|讨厌|偏好|习惯|换了|改用|换成|不再用|我更|prefer|i like|i love|i hate|i dislike|"
    r"switched|moved to|no longer|instead of|from now on|my style|我换",
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
_DECISION = re.compile(
    r"决定|选择|采用|定了|就用|改用|我们用|decided|decision|we'?ll use|let'?s (?:use|go with)|"
    r"chose|choose|going with|settled on|switch(?:ed)? to|adopt",
    re.I,
)
_WARNING = re.compile(
    r"坑|踩过|小心|别再|报错|崩溃|出错|gotcha|pitfall|careful|beware|broke|breaks|crash|caveat|"
    r"warning|footgun|bites",
    re.I,
)
_PLAYBOOK = re.compile(r"步骤|流程|怎么做|how to|steps?\b|procedure|runbook|first,|then,|1\.|①", re.I)
_HOOK = re.compile(
    r"`[^`\n]+`|\b\d{4}-\d{2}-\d{2}\b|\b[A-Z][a-z]+[A-Z]\w*\b|\b[A-Z]{2,}\b|\w+\.(?:py|ts|js|go|rs|md|sql|toml)\b|"
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


def _count(text: str, word: str) -> int:
    if word.isascii():
        return len(re.findall(rf"(?<![\w]){re.escape(word)}(?![\w])", text, re.I))
    return text.count(word)


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?。！？])\s*|\n+", text) if len(s.strip()) > 3]


def score(title: str, body: str, *, user_turns: Sequence[str] = (), reason: str = "") -> DuraOutput:
    """Seed 003's importance = min(1, intrinsic + signals), mapped onto D/U/R/A."""
    said = _user_text(body, user_turns)
    everything = f"{title}\n{said}"
    notes: list[str] = []

    if _IDENTITY.search(everything):
        intrinsic, kind = 1.0, "identity/health/safety"
    elif _PREFERENCE.search(everything):
        intrinsic, kind = 0.8, "preference or change"
    elif _TEMPORARY.search(everything):
        intrinsic, kind = 0.2, "temporary"
    else:
        intrinsic, kind = 0.5, "general fact"
    notes.append(f"{kind} {intrinsic:.1f}")

    signal = 0.0
    for pattern, weight, label in _SIGNALS:
        if pattern.search(said):
            signal += weight
            notes.append(f"{label} {weight:+.1f}")
    words = Counter({w: _count(said, w) for w in keywords(said, 40)})
    repeated = [w for w, n in words.items() if n >= 3 and len(w) > 2]
    if repeated:
        signal += 0.2
        notes.append(f"repeated ({', '.join(repeated[:3])}) +0.2")
    importance = max(0.0, min(1.0, intrinsic + signal))

    decision = bool(_DECISION.search(said))
    warning = bool(_WARNING.search(said))
    standing = bool(_SIGNALS[0][0].search(said))  # "remember / always / 以后都": a standing rule
    preference = kind == "preference or change" or standing
    playbook = bool(_PLAYBOOK.search(said)) and body.count("\n- `") >= 3
    if decision:
        mtype = "decision"
    elif warning:
        mtype = "warning"
    elif preference:
        mtype = "preference"
    elif playbook:
        mtype = "playbook"
    else:
        mtype = "fact"

    d = 0.85 if decision else 0.75 if (preference or warning) else 0.7 * importance
    hooks = len(set(_HOOK.findall(body)))
    r = min(1.0, 0.3 + 0.07 * hooks)
    a = 0.85 if signal > 0 else 0.6
    keep = [s for s in _sentences(said) if any(p.search(s) for p, w, _ in _SIGNALS if w > 0)]
    keep += [s for s in _sentences(said) if _DECISION.search(s) or _PREFERENCE.search(s)]
    memory = "\n".join(f"- {s}" for s in dict.fromkeys(keep)) or said.strip()[:800]
    why = f"rule-scored{f' ({reason})' if reason else ''}: importance {importance:.2f} = " + ", ".join(notes)
    return DuraOutput(
        D=round(min(1.0, d), 2),
        U=round(max(0.1, importance), 2),
        R=round(r, 2),
        A=a,
        type=mtype,  # type: ignore[arg-type]
        title=title[:200],
        body=memory[:4000],
        triggers=keywords(f"{title}\n{said}", 8),
        reasoning=why[:1000],
        supersedes=[],
    )
