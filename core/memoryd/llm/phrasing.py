"""More of the ways people state a type without its textbook word (memoryd.llm.cues holds the
precedence; these are the phrasings it consults).

- A decision said as agreement or commitment: "you convinced me", "done deal", "final answer",
  "the plan is to", "we ended up choosing", "it stays on MySQL", "I'm going to buy X, not Y",
  想好了, 就定周六, 按你说的方案来, 不升级了, 继续用, 最后还是选了.
- A preference said as a taste or a standing instruction: "my go-to", "not a fan of",
  "more of a tea person", an instruction scoped to everything to come ("in everything you
  write", "when you suggest", "on every function") or naming what not to use ("pytest, not
  unittest"), 别给我…, 回答简短一点, 变量名用英文，注释用中文. A one-off request points at
  its object ("this", "here", "it"): that is a task, not a rule.
- A how-to told as a goal and a series of actions: "To X: a, b, c", "Descaling the kettle:
  fill, boil, rinse", "新人入职：开账号，拉群，发电脑"; or one adopted from the assistant:
  "I'll do that every month", "that's exactly what I'll do next time", 以后就这么处理.
- A warning said as harm to come or a lesson: "will wipe the data", "has no undo", "don't
  trust X", "toxic", "whatever you do", "X, so we don't do that anymore", 会直接删, 提醒一下,
  吸取教训, 不能和…一起.

Every pattern is bounded (a few words between its parts) so it stays linear on any text.
"""

from __future__ import annotations

import re

_I = re.I
_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
# When something happens once: a plan or an errand, not a choice that holds.
ONE_OFF = re.compile(
    r"\b(?:today|tonight|tomorrow|this (?:morning|afternoon|evening)|right now|at the moment|later today)\b|"
    r"今天|今晚|明天|待会|等会|马上|现在就",
    _I,
)

DECISION = re.compile(
    r"\bmade up (?:my|our) minds?\b|\bdone deal\b|\bfinal (?:answer|call|choice)\b|"
    r"\bthe plan is (?:to|that)\b|\bended up (?:choosing|picking|going with|buying|taking|booking|renting|"
    r"hiring|with)\b|\byou(?:'ve)? (?:convinced|persuaded|talked) me\b|"
    r"\b(?:take|taking|follow|following|go with|going with) your (?:suggestion|advice|recommendation|"
    r"pick|idea)\b|\b(?:we|i)(?:'ve| have)? signed (?:with|up with|the (?:contract|lease|offer))\b|"
    r"^(?:(?:ok(?:ay)?|yes|yeah|fine|right)[,!.]?\s+)?(?:agreed|deal|sold)\b(?!\s+(?:with|on|in|to)\b)|"
    r"\b(?:we|i)(?:'ll| will)\s+(?:go with|stick with|stay with|stay on|keep)\b|"
    # agreement, then what to do: "Sounds good, let's do the monthly cycle"
    r"^(?:sounds good|agreed|ok(?:ay)?|fine|great|perfect|yes|yeah|yep|alright|deal)[,!.]?\s+let'?s\b|"
    # deliberation, then the outcome: "we talked it over and ..."
    r"\b(?:talked it (?:over|through)|slept on it|thought it over|thought it through|discussed it|"
    r"weighed (?:it|them|everything|the options) up|weighed up)\b|^(?:ok(?:ay)?,?\s+)?final\s*[:：]|"
    r"\bgo(?:ing)? ahead with\b|"
    r"\b(?:we|i)(?:'re| are|'m| am) (?:switching|moving|migrating)\b[^.;]{0,40}?\bfrom\b[^.;]{1,30}?\bto\b|"
    r"\blet'?s\s+(?:keep(?! (?:it|things|this|that)\b)|drop|stick with|stay with|stay on|skip|pick|choose|"
    r"book|cancel|go ahead with|"
    r"do (?:it\b|(?-i:[A-Z0-9])|option|plan|the (?:first|second|third|last|other|former|latter)))|"
    # what stays as it is: "it stays on MySQL", "we're not migrating this quarter"
    r"\b(?:it|this|that|they|we|everything) stays? (?:on|with|as|in)\b|"
    r"\b(?:we|i)(?:'re| are|'m| am) (?:keeping|sticking with|staying with|staying on|not (?:migrating|"
    r"moving|switching|upgrading|changing|renewing|buying|going ahead))\b|"
    # a commitment that names what it turns down: "I'm going to buy the Kindle, not the Kobo"
    r"\b(?:going to|'ll|will)\s+(?:buy|get|take|use|book|rent|order|hire|pick)\b[^.;]{1,40}?"
    r"(?:,\s*not\b|\binstead of\b|\brather than\b)",
    _I,
)
# A commitment in the present progressive ("We're doing the rewrite in Rust", "I'm taking the
# job in Lyon"): a decision unless it is a one-off errand (ONE_OFF) or a problem.
DECISION_WEAK = re.compile(
    r"^(?:(?:ok(?:ay)?|so|yes|yeah|yep|yup|sure|fine|good|great|cool|perfect|right|alright|well)[,!]?\s+)*"
    r"(?:we|i)(?:'re| are|'m| am)\s+(?:going to (?!(?:try|check|look|see|ask|test|debug|need|have|be)\b)|"
    r"dropping|cancell?ing|scrapping|ditching|retiring|sunsetting|adopting|turning down|declining|"
    r"doing|renting|buying|taking|hiring|selling|moving|ordering|booking|leasing)\b",
    _I,
)
# One of the options laid out earlier, picked: "B, definitely.", "OK the lighter one then."
PICK = re.compile(
    r"^(?:(?:ok(?:ay)?|fine|yes|yeah|yep|alright|right)[,!]?\s+)?(?:option\s+|the\s+)?[\w.+-]+(?:\s+[\w.+-]+){0,2}?"
    r",?\s+(?:then|it is|definitely|for sure|please|works for (?:me|us))\b",
    _I,
)
ZH_DECISION = re.compile(
    r"想好了|考虑好了|想清楚了|下定决心|就定|定在|定成|定为|就这么办|那就这样|就这样吧|"
    r"按你说的(?:第[一二三四五六七八九十\d]+个|这个|那个)?(?:方案|办法|选项)|听你的|"
    r"不(?:换|搬|搬家|升级|买|去|改|迁|装|租|续|续费|报)了|继续(?:用|租|住|留|沿用|保持)|"
    r"保持(?:现状|不变|原样|\s*[A-Za-z0-9])|维持现状|沿用|还是(?:选|用|买|去|定)|"
    r"选\s*(?:[A-Za-z0-9]|第[一二三四五六七八九十]|[一二三四五六七八九十]号)|"
    r"(?:最后|最终|都|大家|我们?)同意|商量了|讨论了|商量过|讨论过|思来想去|想来想去|考虑再三|权衡(?:了|之后|再三)|"
    r"按(?:你说的)?第[一二三四五六七八九十\d]+(?:个|种)|"
    r"^(?:行|好|好的|可以|嗯|OK|ok)[，,。！!]\s*那?就(?![照按])|(?:最后|最终)(?:还是)?(?:选|定|买|去|用|租|报|换)"
)

PREFERENCE = re.compile(
    r"\bmore of an? [\w-]+ (?:person|guy|gal|fan|drinker|eater)\b|"
    r"\b(?:i'?m|i am) (?:not )?(?:a |an |big |huge |really )?(?:big |huge )?fan of\b|"
    r"\bnot (?:a|much of a|really a) (?:big |huge )?fan\b|\bmy (?:go-to|favou?rite|usual)\b|"
    r"\bi (?:really |much |usually )?(?:enjoy|adore|loathe|detest|avoid)\b|"
    r"^favou?r\b|\bfavou?r [\w-]+ over\b|"
    r"\bi (?:don'?t|do not) (?:like|enjoy|love)\b|\bprioriti[sz]e\b|"
    r"\bi want (?:all|every|my|any|each)\b|\b(?:i'?m|i am) (?:not |really |not really |big )?into\b|"
    # the assistant's output in general: "keep your replies short", "a note on style:"
    r"\byour (?:replies|answers|responses|messages|emails|summaries|explanations|suggestions)\b|"
    r"\b(?:a note on|notes? on) (?:style|tone|formatting|format)\b|^(?:style|tone|formatting)\s*[:：]|"
    r"\b(?:use|prefer|pick|choose|favou?r) [\w.+#-]+(?: [\w.+#-]+)? over\b|"
    r"^no [\w-]+(?: [\w-]+)?,? (?:ever|at all)\b|"
    r"\b(?:in|for|on) (?:everything|anything|all the \w+|every \w+|any \w+) (?:you|that you)\b|"
    r"\b(?:everything|anything) you (?:write|send|make|draft|suggest|give|recommend)\b|"
    r"^when(?:ever)? you (?:write|suggest|recommend|give|answer|reply|explain|make|plan|book|draft|send|"
    r"pick|cook|review)\b",
    _I,
)
# A request that names what not to use ("with pytest, not unittest", "Tabs, not spaces"): a
# standing choice unless it points at one thing (ONE_OFF_OBJECT).
CHOICE = re.compile(
    r",\s*not\s+(?:the\s+|a\s+|an\s+)?[\w.+#-]+(?:\s+[\w.+#-]+){0,2}[.!]?$|\binstead of\b|\brather than\b", _I
)
ONE_OFF_OBJECT = re.compile(
    r"\b(?:this|that|these|those|here|it|the following|below|above|attached)\b|这个|这段|这里|这些|下面|上面|"
    # one thing, named: "Make the button blue, not green" (a rule names kinds: "tests", "entries")
    r"^(?:please\s+)?[a-z]+\s+(?:the|my|our)\s+(?:[\w-]+\s+)?[\w-]+(?<![^s]s)\b(?!\s+\w+s\b)",
    _I,
)
ZH_PREFERENCE = re.compile(
    r"(?:别|不要|不用)给我|(?:叫|称呼)我[\u4e00-\u9fffA-Za-z]{1,6}就(?:行|好|可以)|以后(?:叫|称呼)我|"
    r"(?:回答|回复|答案|解释|总结|说明)[^。！？]{0,10}?(?:简短|简洁|详细|精炼|简单|短|长)一?(?:点|些)|"
    r"我[^，。]{0,4}?不(?:太|大|怎么)?能(?:吃|喝)|我(?:一般|平时|通常|基本上?|从来)(?:都)?不[\u4e00-\u9fff]|"
    r"(?:给我的|你的)(?:回复|回答|答案|代码|邮件|总结|建议)|尽量用|优先(?!级)|"
    r"^(?:写|做|回答|回复|推荐|生成|翻译|起名|取名)[^，。]{0,12}的时候|我(?:不太|不怎么|不大)(?:吃|喝|喜欢|爱)|"
    # a convention in pairs: "变量名用英文，注释用中文"
    r"[\u4e00-\u9fff]{1,6}(?<!不)用[^，,；;。]{1,12}[，,；;]\s*[\u4e00-\u9fff]{1,6}(?<!不)用"
)

# A goal and a series of actions: "To renew the cert: run X, copy Y, reload Z".
_GOAL = re.compile(
    r"^(?:to|for|when|whenever|every|each|before|after|how to|once a|daily|weekly|monthly|yearly|nightly|"
    r"morning|evening|bedtime)\b|\b(?:goes|works|is done) like this$|"
    r"\bas follows$|^[\w-]+ing\b|\bwhat (?:i|we) do\b|"
    r"\b(?:routine|checklist|process|procedure|steps|recipe|drill|playbook)\b",
    _I,
)
_NOT_ACTION = re.compile(
    r"^(?:the|a|an|my|our|his|her|their|it|it's|i|we|he|she|they|this|that|there|is|are|was|\d)\b", _I
)
_SERIES = re.compile(r"\s*(?:,\s*(?:and\s+|then\s+)?|;\s*|\s+and then\s+|\s+then\s+)")
_ZH_SERIES = re.compile(r"[，,、；;]")
_ZH_NOT_ACTION = re.compile(r"是|有|在|岁|叫|姓")
_ZH_GOAL_NOT = re.compile(r"坑|警告|注意|教训|提醒|问题|原因|结论|症状")


def series(sentence: str) -> bool:
    """Whether the sentence states a goal, then three or more actions ("Descaling the kettle:
    fill it, boil, rinse twice", "To reset it, you hold the button, wait, then log in",
    "新人入职：开账号，拉群，发电脑")."""
    head, colon, rest = sentence[:400].partition(":")
    if not colon:
        head, colon, rest = sentence[:400].partition("：")
    if colon and _zh(head) and len(head) <= 16 and not _ZH_GOAL_NOT.search(head):
        items = [x.strip(" 。.") for x in _ZH_SERIES.split(rest) if x.strip(" 。.")]
        return len(items) >= 3 and all(len(x) <= 16 and not _ZH_NOT_ACTION.search(x) for x in items)
    if not colon:  # "To reset the router, you hold ..., wait ..., then ..."
        head, colon, rest = sentence[:400].partition(",")
        if not colon or not re.match(r"(?:to|when|whenever|before|after|for)\b", head, _I):
            return False
        rest = re.sub(r"^\s*(?:you|we|i)\s+", "", rest, flags=_I)
        if first := re.search(r"\s(?:you|we|I)\s+(\S.*)$", head):  # the first action is in the head
            head, rest = head[: first.start()], f"{first.group(1)}, {rest}"
    if not colon or len(head.split()) > 10 or not _GOAL.search(head.strip()):
        return False
    items = [x.strip(" .!") for x in _SERIES.split(rest.strip()) if x.strip(" .!")]
    if len(items) < 3 or any(len(x.split()) > 12 for x in items):
        return False
    lists = re.search(r"\b(?:checklist|list|packing)\b", head, _I)
    return bool(lists) or not any(_NOT_ACTION.match(x) for x in items)


ADOPT = re.compile(
    r"\b(?:i|we)(?:'ll| will)\s+(?:\w+\s+)?(?:do|follow|use|repeat|run through)\s+"
    r"(?:that|this|those|these|it|them)\b(?:\s+steps?)?[^.;]{0,30}?"
    r"\b(?:every|each|next time|from now on|whenever|going forward|again|daily|weekly|monthly|yearly|"
    r"annually|regularly)\b|"
    r"\bthat'?s (?:exactly )?what (?:i|we)(?:'ll| will) do\b|"
    r"\b(?:i|we)(?:'ll| will) follow (?:those|these|the|your) (?:steps|instructions)\b|"
    r"\b(?:save|saving|keep|keeping|store|storing) (?:this|that|it) as (?:the|our|my) (?:way|method)\b",
    _I,
)
ZH_ADOPT = re.compile(
    r"(?:就|都|也)(?:这样|这么)(?:弄|做|办|处理|操作)|照(?:你|这)(?:个|样)?(?:步骤|办法|流程)|照着(?:做|来|弄|办)"
)

CAUTION = re.compile(
    r"\bwhatever you do\b|\bdon'?t ever\b|\bnever ever\b|\bno undo\b|\bcan(?:'?t|not) be undone\b|"
    r"\birreversibl\w*|\bno way back\b|\b(?:toxic|poisonous|flammable|lethal|fatal)\b|\bfire hazard\b|"
    r"\blessons? learned\b|\b(?:don'?t|never|do not)\s+(?:trust|rely on|count on|assume)\b|"
    r"\b(?:don'?t|never|do not)\s+(?:mix|combine)\b|"
    # check before a destructive act: "double-check the URL before deleting anything"
    r"\b(?:double-check|check|make sure|confirm|verify)\b[^.;]{0,50}?\bbefore (?:deleting|dropping|running|"
    r"deploying|pushing|restoring|wiping|removing|formatting|resetting)\b|"
    r"\b(?:can|could|will|may|might) (?:make you (?:sick|ill)|hurt you|poison you|give you food poisoning)\b|"
    r"\b(?:almost|nearly) cost (?:me|us)\b|\b(?:phishing|scam|fraudulent)\b|"
    # a harm told, then what is done since: "it messed up the history, so we don't do that"
    r"\b(?:messed up|wiped|corrupted|ruined|burned|burnt|cost (?:me|us))\b[^.;]{0,80}?,?\s+so\s+"
    r"(?:we|i|you|always|never|don'?t|check|make sure)\b",
    _I,
)
ZH_CAUTION = re.compile(
    r"提醒一下|提个醒|友情提示|吸取教训|长记性|长个记性|血的教训|不能(?:和|跟|与)[^，。]{1,10}一起|"
    r"要注意|需要注意|得注意|"
    # a past mistake told: "之前拿错过一次"
    r"(?:上次|上回|之前|以前|有一次|那次)[^。！？]{0,20}?[\u4e00-\u9fff]错(?:过|了|一次)"
)
# "注意…" leading a sentence (the title drops it as a lead-in, so it is read on the raw text).
ZH_HEED = re.compile(r"^注意(?!力)")
# Harm to come, as a statement (checked after requests and problem reports): "running the seed
# script against prod will wipe the data", "重试会重复扣款".
HARM = re.compile(
    r"\b(?:will|would|can|could|may|might)\s+(?:\w+\s+)?(?:wipe|delete|destroy|corrupt|erase|overwrite|brick|"
    r"void|kill|leak|lock you out|get you banned|charge you)\b|"
    r"\b(?:drops|wipes|deletes|erases|loses|truncates|overwrites|corrupts|resets|kills)\b[^.;]{0,60}?"
    r"(?:,\s*so\b|\bfirst\b|\bbefore\b)|\bsilently (?:drops|truncates|deletes|ignores|overwrites|fails)\b",
    _I,
)
ZH_HARM = re.compile(
    r"会(?:直接|自动|把)?[^，。]{0,6}?(?:删|丢|清空|覆盖|重复扣|扣费|扣款|锁|烧|坏|炸|发烫|漏水|短路|被封|漏电|触电|起火|着火|爆炸|中毒)|"
    r"会[^，。]{0,10}?(?:冲|删|覆盖|清|弄|搞|刷|洗)(?:掉|没|丢|坏)"
)


def _zh(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)
