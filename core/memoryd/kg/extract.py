"""Which entities a memory names, and how it stands to each: by the rules (the curated
lexicon, capitalised and CJK proper-noun heuristics, the project's own name) or by the
LLM prompt extract_entities. Both give the same shape, so everything after is one path.

The rules also read the explicit replacements a memory states ("switched from React to
Solid", "不再用 React,改用 Solid"): the supersedes check uses them when no LLM judges.

What a memory leaves behind ("instead of SQLite", "moved away from SQLite", "not npm",
"Poetry is deprecated", "不再用 Vue", "弃用 Webpack"; kg.contrast) is never `uses` or
`prefers`: the graph has no predicate for leaving, so it is written `mentions` and listed
in Extraction.replaced. A stance ("use", "用") reaches the names of its own clause, and a
name the memory only mentions beside its choice of the same kind ("SQLite locked up, so
the queue moved to Postgres") is not a second choice. Extraction.subjects holds what the
memory is about (kg.subject), for the supersedes check."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from memoryd.kg import PREDICATES, contrast, lexicon, subject
from memoryd.kg.lexicon import Known

__all__ = ["PREDICATES", "Extraction", "Found", "by_rules", "from_llm"]
# How a memory can stand to an entity it names (the rest link memories or entities).
STANCES = ("prefers", "uses", "works_on", "runs_on", "located_at", "cites", "mentions")
POSITIVE = ("prefers", "uses")
# What extraction writes for a memory (its relations with other predicates are kept).
RULE_PREDICATES = ("mentions", "prefers", "uses", "works_on", "runs_on")
MAX_ENTITIES = 15


@dataclass
class Found:
    id: str
    name: str
    type: str
    mentions: int = 0
    predicate: str = "mentions"
    surfaces: set[str] = field(default_factory=set)
    category: str | None = None
    first: int = 0

    @property
    def norm(self) -> str:
        return lexicon.norm(self.name)


@dataclass
class Extraction:
    found: list[Found]
    # Entities the memory says were dropped or replaced (ids).
    replaced: set[str] = field(default_factory=set)
    by: str = "rules"
    note: str = ""
    # Entities the memory says stay as they are ("jobs stay in Postgres").
    kept: set[str] = field(default_factory=set)
    # What the memory is about ("job queue"), whatever it chooses for it.
    subjects: list[subject.Subject] = field(default_factory=list)

    def ids(self) -> list[str]:
        return [f.id for f in self.found]

    def positive(self) -> list[Found]:
        return [f for f in self.found if f.predicate in POSITIVE]


# -- tokens -------------------------------------------------------------------------------
# A Latin name, also when written against Chinese text ("改用Solid"): CJK counts as \w.
_LATIN = re.compile(r"(?<![A-Za-z0-9_/\\.@#+-])[A-Za-z][A-Za-z0-9]*(?:[.\-][A-Za-z0-9]+)*[+#]*")
_BOUNDARY = re.compile(r"[.!?]+(?=\s|$)|[。！？;；]+|\n")
_LEAD = re.compile(r"^[\s\-*>#\d.)(\[\]]*")
_CAMEL = re.compile(
    r"[A-Za-z][A-Za-z0-9]*(?:[a-z][A-Z]|[A-Za-z][0-9])[A-Za-z0-9]*"
)  # FastAPI, QuokkaDB, PySide6
_CJK = "\u3400-\u4dbf\u4e00-\u9fff"
_ORG_SUFFIXES = ("研究院", "研究所", "实验室", "工作室", "公司", "集团", "大学", "学院", "银行", "医院")
_ORG = re.compile(rf"[{_CJK}]{{2,8}}?(?:{'|'.join(_ORG_SUFFIXES)})")
# Kinds of company, not names: "一家互联网公司", "客户公司".
_GENERIC_ORG = re.compile(
    r"(?:互联网|科技|技术|网络|软件|外包|创业|客户|合作|母|子|分|总|上市|私营|国有|大|小|新|老|本|该|某)"
)
# Chinese quotation marks for names and titles (not English quotes: they quote anything).
_QUOTED = re.compile(r"[「《]([^」》\n]{2,20})[」》]")
_FUNCTION_CHARS = set(
    "家个间座"
    "的在和与是了我你他她它们去到从给把被用为这那个一也都就还很再不要会能说对向跟同及或而但并且如果因所以"
)

# Capitalised words that are not names.
_STOP_WORDS = """I I'm I've I'd I'll A An The This That These Those It Its We We're Our You Your
    He She They Them
    There Here Then When Where What Which Who Why How If Else Also And But Or Not No Yes OK Ok Okay
    Please Thanks Thank Note Notes Todo TODO FIXME Done Next Now Today Tomorrow Yesterday Always
    Never Use Using Used Prefer Prefers Preferred Switch Switched Moved Keep Avoid Do Don't Does Did
    Is Are Was Were Be Been Has Have Had Can Could Should Would Will Must May Might Let Let's Make
    Run See Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April
    June July August September October November December User Users Agent Assistant Goal Outcome
    Summary Error Errors Files File Commands Command Decision Decisions Preference Preferences Fact
    Facts Warning Playbook Session Sessions Memory Memories Project Projects Step Steps Added Fixed
    Updated Removed New Old First Last After Before Because Since For From With Without Into Onto
    About Over Under English Chinese"""
_STOP = frozenset(_STOP_WORDS.split())

# A memory saying it left an entity for another (the `old` and `new` groups).
# Whitespace between words is bounded (\s{1,8}, not \s+): a lazy name group next to an
# unbounded run made a line of spaces take quadratic time, 100 s on 8 KB.
_EN_REPLACE = [
    re.compile(
        r"\b(?:switch\w*|mov\w*|migrat\w*|port\w*|chang\w*|went|transition\w*|convert\w*|jump\w*|"
        r"rewr\w*|replatform\w*)\b[^.;]{0,30}?\bfrom\s{1,8}(?P<old>[^,.;]{1,60}?)\s{1,8}(?:to|for|onto)\s{1,8}"
        r"(?P<new>[^,.;]{1,60})",
        re.I,
    ),
    re.compile(
        r"\b(?:switch\w*|mov\w*|migrat\w*|went|go(?:ing)?|came|coming)\s{1,8}(?:back\s{1,8})?to\s{1,8}(?P<new>[^,.;]{1,60}?)"
        r"\s{1,8}from\s{1,8}(?P<old>[^,.;]{1,60})",
        re.I,
    ),
    re.compile(
        r"\breplac\w*\s{1,8}(?P<old>[^,.;]{1,60}?)\s{1,8}(?:with|by)\s{1,8}(?P<new>[^,.;]{1,60})", re.I
    ),
    re.compile(
        r"(?P<new>[^,.;]{1,60}?)\s{1,8}(?:instead\s{1,8}of|rather\s{1,8}than|in\s{1,8}place\s{1,8}of)\s{1,8}(?P<old>[^,.;]{1,60})",
        re.I,
    ),
    re.compile(
        r"\bprefer\w*\s{1,8}(?P<new>[^,.;]{1,60}?)\s{1,8}(?:over|to)\s{1,8}(?P<old>[^,.;]{1,60})", re.I
    ),
    re.compile(
        r"\b(?:no\s{1,8}longer|not\s{1,8}anymore|stop(?:ped|s)?|quit|don'?t|do\s{1,8}not|never|won'?t)\s{1,8}"
        r"(?:\w+\s{1,8})?(?:us(?:e|ing)|prefer\w*|want\w*|recommend\w*|choos\w*)\s{1,8}(?P<old>[^,.;]{1,60})",
        re.I,
    ),
    # Only the next word or two: "never npm", "avoid Redux", not "never forget to run pytest".
    re.compile(
        r"\b(?:never|avoid\w*)\s{1,8}(?:us(?:e|ing)\s{1,8})?(?P<old>[^\s,.;]+(?:\s{1,8}[^\s,.;]+)?)", re.I
    ),
    re.compile(
        r"\b(?:dropp(?:ed|ing)|drop|abandon\w*|ditch\w*|deprecat\w*|retir\w*|got\s{1,8}rid\s{1,8}of|"
        r"mov\w*\s{1,8}(?:away|off)\s{1,8}(?:from|of))\s{1,8}(?P<old>[^,.;]{1,60})",
        re.I,
    ),
]
_C = r"[^,，。;；、]"
_CN_REPLACE = [
    re.compile(rf"不再(?:用|使用|采用|喜欢|推荐|选用|考虑)(?P<old>{_C}{{1,30}})"),
    re.compile(r"(?:别|不要|禁止|避免|切勿|绝不)(?:再)?(?:用|使用)?\s*(?P<old>[^\s,，。;；、]{1,30})"),
    re.compile(rf"(?:弃用|放弃|抛弃|淘汰|停用|去掉|移除|告别)(?:了)?(?P<old>{_C}{{1,30}})"),
    re.compile(rf"从(?P<old>{_C}{{1,30}}?)(?:换|切|迁移|迁|转|改)(?:成|到|为|向|回)?(?P<new>{_C}{{1,30}})"),
    re.compile(rf"(?:用|拿)(?P<new>{_C}{{1,30}}?)(?:替换|取代|代替|替代)(?:了|掉)?(?P<old>{_C}{{1,30}})"),
    re.compile(rf"(?P<old>{_C}{{1,30}}?)(?:换成|改成|替换为|替换成|切换到|迁移到)(?P<new>{_C}{{1,30}})"),
    re.compile(rf"(?:改用|换用|转用|改为使用|切换到|迁移到)(?P<new>{_C}{{1,30}})"),
    re.compile(rf"(?P<new>{_C}{{1,30}}?)(?:而不是|而非)(?P<old>{_C}{{1,30}})"),
]
_PREFER = re.compile(
    r"\b(?:prefer\w*|favou?r\w*|lov(?:e|es|ed)|cho(?:se|ose|osing)|pick\w*|"
    r"go(?:es|ing)?\s+with|stick\w*\s+with|opt\w*\s+for|settled\s+on|recommend\w*)\b|"
    r"偏好|喜欢|倾向|首选|选择|选用|推荐|更爱",
    re.I,
)
_USE = re.compile(
    r"\b(?:use[sd]?|using|adopt\w*|rel(?:y|ies|ied)\s+on|built\s+(?:with|on)|written\s+in|"
    r"depend\w*\s+on|switch\w*\s+to|mov\w*\s+to|migrat\w*\s+to|go\s+with)\b|"
    r"使用|采用|基于|改用|换用|选用|换成|改成|切换到|迁移到|迁到|用",
    re.I,
)
_RUNS_ON = re.compile(r"\b(?:runs?\s+on|deploy\w*\s+(?:to|on)|hosted\s+on)\b|部署在|跑在|运行在", re.I)


@dataclass(frozen=True)
class _Hit:
    start: int
    end: int
    surface: str
    id: str
    name: str
    type: str
    category: str | None


def _cjk_aliases() -> re.Pattern[str] | None:
    spellings = sorted(
        {sp for k in lexicon.table() for sp in (k.name, *k.aliases) if re.search(f"[{_CJK}]", sp)},
        key=len,
        reverse=True,
    )
    return re.compile("|".join(map(re.escape, spellings))) if spellings else None


_CJK_ALIASES = _cjk_aliases()


def _title_case(tokens: list[tuple[int, int, str]]) -> bool:
    """A heading such as "Plan For Next Sprint": most words capitalised."""
    words = [w for _, _, w in tokens if w.isalpha() and len(w) > 3]
    return len(words) >= 3 and sum(w[0].isupper() for w in words) >= 0.75 * len(words)


def _strict_ok(known: Known, surface: str, initial: bool, heading: bool) -> bool:
    """A name that is also a common word counts only as written in the lexicon (its
    capital, not "solid" or "SOLID"), and not as the first word of a sentence or a word of
    a Title Case heading ("Solid work ahead", "Plan For Next Sprint")."""
    if not known.ambiguous or not re.fullmatch(r"[A-Za-z]+", surface):
        return True
    spellings = {sp for sp in (known.name, *known.aliases) if re.fullmatch(r"[A-Za-z]+", sp)}
    if surface not in spellings:
        return False
    capitalised = surface[0].isupper() and surface[1:].islower()
    return not (capitalised and (initial or heading))


def _known_hits(sentence: str, offset: int, initial_at: int) -> list[_Hit]:
    tokens = [(m.start(), m.end(), m.group()) for m in _LATIN.finditer(sentence)]
    heading = _title_case(tokens)
    hits: list[_Hit] = []
    i = 0
    while i < len(tokens):
        for width in (3, 2, 1):
            span = tokens[i : i + width]
            if len(span) < width or any(span[j + 1][0] - span[j][1] != 1 for j in range(width - 1)):
                continue
            start, end = span[0][0], span[-1][1]
            surface = sentence[start:end]
            known = lexicon.lookup(surface)
            if known is None or not _strict_ok(known, surface, start == initial_at, heading):
                continue
            hits.append(
                _Hit(offset + start, offset + end, surface, known.id, known.name, known.type, known.category)
            )
            i += width
            break
        else:
            i += 1
    if _CJK_ALIASES is not None:
        for m in _CJK_ALIASES.finditer(sentence):
            known = lexicon.lookup(m.group())
            if known is not None:
                hits.append(
                    _Hit(
                        offset + m.start(),
                        offset + m.end(),
                        m.group(),
                        known.id,
                        known.name,
                        known.type,
                        known.category,
                    )
                )
    return hits


def _trim_cjk(name: str, keep_tail: int) -> str:
    """Drop leading function characters ("在腾讯公司" -> "腾讯公司")."""
    head = name[: len(name) - keep_tail]
    cut = max((i + 1 for i, ch in enumerate(head) if ch in _FUNCTION_CHARS), default=0)
    return name[cut:]


def _heuristic_hits(sentence: str, offset: int, initial_at: int, taken: list[tuple[int, int]]) -> list[_Hit]:
    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    out: list[_Hit] = []
    for m in _ORG.finditer(sentence):
        suffix = next(sfx for sfx in _ORG_SUFFIXES if m.group().endswith(sfx))
        name = _trim_cjk(m.group(), len(suffix))
        stem = name[: -len(suffix)]
        if len(stem) >= 2 and not _GENERIC_ORG.fullmatch(stem) and free(offset + m.start(), offset + m.end()):
            start = offset + m.end() - len(name)
            out.append(
                _Hit(
                    start,
                    offset + m.end(),
                    name,
                    lexicon.entity_id("organization", name),
                    name,
                    "organization",
                    None,
                )
            )
    for m in _QUOTED.finditer(sentence):
        name = m.group(1).strip()
        if name and free(offset + m.start(1), offset + m.end(1)) and not name.isdigit():
            out.append(
                _Hit(
                    offset + m.start(1),
                    offset + m.end(1),
                    name,
                    lexicon.entity_id("concept", name),
                    name,
                    "concept",
                    None,
                )
            )
    # Capitalised runs of one to three words, and CamelCase or digit-bearing names; in a
    # Title Case heading every word is capitalised, so only CamelCase counts there.
    tokens = [(m.start(), m.end(), m.group()) for m in _LATIN.finditer(sentence)]
    heading = _title_case(tokens)
    i = 0
    while i < len(tokens):
        start, _end, word = tokens[i]
        camel = bool(_CAMEL.fullmatch(word))
        capital = word[0].isupper() and word[1:].islower() and len(word) > 1 and not heading
        if not (camel or capital) or word in _STOP:
            i += 1
            continue
        j = i + 1
        while (
            j < len(tokens)
            and j - i < 3
            and tokens[j][0] - tokens[j - 1][1] == 1
            and tokens[j][2][0].isupper()
            and not tokens[j][2].isupper()
            and tokens[j][2] not in _STOP
        ):
            j += 1
        a, b = start, tokens[j - 1][1]
        # A sentence's first word is a name only when a plain capitalised word follows
        # ("Alice Chen owns it"), not alone and not before a product ("Deploy FooBar").
        if start == initial_at and not camel and (j == i + 1 or _CAMEL.fullmatch(tokens[i + 1][2])):
            i += 1
            continue
        if free(offset + a, offset + b):
            name = sentence[a:b]
            out.append(
                _Hit(offset + a, offset + b, name, lexicon.entity_id("concept", name), name, "concept", None)
            )
        i = j
    return out


def _sentences(text: str) -> Iterable[tuple[int, str, int]]:
    """(offset, sentence, offset within it of its first word)."""
    start = 0
    for m in [*_BOUNDARY.finditer(text), None]:
        end = m.end() if m is not None else len(text)
        sentence = text[start:end]
        if sentence.strip():
            lead = _LEAD.match(sentence)
            yield start, sentence, lead.end() if lead else 0
        start = end


Group = tuple[int, int, bool]  # start, end, whether it opens the match
# What may stand between a replacement's verb and the name it is about.
_FILLER = re.compile(r"(?:\s|the\b|a\b|an\b|our\b|my\b|their\b|using\b|use\b|用|使用|了|掉|再)*", re.I)


def _groups(sentence: str, offset: int) -> list[tuple[Group | None, Group | None, bool]]:
    """(old, new, paired) for each replacement the sentence states: `paired` when the
    pattern names both sides ("from X to Y"), so both must be found for it to count. A
    group that opens the match ("Vue instead of ...", "把 React 换成 ...") ends at the
    keyword, so its name is the one it ends with; any other starts at it."""
    out: list[tuple[Group | None, Group | None, bool]] = []
    for pattern in (*_EN_REPLACE, *_CN_REPLACE):
        paired = {"old", "new"} <= pattern.groupindex.keys()
        for m in pattern.finditer(sentence):
            groups: list[Group | None] = []
            for g in ("old", "new"):
                if g in pattern.groupindex and m.group(g):
                    groups.append((offset + m.start(g), offset + m.end(g), m.start(g) == m.start()))
                else:
                    groups.append(None)
            out.append((groups[0], groups[1], paired))
    return out


def _named(hits: list[_Hit], group: Group | None, text: str) -> _Hit | None:
    """The name a group is about: the one it starts with ("from React to ..."), or for a
    group before the keyword the one it ends with ("... pick Vue instead of"); not a
    name further inside ("from the queue's old Kafka cluster")."""
    if group is None:
        return None
    a, b, before = group
    inside = sorted((h for h in hits if a <= h.start and h.end <= b), key=lambda h: h.start)
    if before:
        return next((h for h in reversed(inside) if _FILLER.fullmatch(text[h.end : b])), None)
    return next((h for h in inside if _FILLER.fullmatch(text[a : h.start])), None)


# Slots close enough that one choice replaces the other ("move the job queue from Postgres
# to Redis"); a message broker and an analytics store stay apart ("from Kafka to ClickHouse"
# moves data, it replaces neither).
_FAMILIES = {
    "key-value store": "database",
    "analytics database": "database",
    "web meta-framework": "frontend framework",
    "python formatter": "python linter",
    "javascript formatter": "javascript linter",
    "container orchestrator": "container runtime",
}


def family(category: str | None) -> str | None:
    return _FAMILIES.get(category, category) if category else None


def _compatible(old: _Hit, new: _Hit) -> bool:
    """One choice replacing another: the same kind of thing."""
    if old.id == new.id or old.type != new.type:
        return False
    return old.category is None or new.category is None or family(old.category) == family(new.category)


def by_rules(
    title: str, body: str, *, memory_type: str, project: str | None = None, min_unknown: int = 1
) -> Extraction:
    """The rules' reading of a memory. `min_unknown`: how often a name the lexicon does not
    know must appear to count (sessions are long and full of capitalised noise: 2)."""
    text = f"{title}\n{body}"
    found: dict[str, Found] = {}
    replaced: set[str] = set()
    adopted: set[str] = set()
    kept: set[str] = set()
    stance: dict[str, set[str]] = {}
    unknown: dict[str, Found] = {}
    for offset, sentence, initial in _sentences(text):
        hits = _known_hits(sentence, offset, initial)
        taken = [(h.start, h.end) for h in hits]
        extra = _heuristic_hits(sentence, offset, initial, taken)
        if project and len(project) >= 3:  # as written: "app" is not the project "App"
            for m in re.finditer(rf"(?<![\w-]){re.escape(project)}(?![\w-])", sentence):
                if all(m.end() + offset <= s or m.start() + offset >= e for s, e in taken):
                    extra = [h for h in extra if not (h.start <= offset + m.start() < h.end)]
                    hits.append(
                        _Hit(
                            offset + m.start(),
                            offset + m.end(),
                            m.group(),
                            lexicon.entity_id("project", project),
                            project,
                            "project",
                            None,
                        )
                    )
        named = sorted(hits + extra, key=lambda h: (h.start, -h.end))
        spans = [(h.start - offset, h.end - offset) for h in named]
        left = {named[i].id for i in contrast.left_behind(sentence, spans)}
        kept |= {named[i].id for i in contrast.kept(sentence, spans)} - left
        replaced |= left
        for old_span, new_span, paired in _groups(sentence, offset):
            old, new = _named(named, old_span, text), _named(named, new_span, text)
            if old is not None and new is not None:
                if _compatible(old, new):
                    replaced.add(old.id)
                    adopted.add(new.id)
            elif old is not None and not paired:  # "we no longer use Redux", "不再用 React"
                replaced.add(old.id)
            elif new is not None and old_span is None:  # "改用 Solid"
                adopted.add(new.id)
        runs = _RUNS_ON.search(sentence)
        clause_marks = []
        for a, b in contrast.clauses(sentence):
            part = sentence[a:b]
            marks = {m for m, rx in (("prefers", _PREFER), ("uses", _USE)) if rx.search(part)}
            clause_marks.append((offset + a, offset + b, marks))
        for h, pool in [(h, found) for h in hits] + [(h, unknown) for h in extra]:
            f = pool.get(h.id)
            if f is None:
                f = pool[h.id] = Found(h.id, h.name, h.type, category=h.category, first=h.start)
            f.mentions += 1
            f.surfaces.add(h.surface)
            marks = stance.setdefault(h.id, set())
            if h.type == "project":
                marks.add("works_on")
            if runs and h.type in ("tool", "organization", "place"):
                marks.add("runs_on")
            if h.id in left:
                continue
            for a, b, clause in clause_marks:
                if a <= h.start < b:
                    marks |= clause
            if h.id in kept:
                marks.add("uses")
    for f in unknown.values():
        if f.mentions >= min_unknown and f.id not in found:
            found[f.id] = f
    replaced -= adopted
    chosen_families = {
        (f.type, family(f.category))
        for f in found.values()
        if f.category and (f.id in adopted or stance.get(f.id, set()) & {"uses", "prefers"})
    }
    for f in found.values():
        marks = stance.get(f.id, set())
        beside = (
            not marks & {"uses", "prefers"}
            and f.id not in adopted
            and (f.type, family(f.category)) in chosen_families
        )
        f.predicate = _predicate(f, memory_type, marks, f.id in replaced, f.id in adopted, beside)
    chosen = sorted(found.values(), key=lambda f: (-f.mentions, f.first))[:MAX_ENTITIES]
    ids = {f.id for f in chosen}
    return Extraction(
        chosen,
        replaced=replaced & ids,
        kept=kept & ids,
        subjects=subject.subjects(title, body, [s for f in found.values() for s in (f.name, *f.surfaces)]),
    )


def _predicate(
    f: Found, memory_type: str, marks: set[str], was_replaced: bool, was_adopted: bool, beside: bool = False
) -> str:
    """`beside`: a name of the same kind as the memory's choice that it does not say it
    uses ("SQLite locked up" in a decision for Postgres): mentioned, not chosen."""
    if was_replaced:
        return "mentions"
    if f.type == "project":
        return "works_on"
    choosable = f.type in ("library", "tool")
    if was_adopted or (choosable and ("prefers" in marks or "uses" in marks)):
        return "prefers" if memory_type == "preference" or "prefers" in marks else "uses"
    if choosable and memory_type == "preference" and not beside:
        return "prefers"
    if choosable and memory_type == "decision" and not beside:
        return "uses"
    if "runs_on" in marks:
        return "runs_on"
    return "mentions"


_VERSION = re.compile(r"[\s\-_]*v?\d+(?:\.\d+)*[a-z]?$", re.I)
_CORPORATE = re.compile(
    r"(?:[\s,]+(?:inc|llc|ltd|limited|corp|corporation|co|gmbh|plc)\.?|公司|集团|有限公司|科技有限公司)$",
    re.I,
)


def _bare(name: str) -> str:
    """A name as the LLM may write it, without its version or company form ("Python 3.12",
    "React 18", "Google LLC", "腾讯公司"), to find it in the lexicon."""
    return _CORPORATE.sub("", _VERSION.sub("", name)).strip() or name


def from_llm(items: Iterable[tuple[str, str, int, str, bool]], *, by: str) -> Extraction:
    """The LLM's answer (name, type, mentions, relation, replaced) in the rules' shape; a
    name the lexicon knows takes the lexicon's type and id, so both roads meet."""
    found: dict[str, Found] = {}
    replaced: set[str] = set()
    for i, (name, kind, mentions, relation, was_replaced) in enumerate(items):
        name = " ".join(name.split())
        if not name:
            continue
        known = lexicon.lookup(name) or lexicon.lookup(_bare(name))
        if known is not None:
            eid, display, kind, category = known.id, known.name, known.type, known.category
        else:
            kind = kind if kind in lexicon.TYPES else "concept"
            eid, display, category = lexicon.entity_id(kind, name), name, None
        f = found.get(eid)
        if f is None:
            f = found[eid] = Found(eid, display, kind, category=category, first=i)
        f.mentions += max(1, mentions)
        f.surfaces.add(name)
        pred = relation if relation in STANCES else "mentions"
        if was_replaced:
            replaced.add(eid)
            pred = "mentions"
        if f.predicate == "mentions" or pred in POSITIVE:
            f.predicate = pred
    chosen = list(found.values())[:MAX_ENTITIES]
    return Extraction(chosen, replaced={f.id for f in chosen if f.id in replaced}, by=by)
