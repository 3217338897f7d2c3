"""Poisoned memories: text aimed at a future AI, planted in what an agent read.

A web page, an issue or a file an agent reads is captured into memory and handed to later
sessions; "ignore previous instructions", a fake SYSTEM line, invisible Unicode tag
characters or bidi overrides would reach a future agent as if the user had said them.
`inspect` strips the invisible and bidi controls and says why a text reads as an
instruction to an AI; the store marks such a memory `suspect` and keeps it away from the
start-up snapshot, the exports and automatic promotion until a person clears it.

How it decides (measured on tests/core/poison/corpus.py, see docs/security.md):
- hidden characters: Unicode tag characters (kept only inside emoji flag sequences), bidi
  embeddings/overrides and unbalanced isolates, runs of zero-width characters, zero-width
  joiners between Latin letters, runs of variation selectors. Legitimate uses stay: ZWJ
  inside emoji sequences and ZWJ/ZWNJ in Arabic, Persian and Indic words, LRM/RLM in text
  that has right-to-left letters, single variation selectors, balanced one-line isolates.
  Text hidden in tag characters, variation selectors and base64 is decoded and read too.
- instruction-like content: general signals, each weighted, summed within a window of
  text (one kind counted once): overriding earlier instructions, claiming system or
  developer authority, chat role tokens and tool-call markup, addressing an AI reader or
  a future session, speaking for the user ("the user wants you to"), asking for secrecy,
  asking to send secrets out, risky actions. A risky action or a "from now on" alone never
  flags: a person's own CLAUDE.md says such things. Role tokens and tool markup inside
  code (fences, inline code) are taken as code; other signals there, in quotes or next to
  words like "prompt injection" count half: a developer quoting an attack is not one.

Before matching, Greek and Cyrillic lookalikes inside Latin words are read as Latin letters
and letters spaced one by one are joined (only for detection: the stored text keeps its
characters). `inspect_all` reads a memory's pieces together as well: the snapshot shows
"title: body", so an attack split between them is whole there. Tuned further on texts a
red-team tester wrote (the corpus's "outside" source, dev half only).

Linear time: every pattern has bounded gaps, the work per match is bounded and the number
of matches read per pattern is capped. Standard library only: the write path imports it.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import itertools
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

TOGETHER = "read together: "  # prefix of a reason found only in neighbouring pieces joined
THRESHOLD = 2.0  # sum of signal weights within one window that makes a text suspect
_WINDOW = 600  # characters: signals further apart do not add up
_MAX_HITS = 64  # matches read per pattern (bounds the work on hostile input)
_MAX_STARTS = 4096  # match attempts per pattern (bounds the work on hostile input)
_MAX_ANCHORS = 4096  # occurrences looked up per anchor literal
_QUOTE_MAX = 60


@dataclass(frozen=True)
class Verdict:
    text: str  # the text with invisible and bidi controls removed
    reasons: tuple[str, ...] = ()  # empty when nothing instruction-like or hidden was found

    @property
    def suspect(self) -> bool:
        return bool(self.reasons)


# ---------------------------------------------------------------------------------------
# Hidden characters

_TAG_LO, _TAG_HI = 0xE0000, 0xE007F
_BIDI_EMBED = "\u202a\u202b\u202c\u202d\u202e"  # LRE RLE PDF LRO RLO
_ISOLATE_OPEN, _ISOLATE_CLOSE = "\u2066\u2067\u2068", "\u2069"  # LRI RLI FSI / PDI
_MARKS = "\u200e\u200f\u061c"  # LRM RLM ALM: legitimate in right-to-left text
_JOINERS = "\u200c\u200d"  # ZWNJ ZWJ: legitimate in emoji and several scripts
_ZERO_WIDTH = "\u200b\u2060\u2061\u2062\u2063\u2064\ufeff\u180e"  # ZWSP WJ invisible ops BOM MVS
_DEPRECATED = "\u206a\u206b\u206c\u206d\u206e\u206f\ufff9\ufffa\ufffb"

_INVISIBLE_RUN = re.compile(
    "[\U000e0000-\U000e007f\u202a-\u202e\u2066-\u2069\u200b-\u200f\u061c\u2060-\u2064"
    "\ufeff\u180e\u206a-\u206f\ufff9-\ufffb\ufe00-\ufe0f\U000e0100-\U000e01ef]+"
)
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")


def _is_vs(ch: str) -> bool:
    return "\ufe00" <= ch <= "\ufe0f" or "\U000e0100" <= ch <= "\U000e01ef"


def _joinable(ch: str) -> bool:
    """A character a ZWJ/ZWNJ may legitimately sit next to: a letter or mark of a non-Latin
    script (Arabic, Persian, Indic, Sinhala...) or an emoji."""
    if not ch:
        return False
    o = ord(ch)
    if o >= 0x1F000 or 0x2600 <= o <= 0x27BF or 0x2B00 <= o <= 0x2BFF or o == 0xFE0F:
        return True  # emoji, symbols, presentation selector
    return o >= 0x0590 and unicodedata.category(ch)[0] in "LM"


def _vs_byte(ch: str) -> int:
    o = ord(ch)
    return o - 0xFE00 if o <= 0xFE0F else o - 0xE0100 + 16


@dataclass
class _Hidden:
    counts: dict[str, int]
    decoded: list[str]  # text recovered from tag characters and variation selectors


def _strip(text: str) -> tuple[str, _Hidden]:
    """Remove hiding characters, keep the legitimate ones, note what was hidden (linear)."""
    rtl = _RTL.search(text) is not None
    hidden = _Hidden({}, [])
    out: list[str] = []
    last = 0

    def note(kind: str, n: int = 1) -> None:
        hidden.counts[kind] = hidden.counts.get(kind, 0) + n

    # Isolates: balanced pairs on one line are what i18n libraries (Fluent, ICU) insert.
    depth = 0
    for m in _INVISIBLE_RUN.finditer(text):
        s, e = m.span()
        run = m.group()
        before = text[s - 1] if s else ""
        after = text[e] if e < len(text) else ""
        keep: list[str] = []
        tags: list[str] = []
        vs_bytes: list[int] = []
        zw_in_run = 0
        # Emoji tag sequences (subdivision flags) follow U+1F3F4 and end in U+E007F.
        flag_sequence = (
            before == "\U0001f3f4"
            and run[-1] == "\U000e007f"
            and all("\U000e0061" <= c <= "\U000e007a" or "\U000e0030" <= c <= "\U000e0039" for c in run[:-1])
        )
        for i, ch in enumerate(run):
            o = ord(ch)
            if _TAG_LO <= o <= _TAG_HI:
                # Emoji tag sequences (subdivision flags) follow U+1F3F4 and end in U+E007F.
                if flag_sequence:
                    keep.append(ch)
                    continue
                tags.append(ch)
            elif ch in _BIDI_EMBED:
                note("bidi override")
            elif ch in _ISOLATE_OPEN:
                depth += 1
            elif ch == _ISOLATE_CLOSE:
                if depth == 0:
                    note("unbalanced bidi isolate")
                depth = max(0, depth - 1)
            elif ch in _MARKS:
                if rtl and len(run) == 1:
                    keep.append(ch)
                else:
                    zw_in_run += 1
            elif ch in _JOINERS:
                prev = run[i - 1] if i else before
                nxt = run[i + 1] if i + 1 < len(run) else after
                if len(run) <= 2 and _joinable(prev) and (_joinable(nxt) or _is_vs(nxt)):
                    keep.append(ch)
                elif len(run) == 2 and i == 1 and _is_vs(run[0]) and _joinable(after):
                    keep.append(ch)  # emoji + VS16 + ZWJ + emoji
                else:
                    zw_in_run += 1
                    if before.isascii() and before.isalpha() and after.isascii() and after.isalpha():
                        note("zero-width joiner inside a word")
            elif ch in _ZERO_WIDTH:
                if ch == "\ufeff" and s == 0 and len(run) == 1:
                    continue  # a byte order mark at the start of a file
                zw_in_run += 1
            elif ch in _DEPRECATED:
                note("deprecated format character")
            elif _is_vs(ch):
                prev = run[i - 1] if i else before
                if i == 0 or (i == 1 and prev in "\u200d"):
                    keep.append(ch)  # one selector after its base character
                else:
                    vs_bytes.append(_vs_byte(ch))
        if tags:
            note("tag characters", len(tags))
            spelt = "".join(chr(ord(c) - _TAG_LO) for c in tags if 0xE0020 <= ord(c) <= 0xE007E)
            if spelt.strip():
                hidden.decoded.append(spelt)
        if vs_bytes:
            if keep and _is_vs(keep[-1]) and len(vs_bytes) >= 2:
                vs_bytes.insert(0, _vs_byte(keep.pop()))
            if len(vs_bytes) >= 2:
                note("variation selectors", len(vs_bytes))
                hidden.decoded.append(bytes(vs_bytes).decode("utf-8", "replace"))
        if zw_in_run >= 2:
            note("zero-width characters", zw_in_run)
        out.append(text[last:s])
        out.append("".join(keep))
        last = e
    out.append(text[last:])
    if depth > 0:
        note("unbalanced bidi isolate")
    cleaned = "".join(out)
    return cleaned, hidden


def _isolates_span_lines(text: str) -> bool:
    """An isolate left open across a line break reorders more than a placeable (linear)."""
    depth = 0
    for m in re.finditer("[\u2066-\u2069\n]", text):
        ch = m.group()
        if ch == "\n":
            if depth:
                return True
        elif ch == _ISOLATE_CLOSE:
            depth = max(0, depth - 1)
        else:
            depth += 1
    return False


_WORD_SPLIT = re.compile("[A-Za-z][\u200b\u200c\u200d\u2060\ufeff\u00ad][A-Za-z]")


def _hidden_reasons(text: str, hidden: _Hidden) -> list[str]:
    counts = dict(hidden.counts)
    if any(ch in text for ch in _ISOLATE_OPEN) and _isolates_span_lines(text):
        counts["bidi isolate across lines"] = 1
    split = sum(1 for _ in zip(range(_MAX_HITS), _WORD_SPLIT.finditer(text), strict=False))
    if split >= 2:
        counts["zero-width characters inside words"] = split
    reasons = []
    for kind, n in counts.items():
        reasons.append(f"hidden characters: {kind} ({n} removed)" if n > 1 else f"hidden characters: {kind}")
    for spelt in hidden.decoded:
        reasons.append(f"hidden text reads: {_quote(spelt)}")
    return reasons


# ---------------------------------------------------------------------------------------
# Instruction-like content


@dataclass(frozen=True)
class _Rule:
    kind: str  # one kind counts once per window
    label: str  # shown to the person, before the quote
    weight: float
    pattern: re.Pattern[str]
    in_code: float = 0.5  # weight factor inside code fences or inline code
    negatable: bool = False  # "never push to main" is a rule, not a request
    # Lower-case literals every match contains, each with how many characters before it a
    # match may start: only those starts are tried (see _rule_matches).
    anchors: dict[str, int] = field(default_factory=dict)
    # Anchor literals of which one must occur somewhere in the text for the rule to be tried
    # at all (a rule that starts at a common verb but needs a rare word later).
    requires: tuple[str, ...] = ()


def _anchors(*groups: str, back: int = 0) -> dict[str, int]:
    """Anchor literals ("a|b|c") that may be preceded by up to `back` characters of a match."""
    return {word: back for group in groups for word in group.split("|")}


_I = re.IGNORECASE | re.MULTILINE
_AI = (
    r"(?:ai|a\.i\.|llms?|large language models?|language models?|chatbots?|assistants?|agents?|"
    r"bots?|models?|claude|chatgpt|gpt(?:-?\d\w*)?|copilot|codex|gemini|cursor|openclaw)"
)
_AI_ZH = r"(?:AI|ai|人工智能|大模型|大语言模型|语言模型|模型|助手|智能体|机器人|Claude|ChatGPT|Codex)"
_SECRET = (
    r"(?:api[ _-]?keys?|secrets?|tokens?|passwords?|credentials?|private keys?|ssh keys?|id_rsa|"
    r"\.env\b|\.ssh|\.aws|cookies?|system prompt|[A-Z][A-Z0-9]*_(?:KEY|TOKEN|SECRET)\b|"
    r"密钥|秘钥|密码|令牌|凭证|凭据|私钥|系统提示词)"
)
_OVERRIDE_VERB = (
    r"(?:ignore|disregard|forget|override|bypass|abandon|discard|neglect|overlook|set aside|put aside|"
    r"pay no (?:attention|heed) to|do not (?:follow|obey)|don'?t (?:follow|obey)|stop following|"
    r"no longer (?:follow|obey|bound by|restricted by))"
)
_EARLIER = r"(?:previous|prior|above|earlier|preceding|above-mentioned|your|safety|system)"
_DET = (
    r"(?:all|any|every|the|your|of|these|those|its|user's|users'|previous|prior|above|earlier|preceding|"
    r"former|original|initial|existing|system|safety|other|current|old|developer|above-mentioned)"
)
# What an AI is told: overriding these is aimed at an AI whatever comes before them.
_GUIDANCE = r"(?:instructions?|prompts?|directives?|guidelines|guidance|guardrails|programming|system prompt)"
# Words a person uses about software too ("override the existing rules", "bypass the
# constraints"): aimed at an AI only after "previous", "above", "your"...
_RULES = r"(?:rules|directions|orders|commands|requirements|constraints|restrictions|polic(?:y|ies))"
_DEST = r"(?:https?://|\S+@\S+\.\w|s3://|pastebin|webhook|this (?:url|address|email)|这个邮箱|邮箱)"
# Secrets that live on the machine an agent runs on: reading them out to a place outside
# is what an attacker wants and what a person's note never asks of an agent.
_MACHINE_SECRET = (
    r"(?:~?/?\.ssh\b|\bid_(?:rsa|ed25519|ecdsa)\b|\.aws\b|\.env\b|\bprivate keys?\b|"
    r"\b(?:all |the )?(?:environment variables|env vars)\b|\bcookies\b|\bkeychain\b|私钥|凭证|凭据|环境变量)"
)
_MACHINE_SECRET_WORDS = (
    "id_rsa|id_ed25519|id_ecdsa|.ssh|.aws|.env|private key|environment variable|env var|"
    "cookie|keychain|私钥|凭证|凭据|环境变量"
)
# Outside places: a web address, a webhook, a mail address (not scp's user@host:path).
_OUT = r"(?:https?://|webhook|pastebin|[\w.+-]{1,64}@[\w-]{1,63}\.[\w.-]{0,190}\w\b(?!:))"
_SEND = r"(?:send|post|upload|e-?mail|mail|forward|exfiltrate|leak|transmit|paste|copy)(?:s|ed|ing)?"
_DEST_ZH = rf"(?:{_OUT}|我的(?:服务器|邮箱|网站|地址))"

RULES: tuple[_Rule, ...] = (
    _Rule(
        "override",
        "instructions addressed to an AI",
        2.0,
        re.compile(
            rf"\b{_OVERRIDE_VERB}\s+(?:{_DET}(?:'s)?\s+){{1,4}}{_GUIDANCE}\b"
            rf"|\b{_OVERRIDE_VERB}\s+(?:{_DET}(?:'s)?\s+){{0,3}}{_EARLIER}(?:'s)?\s+"
            rf"(?:{_DET}(?:'s)?\s+){{0,2}}{_RULES}\b"
            r"|\b(?:ignore|disregard|forget|set aside|put aside|throw out|drop)\s+"
            r"(?:everything|anything|all(?: of)?(?: the)?|what(?:ever)?)\s+"
            r"(?:(?:that |which )?(?:was |is )?(?:said |written |stated )?"
            r"(?:above|before|prior|previously|earlier)"
            r"|(?:that )?you(?:'ve| have| were| had)? (?:been )?(?:told|given|instructed|asked)"
            r"|(?:that )?you(?:'ve| have)? learn(?:ed|t)\b[^.\n]{0,12}?\b(?:before|earlier|previously|so far|"
            r"in (?:previous|earlier|past|prior|other) (?:sessions?|conversations?|chats?)))",
            _I,
        ),
        anchors=_anchors(
            "ignore|disregard|forget|override|bypass|abandon|discard|neglect|overlook|pay no|do not|don|"
            "stop following|no longer|set aside|put aside|throw out|drop"
        ),
    ),
    _Rule(
        "override",
        "instructions addressed to an AI",  # declares earlier instructions void
        1.5,
        re.compile(
            rf"\b{_EARLIER}\s+(?:{_GUIDANCE}|{_RULES})\s+(?:are|is|were|was|have been|has been)\s+"
            r"(?:now\s+)?(?:void|null|outdated|obsolete|cancell?ed|revoked|invalid|superseded|"
            r"(?:just |only )?a test|no longer (?:valid|in effect|relevant))\b"
            rf"|\b{_GUIDANCE}\s+(?:above|before)\s+(?:are|is|were|was)\s+(?:void|outdated|obsolete|"
            r"cancell?ed|revoked|invalid|superseded|(?:just |only )?a test)\b"
            rf"|\b{_EARLIER}\s+(?:{_GUIDANCE}|{_RULES})\s+no longer appl(?:y|ies)\b",
            _I,
        ),
        anchors=_anchors(
            "previous|prior|above|earlier|preceding|instruction|prompt|directive|guideline|guidance|"
            "guardrail|programming"
        ),
    ),
    _Rule(
        "override",
        "instructions addressed to an AI",
        2.0,
        re.compile(
            # The same request in a few other languages (cheap, literal forms only).
            r"\bignor(?:e[rz]?|ez)\s+(?:toutes\s+)?(?:les|vos|tes)\s+(?:instructions|consignes|directives|"
            r"règles)\s+(?:précédentes|antérieures|ci-dessus)"
            r"|\boublie[rz]?\s+(?:toutes\s+)?(?:les|vos|tes)\s+(?:instructions|consignes)\s+"
            r"(?:précédentes|antérieures|ci-dessus)"
            r"|\b(?:ignora|ignore|olvida)\s+(?:todas\s+)?(?:las\s+)?(?:instrucciones|indicaciones)\s+"
            r"(?:anteriores|previas)"
            r"|\b(?:ignoriere|ignorieren sie|vergiss|vergessen sie)\s+(?:alle\s+)?(?:vorherigen|bisherigen|"
            r"vorigen|obigen)\s+(?:anweisungen|instruktionen|regeln)"
            r"|(?:игнорируй(?:те)?|проигнорируй(?:те)?|забудь(?:те)?)\s+(?:все\s+)?(?:предыдущие|прежние|"
            r"вышеуказанные|прошлые)\s+(?:инструкции|указания|правила)",
            _I,
        ),
        anchors=_anchors("ignor|oublie|olvida|vergiss|vergessen|игнорир|проигнорир|забудь"),
    ),
    _Rule(
        "override",
        "instructions addressed to an AI",
        2.0,
        re.compile(
            r"(?:忽略|无视|忽视|忘记|忘掉|不要理会|别管|抛开|抛弃|不再遵守|不要遵守|不用遵守|绕过)"
            r"(?:你|掉|了)?(?:之前|以上|上面|前面|先前|原来|原有|原先|所有|一切|全部|系统|安全|收到|的|上述|"
            r"你的|任何|这些|用户的|用户|给你|对你|告诉你|你收到){1,6}"
            r"(?:指令|指示|提示词|提示|要求|命令|准则|话|说明)"
            r"|(?:忽略|无视|忽视|忘记|忘掉|不要理会|别管|抛开|抛弃|不再遵守|不要遵守|不用遵守|绕过)"
            r"(?:你|掉|了)?(?:所有|一切|全部|的|任何|这些){0,3}"
            r"(?:之前|以上|上面|前面|先前|上述|你的|系统|安全|给你|对你|告诉你)"
            r"(?:所有|一切|全部|的|任何|这些|收到|设置){0,3}(?:规则|约束|限制|规定|设定)"
            r"|(?:不管|无论|别管)(?:之前|以前|先前|上面|前面|刚才)(?:说了|说过|讲了|让你做|要求)(?:什么|的)"
        ),
        anchors=_anchors(
            "忽略|无视|忽视|忘记|忘掉|不要理会|别管|抛开|抛弃|不再遵守|不要遵守|不用遵守|绕过|不管|无论"
        ),
    ),
    _Rule(
        "authority",
        "claims system or developer authority",
        1.5,
        re.compile(
            r"^[ \t>*#_\-\[(]*(?:system|sys|admin(?:istrator)?|developer|root|operator|openai|anthropic|"
            r"instruction|instructions)(?: (?:message|prompt|note|notice|override|instructions?|update|"
            r"alert|mode))?[ \t\])*_]*[:：]"
            r"|\b(?:developer|system|admin(?:istrator)?) (?:message|override|instruction)s?\b"
            r"|\b(?:message|instructions?|note) from (?:the )?(?:developers?|system|admin|openai|"
            r"anthropic)\b"
            r"|\b(?:message|instructions?|note) for (?:the )?(?:system|claude|the ai|ai)\b",
            _I,
        ),
        in_code=0.0,
        anchors=_anchors(
            "sys|admin|developer|root|operator|openai|anthropic|instruction|message|note", back=12
        ),
    ),
    _Rule(
        "authority",
        "claims system or developer authority",
        1.5,
        re.compile(
            r"(?:^|[\[【(（])[ \t]*(?:系统|系统消息|系统提示|系统指令|管理员|管理员指令|开发者|开发者消息|"
            r"开发者指令)[ \t]*(?:[\]】)）][ \t]*[:：]?|[:：])|开发者消息|管理员指令",
            re.MULTILINE,
        ),
        in_code=0.0,
        anchors=_anchors("系统|管理员|开发者", back=8),
    ),
    _Rule(
        "markup",
        "chat role markup",
        2.0,
        re.compile(
            r"<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|"
            r"end_header_id|begin_of_text)\|>|\[/?INST\]|<</?SYS>>"
            r"|</?(?:system-reminder|system_prompt|system-prompt|sys)\b[^<>\n]{0,80}>",
            re.IGNORECASE,
        ),
        in_code=0.0,
        anchors=_anchors("<|inst]|<<|<sys|</sys", back=2),
    ),
    _Rule(
        "markup",
        "chat role markup",
        1.0,
        re.compile(r"</?(?:system|instructions?|admin|developer)>", re.IGNORECASE),
        in_code=0.0,
        anchors=_anchors("system>|instruction>|instructions>|admin>|developer>", back=2),
    ),
    _Rule(
        "markup",
        "fake tool-call markup",
        2.0,
        re.compile(
            r"</?(?:function_calls|tool_use|tool_call|tool_result|function_results)>"
            r"|<invoke\s+name\s*=|<parameter\s+name\s*=|</?antml:",
            re.IGNORECASE,
        ),
        in_code=0.0,
        anchors=_anchors(
            "function_calls>|tool_use>|tool_call>|tool_result>|function_results>|<invoke|<parameter|antml:",
            back=2,
        ),
    ),
    _Rule(
        "markup",
        "chat role markup",
        1.5,
        # A chat message written out as data: {"role": "system", "content": ...} or a YAML
        # `role: system` line. Alone it is an API example; with any other signal it is not.
        re.compile(
            r"""["']role["']\s*:\s*["'](?:system|developer)["']"""
            r"""|^[ \t\-]{0,8}role\s*:\s*["']?(?:system|developer)\b""",
            _I,
        ),
        in_code=0.0,
        anchors=_anchors("role", back=9),
    ),
    _Rule(
        "markup",
        "fake tool-call markup",
        1.0,
        re.compile(r'"(?:tool_calls|function_call)"\s*:|"type"\s*:\s*"tool_use"', re.IGNORECASE),
        in_code=0.0,
        anchors=_anchors('"tool_calls"|"function_call"|"type"'),
    ),
    _Rule(
        "addressee",
        "addressed to an AI reader",
        2.0,
        re.compile(
            rf"\bif you(?:'re| are) (?:an? |the )?(?:ai|llm|large language model|language model|"
            rf"assistant|agent|bot|automated|model)\b"
            rf"|\b(?:any|all|every|other)?\s*{_AI}\b[^.\n]{{0,30}}?\b(?:reading|processing|"
            rf"summari[sz]ing|parsing|scraping|ingesting|crawling|indexing|reviewing) this\b",
            _I,
        ),
        anchors=_anchors(
            "if you|any|all|every|other",
            "ai|a.i.|llm|language model|chatbot|assistant|agent|bot|"
            "model|claude|chatgpt|gpt|copilot|codex|gemini|cursor|openclaw",
            back=8,
        ),
    ),
    _Rule(
        "addressee",
        "addressed to an AI reader",
        1.0,
        re.compile(
            rf"\b(?:note|message|attention|reminder|p\.?s\.?|hey|hi|dear|important(?: message)?)\b"
            rf"[ \t,]{{0,3}}(?:(?:to|for)[ \t]+)?(?:all |any |the |other |future )?{_AI}\b"
            rf"|(?:^|[(\[>:]|<!--)[ \t>*#_\-(]*{_AI}[ \t]*[:,]",
            _I,
        ),
        anchors=_anchors(
            "note|message|attention|reminder|ps|p.s|hey|hi|dear|important",
            "ai|a.i.|llm|language model|chatbot|assistant|agent|bot|"
            "model|claude|chatgpt|gpt|copilot|codex|gemini|cursor|openclaw",
            back=12,
        ),
    ),
    _Rule(
        "addressee",
        "addressed to an AI reader",
        2.0,
        re.compile(
            rf"如果你是(?:一个|一名)?[ \t]*{_AI_ZH}"
            rf"|(?:阅读|读取|处理|总结|看到)(?:本|这|此)(?:文档|页面|段|条|篇|文件|内容)[^。\n]{{0,4}}{_AI_ZH}"
        ),
        anchors=_anchors("如果你是|阅读|读取|处理|总结|看到"),
    ),
    _Rule(
        "addressee",
        "addressed to an AI reader",
        1.0,
        re.compile(
            rf"(?:致|给|写给|告)[ \t]*(?:所有|任何|以后所有会话的|未来的)?[ \t]*{_AI_ZH}|{_AI_ZH}[ \t]*请注意"
        ),
        anchors=_anchors(
            "致|给|告", "ai|人工智能|大模型|语言模型|模型|助手|智能体|机器人|claude|chatgpt|codex", back=1
        ),
    ),
    _Rule(
        "future",
        "instructions to a future session",
        1.5,
        re.compile(
            r"\b(?:when|whenever|next time|once|after|if|each time|every time) you (?:read|load|see|find|"
            r"recall|retrieve|encounter|process|open) (?:this|these)\b"
            r"|(?:下次|以后|今后|将来|每次)[^。\n]{0,6}(?:读到|看到|加载|读取|检索到)(?:这|本)",
            _I,
        ),
        anchors=_anchors("when|next time|once|after|if|each time|every time|下次|以后|今后|将来|每次"),
    ),
    _Rule(
        "future",
        "instructions to a future session",
        1.0,
        re.compile(
            r"\b(?:future|later|subsequent|upcoming) (?:sessions?|conversations?|runs?|agents?|"
            r"assistants?|instances?)\b|(?:以后|今后|未来|之后)(?:所有)?的?(?:所有)?(?:会话|对话)",
            _I,
        ),
        anchors=_anchors("future|later|subsequent|upcoming|以后|今后|未来|之后"),
    ),
    _Rule(
        "speaks-for-user",
        "speaks for the user",
        1.5,  # a preference memory reads "the user wants you to run the tests first" too
        re.compile(
            r"\b(?:the )?(?:user|owner|maintainers?|developers?|admin) (?:always |really |now )?"
            r"(?:wants|would like|asked|has asked|"
            r"requests|requested|instructs|instructed|requires|expects|has (?:already )?(?:authori[sz]ed|"
            r"approved|pre-approved|granted|allowed|permitted)|authori[sz]ed)\b[^.\n]{0,20}?\byou\b"
            r"|(?:用户|维护者|管理员)(?:已经|已)?(?:希望|要求|想要|让|授权|同意|批准|允许)(?:了)?你",
            _I,
        ),
        anchors=_anchors("user|owner|maintainer|developer|admin|用户|维护者|管理员", back=4),
    ),
    _Rule(
        "speaks-for-user",
        "speaks for the user",  # passes text off as the user's
        2.0,
        re.compile(
            r"\btreat\b[^.\n]{0,40}?\bas (?:if it were )?(?:coming |written |said |sent )?(?:from|by) "
            r"(?:the )?(?:user|system|developer|operator|admin)\b"
            r"|(?:当作|视为|当成)(?:是)?(?:用户|系统|开发者|管理员)(?:说的|的(?:话|指令|消息))",
            _I,
        ),
        anchors=_anchors("treat|当作|视为|当成"),
    ),
    _Rule(
        "speaks-for-user",
        "speaks for the user",
        1.5,
        re.compile(
            r"\b(?:the )?user has (?:already )?(?:authori[sz]ed|approved|pre-approved|granted|consented|"
            r"allowed)|用户(?:已经|已)(?:授权|同意|批准)",
            _I,
        ),
        anchors=_anchors("user|用户", back=4),
    ),
    _Rule(
        "covert",
        "asks to act without telling the user",
        1.5,
        re.compile(
            r"\b(?:do not|don'?t|never|without)\s+(?:tell(?:ing)?|inform(?:ing)?|notify(?:ing)?|"
            r"mention(?:ing)?|alert(?:ing)?|ask(?:ing)?|warn(?:ing)?)\b[^.\n]{0,25}?\b(?:user|human|"
            r"person|developer|operator|anyone)\b"
            r"|\bdoes not want to be asked\b|\bwithout (?:asking|confirmation)\b"
            r"|\bdo not ask for confirmation\b"
            r"|不要(?:告诉|通知|提醒|让)用户|不要在[^。\n]{0,8}(?:提到|提及)|不需要(?:征求|询问)用户",
            _I,
        ),
        anchors=_anchors("do not|don|never|without|does not|不要|不需要"),
    ),
    _Rule(
        "covert",
        "asks to act secretly",
        1.0,
        re.compile(
            r"\b(?:secretly|covertly|quietly|silently)\s+(?:add|run|send|upload|delete|remove|"
            r"change|insert|commit|push|install|disable)\b|悄悄|偷偷|秘密地",
            _I,
        ),
        anchors=_anchors("secretly|covertly|quietly|silently|悄悄|偷偷|秘密地"),
    ),
    _Rule(
        "exfil",
        "asks to send secrets out",
        2.0,
        re.compile(
            rf"\b{_SEND}\b[^\n]{{0,50}}?{_MACHINE_SECRET}[^\n]{{0,40}}?\b(?:to|into)\s+{_OUT}"
            rf"|{_MACHINE_SECRET}[^\n]{{0,40}}?\b{_SEND}\b[^\n]{{0,30}}?\b(?:to|into)\s+(?:\S{{1,40}}\s+){{0,3}}?{_OUT}"
            rf"|{_MACHINE_SECRET}[^。\n]{{0,20}}?(?:发送|发到|发给|上传|贴到|转发)[^。\n]{{0,6}}?{_DEST_ZH}",
            _I,
        ),
        anchors=_anchors("send|post|upload|mail|forward|exfiltrate|leak|transmit|paste|copy", back=2)
        | _anchors(_MACHINE_SECRET_WORDS, back=6),
        requires=tuple(_MACHINE_SECRET_WORDS.split("|")),
    ),
    _Rule(
        "exfil",
        "asks to send secrets out",
        1.5,
        re.compile(
            rf"\b(?:send|post|upload|e-?mail|mail|forward|exfiltrate|leak|transmit|paste|copy)\b[^\n]{{0,50}}?"
            rf"{_SECRET}[^\n]{{0,40}}?\b(?:to|into)\s+{_DEST}"
            rf"|\bexfiltrate\b"
            rf"|(?:发送|发到|发给|上传|泄露|贴到|转发)[^。\n]{{0,30}}?(?:{_DEST}|我)"
            rf"|{_SECRET}[^。\n]{{0,20}}?(?:发送|发到|发给|上传|贴到|转发)",
            _I,
        ),
        anchors=_anchors(
            "send|post|upload|mail|forward|exfiltrate|leak|transmit|paste|copy|发送|发到|发给|上传|泄露|贴到|转发",
            "api|secret|token|password|credential|private key|ssh key|"
            "id_rsa|.env|.ssh|.aws|cookie|system prompt|密钥|秘钥|密码|令牌|凭证|凭据|私钥|系统提示词",
            back=2,
        )
        | _anchors("_key|_token|_secret", back=40),
    ),
    _Rule(
        "exfil",
        "asks to reveal secrets",
        1.0,
        re.compile(
            rf"\b(?:print|reveal|show|output|dump|display|cat|leak)\b[^.\n]{{0,20}}?"
            rf"(?:the )?(?:contents of )?"
            rf"(?:your |the )?{_SECRET}",
            _I,
        ),
        anchors=_anchors("print|reveal|show|output|dump|display|cat|leak"),
    ),
    _Rule(
        "action",
        "risky action",
        1.0,
        re.compile(
            r"\b(?:push|commit|merge)\w*\b[^.\n]{0,25}?\b(?:to|into|on)\s+(?:the\s+)?(?:main|master|"
            r"production|prod)\b|--force\b(?!-)|\bforce[- ]push|--no-verify"
            r"|\b(?:disable|skip|bypass|turn off|remove|delete|comment out)\b[^.\n]{0,20}?\b(?:tests?|"
            r"test suite|ci|checks?|hooks?|code review|reviews?|linters?|safety|security|2fa|mfa|"
            r"signing)\b"
            r"|\bauthorized_keys\b|\brm\s+-rf\s+[~/]|\bdrop\s+(?:table|database)\b|\bchmod\s+(?:-R\s+)?777"
            r"|\b(?:curl|wget)\b[^|\n]{0,120}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b"
            r"|\binstall\b[^.\n]{0,40}?\bfrom\s+https?://"
            r"|\b(?:approve|merge)\b[^.\n]{0,20}?\b(?:pull requests?|prs?|merge requests?)\b"
            r"|推送到\s*(?:main|master)|强制推送|(?:关闭|禁用|跳过|删除|注释掉)[^。\n]{0,8}(?:测试|CI|检查|"
            r"审查|钩子|目录)|直接合并",
            _I,
        ),
        in_code=0.5,
        negatable=True,
        anchors=_anchors(
            "push|commit|merge|--force|force|--no-verify|disable|skip|authorized_keys|"
            "bypass|turn off|remove|delete|comment out|rm|drop|chmod|"
            "curl|wget|install|approve|推送到|强制推送|关闭|禁用|跳过|删除|注释掉|直接合并"
        ),
    ),
    _Rule(
        "directive",
        "gives an AI a new role",
        1.5,
        re.compile(
            r"\byour (?:new|real|true|actual) (?:task|instructions?|role|goal|objective|purpose|job)\b"
            r"|\b(?:real|actual|true|new) (?:task|instructions?|objective|goal)\s*[:：]"
            r"|\byour (?:primary |main |only )?(?:task|objective|goal|purpose|mission)(?: is)? now\b"
            r"|\b(?:no longer|not) (?:bound|restricted|limited) by\b|\bwithout (?:any )?restrictions\b"
            r"|\bdeveloper mode\b|\bjailbroken\b|\byou are (?:now )?DAN\b"
            r"|你(?:现在)?的新任务|你(?:现在)?不再受|没有任何限制",
            _I,
        ),
        anchors=_anchors(
            "your|no longer|not|without|developer mode|jailbroken|you are|你|没有任何限制|"
            "real|actual|true|new"
        ),
    ),
    _Rule(
        "directive",
        "orders an AI",
        0.5,
        re.compile(
            r"\byou (?:must|are now|will now|should now|have to)\b|\bfrom now on\b|\bhenceforth\b"
            r"|从现在(?:开始|起)|你必须|请立即|请自动执行|自动执行",
            _I,
        ),
        anchors=_anchors("you|from now on|henceforth|从现在|你必须|请立即|请自动执行|自动执行"),
    ),
    _Rule(
        "encoded",
        "asks to decode and follow hidden text",
        1.0,
        re.compile(
            r"\b(?:decode|base64)\b[^.\n]{0,40}?\b(?:follow|execute|run|obey|do)\b|解码[^。\n]{0,20}(?:执行|照做)",
            _I,
        ),
        anchors=_anchors("decode|base64|解码"),
    ),
)

_ALL_ANCHORS = sorted({word for rule in RULES for word in rule.anchors})
_ASCII_ANCHORS = tuple((w, w.encode()) for w in _ALL_ANCHORS if w.isascii())
_WIDE_ANCHORS = tuple(w for w in _ALL_ANCHORS if not w.isascii())
_CJK = re.compile("[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
_CYRILLIC = re.compile("[\u0400-\u04ff]")
T = TypeVar("T", str, bytes)
# Characters that re.IGNORECASE matches to ASCII letters but str.lower() does not map to
# one (U+0130 even lowers to two characters, which would shift positions).
_CASE_FIXES = {"\u0130": "i", "\u0131": "i", "\u017f": "s"}


def _lowered(text: str) -> str:
    """text.lower() with the same length, so positions in it are positions in text."""
    for odd, plain in _CASE_FIXES.items():
        if odd in text:
            text = text.replace(odd, plain)
    return text.lower()


def _find_anchors(text: str) -> dict[str, list[int]]:
    """Where each anchor literal occurs. The ASCII literals are looked for in a one-byte
    copy (non-Latin-1 characters become "?", so positions stay), where a scan is a memchr
    away from free; the Chinese ones only when the text has CJK characters at all."""
    low = _lowered(text)
    found: dict[str, list[int]] = {}
    narrow = low.encode("latin-1", "replace")
    for word, needle in _ASCII_ANCHORS:
        _occurrences(narrow, needle, word, found)
    if not low.isascii():
        cjk = _CJK.search(low) is not None
        cyrillic = _CYRILLIC.search(low) is not None
        for word in _WIDE_ANCHORS:
            if (cjk and _CJK.match(word)) or (cyrillic and _CYRILLIC.match(word)):
                _occurrences(low, word, word, found)
    return found


def _occurrences(hay: T, needle: T, word: str, found: dict[str, list[int]]) -> None:
    pos = hay.find(needle)
    if pos == -1:
        return
    hits = found[word] = []
    while pos != -1 and len(hits) < _MAX_ANCHORS:
        hits.append(pos)
        pos = hay.find(needle, pos + 1)


def _rule_matches(text: str, rule: _Rule, found: dict[str, list[int]]) -> Iterator[re.Match[str]]:
    """What rule.pattern.finditer(text) yields, trying only the starts the anchors allow.

    Running the patterns over the whole text costs about a microsecond per character per
    pattern; every match contains one of the rule's anchors, so trying a match at the few
    positions just before each anchor finds the same matches (non-overlapping, left to
    right) at a small fraction of the cost. Attempts and matches are capped."""
    if rule.requires and not any(word in found for word in rule.requires):
        return
    starts: set[int] = set()
    for word, back in rule.anchors.items():
        for pos in found.get(word, ()):
            starts.update(range(max(0, pos - back), pos + 1))
    end = 0
    matches = 0
    for start in sorted(starts)[:_MAX_STARTS]:
        if start < end:
            continue
        m = rule.pattern.match(text, start)
        if m is None:
            continue
        yield m
        end = m.end()
        matches += 1
        if matches >= _MAX_HITS:
            return


_NEGATION = re.compile(
    r"(?:\b(?:never|not|don'?t|do not|avoid|no|without|nobody)\b|不要|别|切勿|禁止|不得|不能|避免)"
    r"[^.\n]{0,30}$",
    re.I,
)
_CONDITION = re.compile(r"[^.;\n]{0,20}?\bonly (?:after|when|if|once|with|via|through)\b", re.I)
_META = re.compile(
    r"prompt[- ]injection|injection (?:attack|filter|phrase)s?|jailbreak|red[- ]team|classifier|"
    r"is_injection|提示词注入|注入攻击|越狱",
    re.IGNORECASE,
)
_COMMENT_OPEN, _COMMENT_CLOSE = "<!--", "-->"
_MD_COMMENT = re.compile(r"^\[(?://|comment)\]: (?:#|<>)[^\n]*", re.MULTILINE)
_FENCE = re.compile(r"^[ \t]*(?:```|~~~)", re.MULTILINE)
_INLINE = re.compile(r"`[^`\n]{1,300}`")
_QUOTES = {'"': '"', "“": "”", "「": "」", "『": "』", "'": "'"}
_B64 = re.compile(r"[A-Za-z0-9+/]{24,}={0,2}")


def _quote(text: str) -> str:
    """A short, printable quote of what was found (shown in the digest and the tray)."""
    flat = "".join(ch if unicodedata.category(ch)[0] != "C" else " " for ch in text)
    flat = " ".join(flat.split())
    if len(flat) > _QUOTE_MAX:
        flat = flat[: _QUOTE_MAX - 1].rstrip() + "…"
    return f"'{flat}'"


def _spans(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Code spans (fenced blocks, inline code) and comment spans (HTML, markdown), sorted."""
    code: list[tuple[int, int]] = []
    fences = [m.start() for m in _FENCE.finditer(text)]
    for a, b in zip(fences[::2], fences[1::2], strict=False):
        code.append((a, b))
    if len(fences) % 2:
        code.append((fences[-1], len(text)))
    code += [m.span() for m in _INLINE.finditer(text)]
    comments: list[tuple[int, int]] = []
    pos = text.find(_COMMENT_OPEN)
    while pos != -1:
        end = text.find(_COMMENT_CLOSE, pos + 4)
        stop = len(text) if end == -1 else end + 3
        comments.append((pos, stop))
        if end == -1:
            break
        pos = text.find(_COMMENT_OPEN, stop)
    comments += [m.span() for m in _MD_COMMENT.finditer(text)]
    return sorted(code), sorted(comments)


def _inside(spans: list[tuple[int, int]], starts: list[int], pos: int) -> bool:
    i = bisect.bisect_right(starts, pos) - 1
    return i >= 0 and spans[i][0] <= pos < spans[i][1]


def _quoted(text: str, pos: int) -> bool:
    """Whether pos sits inside a quotation opened earlier on its line (bounded look-back)."""
    line_start = max(text.rfind("\n", 0, pos) + 1, pos - 200)
    head = text[line_start:pos]
    for open_, close in _QUOTES.items():
        if open_ == close:
            if head.count(open_) % 2 == 1 and (open_ != "'" or re.search(r"(?:^|[\s(=\[,])'", head)):
                return True
        elif head.rfind(open_) > head.rfind(close):
            return True
    return False


@dataclass(frozen=True)
class _Hit:
    pos: int
    rule: _Rule
    weight: float
    quote: str
    in_comment: bool


def _hits(text: str) -> list[_Hit]:
    found = _find_anchors(text)
    if not found:
        return []  # the common case: nothing any rule could match, skip the rest
    code, comments = _spans(text)
    code_starts = [a for a, _ in code]
    comment_starts = [a for a, _ in comments]
    out: list[_Hit] = []
    for rule in RULES:
        for m in _rule_matches(text, rule, found):
            pos = m.start()
            if rule.negatable and (
                _NEGATION.search(text, max(0, pos - 40), pos) or _CONDITION.match(text, m.end())
            ):
                continue
            weight = rule.weight
            if _inside(code, code_starts, pos):
                weight *= rule.in_code
            elif rule.in_code and _quoted(text, pos):
                weight *= 0.5
            if rule.kind in ("override", "addressee", "exfil") and _META.search(
                text, max(0, pos - 200), min(len(text), m.end() + 200)
            ):
                weight *= 0.5
            if weight > 0:
                out.append(_Hit(pos, rule, weight, m.group(), _inside(comments, comment_starts, pos)))
    out.sort(key=lambda h: h.pos)
    return out


def _best_window(hits: list[_Hit]) -> tuple[float, list[_Hit]]:
    """The window of _WINDOW characters with the highest score (each kind counted once)."""
    best: tuple[float, list[_Hit]] = (0.0, [])
    lo = 0
    for hi in range(len(hits)):
        while hits[hi].pos - hits[lo].pos > _WINDOW:
            lo += 1
        kinds: dict[str, _Hit] = {}
        for h in hits[lo : hi + 1]:
            if h.rule.kind not in kinds or h.weight > kinds[h.rule.kind].weight:
                kinds[h.rule.kind] = h
        score = sum(h.weight for h in kinds.values())
        if any(h.in_comment for h in kinds.values()):
            score += 1.0  # hidden from a reader of the rendered page, not from a model
        if score > best[0]:
            best = (score, sorted(kinds.values(), key=lambda h: -h.weight))
    return best


def _decoded_base64(text: str) -> list[str]:
    """Readable text hidden in base64 runs (bounded: the first few runs, 64 KB in all)."""
    out: list[str] = []
    budget = 65536
    for n, m in enumerate(_B64.finditer(text)):
        if n >= 16 or budget <= 0:
            break
        run = m.group()[: budget - budget % 4]
        budget -= len(run)
        try:
            raw = base64.b64decode(run + "=" * (-len(run) % 4), validate=False)
            plain = raw.decode("utf-8")
        except (binascii.Error, ValueError):
            continue
        readable = plain and sum(ch.isprintable() or ch.isspace() for ch in plain) / len(plain) > 0.95
        if readable and re.search(r"[A-Za-z\u4e00-\u9fff]{2,}\W+[A-Za-z\u4e00-\u9fff]{2,}", plain):
            out.append(plain)
    return out


def _instruction_reasons(probe: str, prefix: str = "") -> tuple[float, list[str]]:
    score, found = _best_window(_hits(probe))
    if score < THRESHOLD:
        return score, []
    reasons = [f"{prefix}{h.rule.label}: {_quote(h.quote)}" for h in found[:3]]
    if any(h.in_comment for h in found):
        reasons.append(f"{prefix}hidden in a comment")
    return score, reasons


# Greek and Cyrillic letters drawn like Latin ones (after Unicode's confusables list, only
# the common lookalikes of Latin letters). NFKC leaves them alone: "Іgnоrе" (Cyrillic І, о,
# е) reads as "Ignore" to a model and a person but not to a pattern.
_LOOKALIKES = str.maketrans(
    "АВЕЅІЈКМНОРСТХУ"  # Cyrillic capitals
    "аеіјоѕрсхуԁһӏԛԝ"  # Cyrillic small
    "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"  # Greek capitals
    "οαιν",  # Greek small
    "ABESIJKMHOPCTXYaeijospcxydhlqwABEZHIKMNOPTYXoaiv",
)
_LOOKALIKE = re.compile("[" + "".join(chr(k) for k in _LOOKALIKES) + "]+")
_LATINISH = re.compile("[A-Za-z" + "".join(chr(k) for k in _LOOKALIKES) + "]{1,40}")
_MAX_LOOKALIKES = 4096  # runs of lookalike letters folded (bounds the work on Greek or Russian text)
_SPACED = re.compile(r"(?<![A-Za-z])(?:[A-Za-z] ){3,}[A-Za-z](?![A-Za-z])")


def _fold_lookalikes(text: str) -> str:
    """Greek and Cyrillic lookalikes made Latin inside words that mix them with Latin
    letters (a spoof); words wholly in Greek or Cyrillic stay as they are. Same length."""
    if text.isascii() or _LOOKALIKE.search(text) is None:
        return text
    chars: list[str] | None = None
    end = 0
    for n, m in enumerate(_LOOKALIKE.finditer(text)):
        if n >= _MAX_LOOKALIKES:
            break
        if m.start() < end:
            continue
        lo = m.start()
        while lo > 0 and m.start() - lo < 40 and _LATINISH.match(text[lo - 1]):
            lo -= 1
        word = _LATINISH.match(text, lo)
        if word is None:
            continue
        end = word.end()
        if re.search("[A-Za-z]", word.group()):
            chars = chars if chars is not None else list(text)
            chars[lo:end] = word.group().translate(_LOOKALIKES)
    return text if chars is None else "".join(chars)


def _probe(text: str) -> str:
    """What detection reads: compatibility forms folded (fullwidth, math letters), the
    joiners, marks and soft hyphens that could still split a word removed, Greek and
    Cyrillic lookalikes inside Latin words made Latin, and letters spaced out one by one
    ("i g n o r e") joined. Only detection reads it: the stored text keeps its letters."""
    folded = unicodedata.normalize("NFKC", text)
    folded = re.sub("[\u200c\u200d\u200e\u200f\u061c\u00ad\ufe0f]", "", folded)
    folded = _fold_lookalikes(folded)
    return _SPACED.sub(lambda m: m.group().replace(" ", ""), folded)


def inspect(text: str) -> Verdict:
    """Strip hidden characters; say why the text reads as aimed at an AI (if it does)."""
    cleaned, hidden = _strip(text)
    reasons = _hidden_reasons(text, hidden)
    probe = _probe(cleaned)
    reasons += _instruction_reasons(probe)[1]
    for extra in hidden.decoded:
        reasons += _instruction_reasons(_probe(extra), "in the hidden text, ")[1]
    for plain in _decoded_base64(probe):
        reasons += _instruction_reasons(_probe(plain), "in base64, ")[1]
    return Verdict(cleaned, tuple(dict.fromkeys(reasons)))


def read_together(pieces: Sequence[str]) -> tuple[str, ...]:
    """Reasons found only when neighbouring pieces (a memory's title and body...) are read
    together: the snapshot shows a memory as "title: body", so an attack split between the
    title and the body, each half harmless alone, reaches the agent whole. Neighbours are
    joined both as shown (": ") and as lines ("\n"), over the stretch where signals can
    still add up (2 * _WINDOW characters each side: a few KB more to read whatever the
    size). Give it the pieces as inspect left them (stripped)."""
    reasons: list[str] = []
    edge = 2 * _WINDOW
    for a, b in itertools.pairwise(pieces):
        if not a.strip() or not b.strip():
            continue
        for sep in (": ", "\n"):
            reasons += [f"{TOGETHER}{r}" for r in inspect(a[-edge:] + sep + b[:edge]).reasons]
    return tuple(dict.fromkeys(reasons))


def inspect_all(pieces: Sequence[str]) -> Verdict:
    """Each piece, then neighbours read together (read_together) when no piece is suspect
    alone. `text` is the stripped pieces joined with newlines; a caller that stores the
    pieces apart takes each piece's text from inspect."""
    verdicts = [inspect(p) for p in pieces]
    reasons = [r for v in verdicts for r in v.reasons]
    if not reasons:
        reasons += read_together([v.text for v in verdicts])
    return Verdict("\n".join(v.text for v in verdicts), tuple(dict.fromkeys(reasons)))
