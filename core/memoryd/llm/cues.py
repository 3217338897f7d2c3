"""What kind of memory a sentence states, from the words people use for it (English and
Chinese): the rules provider's type, and the sentences worth keeping in a proposal.

Precedence within one sentence, and why:

1. A label the writer put on it ("Warning:", "Decision:", "警告：", "步骤：") wins: they said
   what it is.
2. A question states nothing ("should we use pnpm?", "为什么会报错？"): no type.
3. Decision: the act of choosing, with its verb (we decided / chose / are going with /
   settled on / 决定 / 采用 / 选定). A reason given for it ("SQLite breaks under load") does
   not make it a warning.
4. Warning: caution addressed to the future (careful, beware, must not, gotcha, 小心, 千万别,
   不要在, 有个坑), or a prohibition with its consequence or its dangerous moment ("never X
   or it breaks", "never X during business hours", "if you X, it breaks"). Words that only
   report a problem (crash, error, broke, 报错) are not a warning: that is a bug-fix session.
5. Preference: a standing rule ("always X", "never X", "prefer", "from now on", "don't X",
   以后一律, 偏好, 习惯, 别用). A sentence led by a standing rule stays a preference even with
   a prohibition and its consequence after it ("always use pnpm, never npm or the lockfile
   breaks", "以后一律用 pnpm，不要用 npm，否则 lockfile 会乱"): the rule is the point, the rest
   its reason. A caution word is a warning wherever it stands. "always"/"never" reporting
   what happened ("it always fails", "I never got it working") is no rule.
6. Fact: a stable statement of where or what something is ("the staging DB is on port
   5433", "我的生日是 3 月 5 日"), not a request and not a problem report; weaker, a plain
   statement about one's world with a specific value ("we use Bitbucket", "我先生叫王磊":
   memoryd.llm.statements).

A sentence that lays out steps ("X, then Y, then Z", "先…然后…最后", "here's how I X: …") is a
how-to even when a rule sits inside a later step ("then never open it while hot or it burns
you"); a rule that leads it governs the steps and stays a rule ("always test first, then
push"). Steps told in the past ("first I tried X, then Y", "我先试了…然后还是报错") are a
story, not a how-to.

Across a session, step structure (numbered steps, "first ... then ...", 第一步, 先…再…)
makes a playbook; a rule in one numbered step of a list of plain steps is one of its steps.
Otherwise the type whose sentences weigh most wins, ties going to the higher of the order
above. A session whose only cue is a weak fact among more problem reports is a bug-fix
session: it stays a session.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memoryd import titles
from memoryd.llm import statements

ORDER = ("decision", "warning", "preference", "playbook", "fact")
WEAK_FACT = 0.5  # a plain statement with no cue word (memoryd.llm.statements)
_ASKED = "asked to remember"


@dataclass(frozen=True)
class Cue:
    """A sentence's type ("" for none), how strongly it says so, and the words that did."""

    type: str
    weight: float = 0.0
    why: str = ""


NONE = Cue("")
LABEL = 1.0  # the weight of a sentence under a label ("Warning:", 决定：), the strongest

_I = re.I

_LABELS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "warning",
        re.compile(
            r"^(?:warning|warn|caution|gotcha|pitfall|danger|careful|be careful|watch out|heads[- ]up|"
            r"lessons? learned)\b[^:：—–]{0,40}(?:[:：]|\s?[—–]\s?)",
            _I,
        ),
    ),
    ("warning", re.compile(r"^(?:警告|小心|当心|有个坑|一个坑|坑|踩坑|教训)[^：:]{0,8}[：:]")),
    ("decision", re.compile(r"^(?:decision|decided|we decided|final decision)\b[^:：]{0,30}[:：]", _I)),
    ("decision", re.compile(r"^(?:决定|决策|结论|定论)[^：:]{0,6}[：:]")),
    ("preference", re.compile(r"^(?:preference|rule|convention|policy|house rule)s?\b[^:：]{0,30}[:：]", _I)),
    ("preference", re.compile(r"^(?:偏好|规则|约定|规定|习惯)[^：:]{0,6}[：:]")),
    (
        "playbook",
        re.compile(r"^(?:steps?|how to|howto|recipe|runbook|procedure|playbook)\b[^:：]{0,50}[:：]", _I),
    ),
    ("playbook", re.compile(r"^(?:步骤|流程|做法|操作步骤)[^：:]{0,6}[：:]")),
    ("fact", re.compile(r"^(?:fact|info)\b[^:：]{0,30}[:：]", _I)),
    ("fact", re.compile(r"^(?:事实|信息)[^：:]{0,6}[：:]")),
)

_QUESTION = re.compile(
    r"[?？]\s*$|^(?:what|why|how|where|which|who|when|is|are|does|do|did|can|could|should|would|"
    r"will)\b(?!.*[.!。！]$)|[吗呢]\s*[?？。]?$|^(?:为什么|怎么|如何|是否|能不能|可不可以|哪)",
    _I,
)

_DECISION = re.compile(
    r"\b(?:we|i|the team|they)\s+(?:have\s+|'ve\s+|had\s+|finally\s+)?(?:decided|chose|chosen|picked|"
    r"selected|opted|settled|agreed|went with)\b|\bdecided (?:to|on|that|against)\b|"
    r"\b(?:we|i)(?:'re| are|'m| am) (?:going with|switching to|moving to|migrating to|adopting)\b|"
    r"\b(?:let'?s|we'?ll|we will|we(?:'re| are) going to)\s+(?:go with|use|switch to|move to|adopt|"
    r"stick with|migrate to)\b|\bsettled on\b|\bopted (?:for|to)\b|\b(?:the|our) decision (?:is|was)\b|"
    r"\b(?:we|i)\s+(?:switched|moved|migrated)\b[^.]{0,40}?\bto\b|\bgoing with\b|"
    r"\blet'?s (?:settle|decide)\b|\bsettle (?:it|this)\b|\b(?:that|this) settles it\b|"
    # committing to one option: "we'll take the 5-year fix", "go with pnpm instead", "we've booked it"
    r"\b(?:we|i)(?:'ll| will|'re going to| are going to| am going to|'m going to)\s+(?:take the|go for|"
    r"pick|choose|book)\b|"
    r"^(?:(?:ok(?:ay)?|so|then|fine|hmm*|actually|wait|right),?\s+){0,3}go (?:with|for)\b|"
    r"\b(?:we|i)(?:'ve| have)?\s+(?:accepted|booked|enrolled|signed up for)\b|\bto accept (?:the|their)\b",
    _I,
)
# Agreement on one option, named at the start: "Yeah, Portugal it is." (the name is capitalised).
_IT_IS = re.compile(
    r"^(?:(?:[Oo]k(?:ay)?|[Yy]eah|[Yy]es|[Aa]lright|[Ff]ine|[Rr]ight|[Gg]ood|[Gg]reat|[Ss]o)[,!.]?\s+)*"
    r"[A-Z][\w.+-]*(?:\s+[A-Z0-9][\w.+-]*){0,2} it is\b"
)
_ZH_DECISION = re.compile(
    r"决定|定了|选定|敲定|拍板|采用|最终用|确定用|最终选|商量好了|商量完|说好了|谈好了|定下来"
)
# Also how an edit is asked for ("帮我把 foo 换成 bar"): a decision only when not a request.
_ZH_DECISION_WEAK = re.compile(r"选了|选择了|改用|换成|换到|就用|迁移到|迁到|搬到")
# A fix told as what happened ("一开始…没反应，后来换成 $1 就好了"): no choice of tools.
_ZH_FIXED = re.compile(r"一开始|后来|就好了|就行了|解决了|试了")
# Picking one of the options a session laid out: "那就 SQLite 吧" after "SQLite 和 LevelDB 选哪个？"
_ZH_PICK = re.compile(r"(?:^|[，,。])\s*(?:那就|那还是|就|那)\s*[^，,。！!？?吧]{1,24}吧")
_OPTIONS = re.compile(
    r"选哪个|还是[^，,。？?]{1,24}[？?]|哪个好|\bwhich one\b|\bor\b[^.?]{1,40}\?|\bvs\.?\b", _I
)

_CAUTION = re.compile(
    r"\b(?:careful|beware|watch out|heads[- ]up|gotcha|pitfall|footgun|caveat|trap|dangerous|"
    r"at your own risk|must(?:n'?t| not| never)|under no circumstances|the hard way|"
    r"learned (?:that|this|my lesson)|(?:it|this|that) bit (?:me|us)|got bitten)\b",
    _I,
)
_ZH_CAUTION = re.compile(
    r"小心|当心|切勿|切记不要|切记别|不要在|别在|绝对不能|绝对不要|不能在|禁止|"
    r"注意别|注意不要|有个坑|踩坑|踩过|大坑|这个坑|一个坑|以后注意|以后要注意|提醒你?以后"
)
# Emphatic prohibitions: a warning of their own, but part of a rule that leads the sentence
# ("以后做饭都少放盐，千万别放味精" is a preference).
_ZH_EMPHATIC = re.compile(r"千万别|千万不要|千万不能")
# A warning told as a story: a past occasion and the harm it did ("last time I ran X it wiped
# Y", "上次…整张表都没了").
_STORY = re.compile(
    r"\b(?:last time|the other day|once|last (?:year|month|week|summer|autumn|fall|winter|spring)|"
    r"years? ago|a while back|in (?:january|february|march|april|may|june|july|august|september|"
    r"october|november|december|\d{4}))\b(?:[^.;!?]|\.(?=\w)){0,120}?\b(?:wiped|lost|deleted|destroyed|ruined|"
    r"rust(?:y|ed)|cracked|burn(?:ed|t)|flooded|nearly|almost|broke|corrupted|truncated|fined|towed|"
    r"hospital|emergency room|lockout|locked out|call-?out|outage)\b",
    _I,
)
_ZH_STORY = re.compile(
    r"(?:上次|上回|去年|前年|那次|有一次|之前|以前|当时|就是)[^。！？]{0,40}?"
    r"(?:急诊|住院|晕倒|差点|被拒|被扣|没了|丢了|删了|坏了|烧了|毁了|裂了|报废|出事|吃了大亏|罚款|锁表|挂了|宕机)"
)
_PROHIBIT = re.compile(r"\b(?:never|don'?t|do not|avoid|no one should|nobody should)\b", _I)
_ZH_PROHIBIT = re.compile(r"不要|(?<![特区分类告级性识辨离差])别(?![人的处])|不能|不许|不准|禁止|千万")
_CONSEQUENCE = re.compile(
    r"\b(?:break|breaks|broke|broken|crash|crashes|corrupt|corrupts|lose|loses|lost|wipe|wipes|"
    r"lock|locks|locked|hang|hangs|stall|stalls|fail|fails|outage|overwrite|overwrites|leak|leaks|"
    r"deadlock|deadlocks|goes down|go down|blow up|blows up|get banned|rate[- ]limit\w*|downtime|"
    r"data loss|otherwise|or else)\b",
    _I,
)
_ZH_CONSEQUENCE = re.compile(
    r"否则|不然|会导致|导致|会崩|会挂|会丢|会锁|会乱|会坏|会出错|会报错|会出事|会被|锁表|宕机|丢数据|挂掉|崩溃"
)
_MOMENT = re.compile(
    r"\b(?:during|while|before|until)\b|\bon (?:prod|production|staging|main|master|fridays?|weekends?)\b",
    _I,
)
_CONDITIONAL = re.compile(r"\b(?:if|when|whenever|once)\s+(?:you|we|one|anyone|someone|somebody)\b", _I)
_ZH_CONDITIONAL = re.compile(r"如果|要是|一旦|只要")

# "always"/"never" reporting what happened, not a rule: "it always fails", "I never got it".
_REPORTED = re.compile(
    r"\b(?:always|never)\s+(?:\w+(?:ed|es)|was|were|had|did|got|saw|went|came|made|took|knew|"
    r"thought|found|ran|broke|said|says|tells|asks|been|seen|happens|works|worked|fails|failed|forget|"
    r"remember|miss|lose|mess up|mix up|end up)\b",
    _I,
)
# 总是/老是/每次都 about what goes wrong for the speaker: a complaint, not a rule.
_ZH_REPORTED = re.compile(
    r"(?:总是|老是|每次都)(?:会)?(?:忘|漏|手忙脚乱|搞错|搞混|记不住|出错|迟到|临时)|"
    r"(?:总是|老是|每次都)[^，,。！？]{0,12}?(?:报错|报\s*\d|挂|崩|失败|超时|卡住|卡死)"
)
# Someone else's habit, or what they say: "she always says I never write", "he never calls".
# "As I said, never push to main" is the speaker's own rule said again: not someone else's.
_SOMEONE = re.compile(
    r"\b(?:he|she|they)\s+$|(?<!\bi )(?<!\bwe )\b(?:says?|said|tells?|told|complains?)\b", _I
)
_STANDING = re.compile(r"\b(?:always|never)\b", _I)
_PREFERENCE = re.compile(
    r"\bprefer(?:s|red|ably)?\b|\bi(?:'d| would) rather\b|\bfrom now on\b|\bgoing forward\b|"
    r"\bfrom here on\b|\bby default\b|\bdefault to\b|\bi (?:like|love|hate|dislike|can'?t stand)\b|"
    r"\bmy (?:style|preference|convention|habit)\b|"
    r"\bin this (?:repo|project|codebase|team)\b[^.]{0,20}\b(?:we|use|uses)\b|"
    r"^(?:please\s+)?(?:don'?t|do not)\s+\w+|"
    # "please no TestCase classes in this repo", "I'd like new tests to match"
    r"^(?:please\s+)?no\s+[\w-]+(?:\s+[\w-]+){0,2}\s+(?:in|for|on)\s+(?:this|the|our|my)\s+"
    r"(?:repo|project|codebase|code|team|house)\b|\bi(?:'d| would) like (?:all|new|future|every|any)\b",
    _I,
)
# Also how a one-off request is worded ("use a dict instead of a list here"): a rule only
# when the sentence is not a request.
_PREFERENCE_WEAK = re.compile(
    r"\bstick (?:to|with)\b|\bonly use\b|\binstead of\b|\brather than\b|\bevery time\b|"
    r"\bwhenever you\b|\bmake sure (?:to|you)\b",
    _I,
)
_ZH_PREFERENCE = re.compile(
    r"以后一律|一律|以后都|以后(?:请|就)?用|今后|总是|始终|永远|每次都|偏好|习惯|喜欢|讨厌|宁可|宁愿|统一用|"
    r"只用|默认用|别用|不要用|都用|从现在起|从今以后|以后[^。！？，,]{0,20}?(?:必须|一定要|都|默认)|以后也|"
    r"我(?:基本|从来|一般|平时)?不(?:吃|喝)|无所谓|我[^。！？，,]{0,12}的话[^。！？]{0,30}?(?:就行|就好)"
)

_PROBLEM = re.compile(
    r"\b(?:error|errors|exception|traceback|bug|broken|failing|fails|crash\w*|wrong|doesn'?t work|"
    r"isn'?t working|not working|fix|debug|stuck|\w+(?:error|exception))\b|"
    r"报错|失败|崩溃|有问题|不行|出错|错误|异常|修复|修一下|报\s*[45]\d\d",
    _I,
)
# What a program does wrong, told as its behaviour: "it returns None instead of the list".
_SYMPTOM = re.compile(
    r"\b(?:it|this|that|which|they)\s+(?:returns?|shows?|prints?|gives?|outputs?|displays?|"
    r"returned|showed|printed|gave)\b",
    _I,
)
_REQUEST = re.compile(
    r"^(?:please\s+|pls\s+)?(?:can|could|would|will) you\b|^(?:please|pls|help|fix|debug|add|write|use|"
    r"make|create|implement|refactor|update|change|show|tell|explain|look|check|find|run|try)\b|"
    r"^(?:请|帮我|帮忙|麻烦|能不能|可以帮)",
    _I,
)
_FACT = re.compile(
    r"\b(?:is|are|was)\s+(?:on|at|in|under|behind|hosted|located|stored|kept|served|running|deployed|"
    r"pinned|set to|called|named)\b|\bruns? on\b|\blives? (?:in|at|on)\b|\bport\s+\d+|"
    r"\b(?:my|our)\s+[\w' -]{1,30}?\s+(?:is|are)\s+\S|\b(?:is|are)\s+(?:\d|v\d)|"
    r"\b(?:born|works? (?:at|for)|based in)\b|\b(?:am|is|are|'m|'s|'re)\s+(?:\w+\s+)?allergic to\b",
    _I,
)
# What make a thing is, given as an answer: "It's a Worcester Greenstar 30i" (a capitalised name).
_MAKE = re.compile(r"\b(?:[Ii]t'?s|[Ii]t is|[Ww]e have|I have|[Ww]e'?ve got|I'?ve got) an? [A-Z][\w-]+")
_ZH_FACT = re.compile(
    r"我的\S{1,10}?是|我们的\S{1,10}?是|(?:我|我们|咱|咱们)家的?\S{1,10}?是|的(?:地址|端口|密码|生日|邮箱|电话|版本|路径|位置|名字|账号|域名)(?:是|为|在)|"
    r"端口(?:是|为|号是|号为)?\s*\d+|对\S{1,10}过敏|(?:位于|部署在|放在|存在|住在|跑在|运行在)|生日是|\S{1,12}(?:是|在|为)\s*[A-Za-z0-9]"
)
_REMEMBER = re.compile(
    r"\bremember\b|\bkeep(?:ing)? in mind\b|\bdon'?t forget\b|\bnote that\b|\bfor the record\b|"
    r"记住|记得|记着|记一下|记下|别忘了|不要忘记|帮我存着|存下来",
    _I,
)
_REMEMBER_TO = re.compile(r"\bremember to\b|\bdon'?t forget to\b|记得|别忘了", _I)
# A person adopting a how-to as theirs ("that's our release procedure", "按这个流程来"): the
# steps it points at may be the assistant's, the adoption is the user's.
_HOW_TO_NOUN = r"(?:procedure|process|steps|checklist|workflow|routine|runbook|recipe|drill)"
_ADOPT = re.compile(
    rf"\b(?:this|that|these|those)(?:'s|'re| is| are)?\s+(?:is\s+|are\s+)?(?:our|the|my|a)?\s*"
    rf"(?:\w+\s+)?{_HOW_TO_NOUN}\b|"
    rf"\b(?:keep|save|use|store|write|note|jot|put)\s+(?:this|that|it|these|those)\s+(?:down\s+)?as\s+"
    rf"(?:our|the|my|a)\s+(?:\w+\s+)?{_HOW_TO_NOUN}\b|"
    # "that's how we'll do it", "I'll do it exactly like that every month"
    r"\b(?:that|this)(?:'s| is) (?:how|the way) (?:we|i)(?:'ll| will)? (?:do|handle|make|run) "
    r"(?:it|this|that|them)\b|\b(?:do|handle|make) (?:it|them) (?:exactly )?(?:like that|like this|"
    r"that way|this way)\b",
    _I,
)
# The user introducing their own how-to: "here's how I reset it:", "the way I do it:".
_HOW_TO_INTRO = re.compile(
    r"\b(?:here'?s|here is|this is) how (?:i|we|you|to) (?!(?:\w+ed|did|got|found|broke|made)\b)|"
    r"\bthe way (?:i|we) do (?:it|this|that)\b|"
    rf"\b(?:my|our|the) (?:[\w-]+\s+){{0,2}}?{_HOW_TO_NOUN}\b[^.:：]{{0,40}}[:：]\s*\S|"
    r"(?:流程|步骤|做法|办法|方法|顺序)(?:是这样的|如下)|是这样(?:做|弄|操作|办)的",
    _I,
)
_ZH_ADOPT = re.compile(
    r"(?:这个|这套|这些|这份|按|照)(?:流程|步骤|做法|顺序|清单)|"
    r"(?:按|照)着?(?:这|上面|你说)的?(?:几|些|个|样)?(?:步|流程|步骤|做法|顺序|清单|方法|办法)|"
    r"(?:按|照)着?(?:这个|这样|这些)(?:来|做|办|弄)|"
    r"(?:这|这个|这套)就?是(?:我们|我|咱们)的\S{0,6}?(?:流程|步骤|做法|清单)"
)

# Steps written inline, one after the other: "1. ... 2. ... 3." / "一、…二、…" / "第一步…第二步".
_INLINE_STEP = re.compile(
    r"(?:(?<=\s)|(?<=^)|(?<=[:：]))(\d{1,2})[.)]\s+(?=\S)|([一二三四五六七八九十])、|第([一二三四五六七八九十])步"
)
_ZH_DIGITS = "一二三四五六七八九十"
STEP_LINE = re.compile(
    r"^\s*(?:\d{1,2}[.)、]\s+|\(\d{1,2}\)\s*|step \d+\b|[①-⑳]|第[一二三四五六七八九十\d]+步)", _I
)
_SEQUENCE = re.compile(
    r"\bfirst(?:ly)?\b,?\s+(?!(?:it|he|she|they|the|of|time|thing|things|let|let's|off)\b|"
    r"(?:i|we)(?:'ll|'d|\s+(?:need|have to|want|will|should|must|think|guess|was|were|had))\b)"
    r"[\s\S]{0,300}?\b(?:then|next|after that|afterwards|finally)\b|"
    # "X, then Y, then Z": a chain of steps without "first"
    r"\bthen\b[\s\S]{1,240}?\b(?:then|finally|lastly)\b",
    _I,
)
_ZH_SEQUENCE = re.compile(r"先[^。！？]{1,60}?(?:再|然后|接着|之后|最后)|第一步|步骤")
# What happened, one thing after another: a story of a bug or an attempt, not a how-to.
_TOLD = re.compile(
    r"\b(?:i|we|it|he|she|they|that|this)\s+(?:\w+ed|was|were|did|tried|got|gave|went|had|made|ran|"
    r"saw|came|took|said|showed|hung|broke|froze|stopped|kept)\b|\b(?:i|we) did\b|\blet me\b|"
    r"\bi'?ll get back\b|\b(?:error|exception|traceback|crash\w*|broken|fails|failing|failed)\b|"
    r"doesn'?t work|not working|试了|先是|还是|结果|又|了[，,。；;]|了一|报错|崩溃|闪退|失败|出错|卡住",
    _I,
)


def sequence(text: str) -> re.Match[str] | None:
    """The first run of steps in `text` ("first X, then Y", "X, then Y, then Z", 先…再…)
    that is not a story of what happened ("first I tried X, then it crashed")."""
    for pattern in (_SEQUENCE, _ZH_SEQUENCE):
        for m in pattern.finditer(text):
            if not _TOLD.search(m.group()):
                return m
    return None


# Asking the assistant to report back: the steps before it are an errand, not a how-to.
_ASKS_BACK = re.compile(
    r"\b(?:tell me|let me know|show me|report back|send me|ping me)\b|告诉我|跟我说|发给我", _I
)


def _how_to_at(s: str) -> int:
    """Where the sentence starts laying out steps (-1 if it does not): a sequence, an inline
    numbered list, or the user's own how-to introduced ("here's how I X: ..."). Steps that
    end by asking the assistant to report back are an errand (_ASKS_BACK), not a how-to."""
    if _ASKS_BACK.search(s):
        return -1
    found = [m.start() for m in (sequence(s), _HOW_TO_INTRO.search(s)) if m]
    inline = [m.start() for m in _INLINE_STEP.finditer(s)][:1] if len(inline_steps(s)) >= 2 else []
    return min(found + inline, default=-1)


def _zh(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def is_question(sentence: str) -> bool:
    return bool(_QUESTION.search(sentence.strip()))


def _warning(s: str) -> tuple[str, int]:
    """Why the sentence is a warning ("" if it is not), and where the derived cue starts
    (-1 for a caution word, which is a warning wherever it stands)."""
    if m := (_CAUTION.search(s) or _ZH_CAUTION.search(s)):
        return m.group(), -1
    if m := (_STORY.search(s) or _ZH_STORY.search(s)):
        return m.group(), m.start()
    if m := _ZH_EMPHATIC.search(s):
        return m.group(), m.start()
    prohibit = _PROHIBIT.search(s) if not _REPORTED.search(s) else None
    prohibit = prohibit or _ZH_PROHIBIT.search(s)
    if prohibit:
        if m := (_CONSEQUENCE.search(s) or _ZH_CONSEQUENCE.search(s)):
            return f"{prohibit.group()} ... {m.group()}", prohibit.start()
        if (m := _MOMENT.search(s)) and m.start() > prohibit.start():
            return f"{prohibit.group()} ... {m.group()}", prohibit.start()
    cond = _CONDITIONAL.search(s) or _ZH_CONDITIONAL.search(s)
    if cond and (m := (_CONSEQUENCE.search(s) or _ZH_CONSEQUENCE.search(s))):
        return f"{cond.group()} ... {m.group()}", cond.start()
    return "", -1


def _rule(s: str) -> re.Match[str] | None:
    """The first standing-rule cue of the sentence ("always", "以后一律", "prefer")."""
    found = [
        m
        for m in _STANDING.finditer(s)
        if not _REPORTED.match(s, m.start())
        and not _SOMEONE.search(s[max(0, m.start() - 60) : m.start()])
        and not _NEVER_MIND.match(s, m.start())
    ]
    found += [m for m in _ZH_PREFERENCE.finditer(s) if not _ZH_REPORTED.match(s, m.start())][:1]
    found += [m for m in (_PREFERENCE.search(s),) if m]
    return min(found, key=lambda m: m.start(), default=None)


# "Never mind, just fix the typo": dismissing what came before, not a rule.
_NEVER_MIND = re.compile(
    r"^(?:oh,?\s+|ok(?:ay)?,?\s+|also,?\s+|and\s+)?never\s?mind\b(?:\s+\w+)?[,;:.!]?\s*", _I
)


def of_sentence(sentence: str) -> Cue:
    """The type one sentence states, following the precedence in the module docstring."""
    raw = _NEVER_MIND.sub("", " ".join(sentence.split())).strip(" ,;:")
    for mtype, pattern in _LABELS:
        if m := pattern.match(raw):
            return Cue(mtype, LABEL, m.group().rstrip(":："))
    s = titles.strip_filler(raw)
    if not s or is_question(s):
        return NONE
    if m := (_DECISION.search(s) or _ZH_DECISION.search(s) or _IT_IS.search(s)):
        return Cue("decision", 0.9, m.group())
    why, at = _warning(s)
    rule = _rule(s)
    adopt = _ADOPT.search(s) or _ZH_ADOPT.search(s)
    steps_at = _how_to_at(s)
    if why and (at < 0 or rule is None or rule.start() >= at):
        where = at if at >= 0 else s.lower().find(why.lower())
        if 0 <= steps_at < where and not _REQUEST.search(s):  # a caution inside a later step
            return Cue("playbook", 0.7, "steps")
        return Cue("warning", 0.85, why)
    if adopt:  # "that's the procedure from now on": the rule is to follow the how-to
        return Cue("playbook", 0.7, adopt.group())
    if rule is not None:  # "always use pnpm, never npm or the lockfile breaks": the rule leads
        word = rule.group()
        inside = _STANDING.match(word) or _PROHIBIT.match(word) or _ZH_PROHIBIT.match(word)
        if inside and 0 <= steps_at < rule.start() and not _REQUEST.search(s):  # "then never X"
            return Cue("playbook", 0.7, "steps")
        return Cue("preference", 0.8, rule.group())
    if _REMEMBER.search(raw) and not _REMEMBER_TO.search(raw) and not _PROBLEM.search(s):
        if steps_at >= 0:  # "帮我记着：先…然后…": the steps are what to keep
            return Cue("playbook", 0.7, "steps")
        return Cue("fact", 0.4, _ASKED)  # "帮我记一下：…", "please note that …"
    if _REQUEST.search(s):
        return NONE
    if (m := _ZH_DECISION_WEAK.search(s)) and not _ZH_FIXED.search(s):
        return Cue("decision", 0.9, m.group())
    if _SYMPTOM.search(s):  # "it returns None instead of the list": what goes wrong
        return NONE
    if m := _PREFERENCE_WEAK.search(s):
        return Cue("preference", 0.8, m.group())
    if _PROBLEM.search(s):
        return NONE
    if steps_at >= 0:  # "办退税是这样的：先…然后…最后": the steps, not the facts in them
        return Cue("playbook", 0.7, "steps")
    if m := (_FACT.search(s) or _ZH_FACT.search(s) or _MAKE.search(s)):
        return Cue("fact", 0.6, m.group())
    if _REMEMBER_TO.search(raw):
        return Cue("preference", 0.6, "remember to")
    if why := statements.of(s):
        return Cue("fact", WEAK_FACT, why)
    return NONE


def steps(text: str) -> int:
    """How many steps of a how-to `text` lays out: numbered step lines that state no rule of
    their own (a numbered list of rules is not a playbook), or a first/then sequence."""
    plain = 0
    for line in text.splitlines():
        if STEP_LINE.match(line):
            body = STEP_LINE.sub("", line, count=1)
            if of_sentence(body).type in _PLAIN_STEP:
                plain += 1
    if plain >= 2:
        return plain
    if len(inline := inline_steps(text)) >= 2:
        return len(inline)
    if sequence(text):
        return 2
    return 0


_PLAIN_STEP = ("", "playbook", "fact")  # a step that states no rule of its own


def inline_steps(text: str) -> list[str]:
    """The steps of a how-to written on one line ("1. bump 2. tag 3. push", "一、…二、…"),
    numbered from one in order; [] when the text has no such run of two or more."""
    found: list[tuple[int, int, int]] = []  # (number, start of marker, start of step)
    for m in _INLINE_STEP.finditer(text):
        num = m.group(1) or m.group(2) or m.group(3)
        n = int(num) if num.isdigit() else _ZH_DIGITS.index(num) + 1
        if n == len(found) + 1:
            found.append((n, m.start(), m.end()))
        elif n == 1 and len(found) < 2:  # a list that never got past one item: start again
            found = [(n, m.start(), m.end())]
    if len(found) < 2:
        return []
    out = []
    for i, (_, _, begin) in enumerate(found):
        end = found[i + 1][1] if i + 1 < len(found) else len(text)
        step = text[begin:end].strip(" \t，,：:").rstrip("；;，,")
        if i + 1 == len(found):
            step = step.split("\n", 1)[0].strip()
        if step:
            out.append(step)
    return out if len(out) >= 2 else []


def _has_sequence(text: str) -> bool:
    return sequence(text) is not None


def _sequence_only(text: str) -> bool:
    """Whether `text`'s steps are only a first/then sequence (no numbered steps)."""
    numbered = sum(1 for line in text.splitlines() if STEP_LINE.match(line))
    return numbered < 2 and len(inline_steps(text)) < 2 and _has_sequence(text)


@dataclass(frozen=True)
class Reading:
    """A session's type and the sentences that carry it, in order (cues[i] for sentences[i])."""

    type: str
    weight: float
    sentences: list[str]
    cues: list[Cue]

    def key(self) -> int | None:
        """Index of the sentence that best states the session's type (its title)."""
        best: int | None = None
        for i, cue in enumerate(self.cues):
            if cue.type == self.type and (best is None or cue.weight > self.cues[best].weight):
                best = i
        return best


def classify(text: str, sentences: Sequence[str]) -> Reading:
    """The session's type from its sentences (what the user said) and its text as typed."""
    cues, options = [], False
    for s in sentences:
        cues.append(_in_context(of_sentence(s), s, options))
        options = options or bool(_OPTIONS.search(s))
    cues = _lessons(cues)
    # A rule in one numbered step of a list of plain steps is a step of that how-to.
    numbered = [i for i, s in enumerate(sentences) if STEP_LINE.match(s)]
    ruled = [i for i in numbered if cues[i].type not in _PLAIN_STEP and cues[i].weight < LABEL]
    in_steps = set(ruled) if len(numbered) - len(ruled) >= max(2, len(ruled)) else set()
    # Facts said inside a run of steps ("先在飞书里发起审批…然后…") are details of those steps.
    n = steps(text)
    if n >= 2:
        in_steps |= {i for i in _in_sequence(text, sentences) if cues[i].type == "fact"}
    # A plain statement with no cue word is context when anything else is said ("阳光幼儿园是
    # 公立的 … 就上阳光幼儿园"): it decides a session only on its own.
    context = any(c.type and c.type != "fact" for c in cues) or bool(in_steps)
    totals: dict[str, float] = {}
    for i, cue in enumerate(cues):
        if not cue.type or (context and cue.type == "fact" and cue.weight <= WEAK_FACT and i not in in_steps):
            continue
        mtype = "playbook" if i in in_steps else cue.type
        totals[mtype] = totals.get(mtype, 0.0) + (0.5 if i in in_steps else cue.weight)
    if (
        n
        and _sequence_only(text)
        and any(_has_sequence(s) for s, c in zip(sentences, cues, strict=True) if c.type not in _PLAIN_STEP)
        and not any(_has_sequence(s) for s, c in zip(sentences, cues, strict=True) if c.type in _PLAIN_STEP)
    ):
        n = 0  # "先看结论，再看细节" inside a rule is the rule, not a how-to
    told = [s for s in sentences if _has_sequence(s)]
    if n and _sequence_only(text) and told and all(_ASKS_BACK.search(s) for s in told):
        n = 0  # "deploy it, then run the tests, then tell me": an errand for the assistant
    if n >= 2 and not any(c.weight >= LABEL and c.type != "playbook" for c in cues):
        totals["playbook"] = totals.get("playbook", 0.0) + 0.5 * n
    labelled = [c.type for c in cues if c.weight >= LABEL]
    if labelled:  # the writer's own label outweighs any count
        for t in labelled:
            totals[t] = totals.get(t, 0.0) + 10.0
    if not totals or _bug_fix(sentences, cues, totals):
        return Reading("", 0.0, list(sentences), cues)
    mtype = max(ORDER, key=lambda t: (totals.get(t, 0.0), -ORDER.index(t)))
    return Reading(mtype, totals[mtype], list(sentences), cues)


def _in_sequence(text: str, sentences: Sequence[str]) -> set[int]:
    """Indexes of the sentences a run of steps in `text` (sequence()) passes through."""
    m = sequence(text)
    if m is None:
        return set()
    out, at = set(), 0
    for i, s in enumerate(sentences):
        start = text.find(s[:40], at, at + len(s) + 400)  # bounded: linear on any text
        if start < 0:
            continue
        at = start + len(s[:40])
        if start < m.end() and start + len(s) > m.start():
            out.add(i)
    return out


def _in_context(cue: Cue, sentence: str, options: bool) -> Cue:
    """A sentence's cue given what came before it: "那就 SQLite 吧" picks one of the options
    an earlier question laid out ("SQLite 和 LevelDB 选哪个？"), a decision; the same words
    after an open question ("有什么推荐？") pick nothing lasting. `options`: whether an
    earlier sentence laid out options."""
    if cue.type or not (m := _ZH_PICK.search(sentence)) or is_question(sentence):
        return cue
    if options:
        return Cue("decision", 0.9, m.group().strip("，,。 "))
    return cue


def _lessons(cues: list[Cue]) -> list[Cue]:
    """Rules given after a harm was told ("it bit me in January: ... So: always check the
    workspace first") are the lessons of that harm: warnings. A rule told first and its
    reason after stays a rule (the precedence within a sentence, across sentences)."""
    out, harmed = [], False
    for cue in cues:
        if cue.type == "warning" and cue.weight < LABEL:
            harmed = True
        elif harmed and cue.type == "preference" and cue.weight < LABEL:
            cue = Cue("warning", cue.weight, cue.why)
        out.append(cue)
    return out


# A request to keep what the sentence says, or word that it is for later: "remember this",
# "note for the future", "for future reference", 记住, 以后注意. Not "I remember" or 我记得
# (recalling), nor "note that" said in passing.
_KEEP = re.compile(
    r"\bremember (?:this|that:)|\bplease remember\b|\bremember\s*[:：,，]|"
    r"\bkeep (?:this |that |it )?in mind\b|\bdon'?t forget\b|\bfor the record\b|"
    r"\b(?:for|in) the future\b|\bfuture reference\b|\bnote to self\b|\bnote for\b|"
    r"记住|记一下|记下来|记着|别忘了|不要忘记|帮我存着|存下来|(?:以后|今后|下次)(?:要)?注意",
    _I,
)


def asks_to_keep(sentence: str) -> bool:
    """Whether the user asks for the sentence to be kept or says it is for later."""
    return bool(_KEEP.search(sentence))


def reports_problem(sentence: str) -> bool:
    """Whether a sentence reports a problem or asks for a fix ("it crashes", "please fix it",
    报错, 修一下): what a routine bug-fix session says."""
    return bool(_PROBLEM.search(sentence))


def _bug_fix(sentences: Sequence[str], cues: Sequence[Cue], totals: dict[str, float]) -> bool:
    """Whether the session's only cues are facts stated in passing (not asked to be kept) among
    more problem reports: a bug-fix session that says where something is ("the job is in
    jobs/import.py")."""
    if set(totals) != {"fact"} or any(c.why == _ASKED for c in cues if c.type):
        return False
    facts = sum(1 for c in cues if c.type)
    problems = sum(1 for s, c in zip(sentences, cues, strict=True) if not c.type and _PROBLEM.search(s))
    return problems >= 2 and problems > facts
