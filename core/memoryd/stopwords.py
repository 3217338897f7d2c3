"""Words that are never a trigger, and English words too common to say much about a memory.

Triggers are what a person types to find a memory again, so the lists go beyond grammar
words: the filler of how people talk to an agent (always, never, now, instead, done, key,
app...) and the words that say what kind of memory it is (决定, 以后一律, warning) rather
than what it is about, and when or how it was said (March, last autumn, 去年, ugh, nearly).
Data only: kept in a module so that it ships wherever the code does.
"""

from __future__ import annotations

import functools

from memoryd import fusion, language
from memoryd.textproc import STOPWORDS as _SEARCH_STOPWORDS

_EN_TEXT = """
mind heads forget second third fourth fifth self otherwise lesson lessons learned
always never ever now instead future run runs ran running done do does doing did key keys app
apps sure yes yeah yep nope okay ok please thanks thank want wants wanted need needs needed use
used uses using really actually maybe perhaps still even every much many lot lots way ways well
back today tomorrow yesterday time times day days week weeks new old good bad better best great
fine right wrong left first last next previous later soon already yet again though although
however therefore thus etc e.g i.e eg ie vs via per else whether without within across along
around toward towards upon onto unless since because able try tries tried trying see seen saw
look looks looked looking let lets know knows knew think thinks thought say says said tell told
ask asked remember remembers note noted notes warning warnings careful important reminder
decided decide decision chose choose chosen prefer prefers preferred preference instead rather
from now anyway also probably definitely basically simply just only quite pretty very really
thing things stuff something anything everything nothing someone anyone everyone somebody
nobody anybody everybody
here there where everywhere somewhere lot bit little big small large whole part kind sort type
yours mine ours theirs one two three four five six seven eight nine ten hundred thousand
got gets getting give gives gave given take takes took taken put puts come comes came coming
goes went gone keep keeps kept start starts started stop stops stopped end ends ended
make makes making made find finds found call calls called show shows showed shown mean means
meant seem seems seemed feel feels felt become becomes became happen happens happened
like likes liked love loves hate wish hope guess bunch couple few several lots plenty enough
other others another same different each either neither both all any some most more less least
can could would should will shall must might may cannot couldn wouldn shouldn won ain
hey hi hello bye sorry oops wow oh ah um uh hmm lol btw fyi imo tbh asap
and/or yes/no true false none null nil undefined
procedure procedures process processes checklist checklists workflow workflows routine routines
runbook runbooks reference agreed agree agrees settle settled remind reminds reminded suggest
suggests suggested whenever follow follows followed avoid avoids avoided including included
past
january february march april june july august september october november december
jan feb mar apr jun jul aug sep sept oct nov dec
spring summer autumn fall winter
ugh alright settles learned nearly almost
"""

# Words of every topic: kept as triggers, but below a word that is about this memory.
_EN_COMMON_TEXT = """
fix fixed fixes fixing bug bugs error errors issue issues problem problems change changes
changed update updates updated file files code test tests tested testing data user users
project projects repo work works worked working set sets setting settings add added adds
remove removed open opened close closed move moved write wrote written read reads check
checked checks step steps case cases point points place result results reason reasons
question answer idea ideas plan plans list lists name names number numbers value values
people person team hour hours minute minutes month months year years morning evening
night weekend home help helps helped line lines page pages version build built job jobs
system systems default option options feature features support supports order
"""

EN = frozenset(_SEARCH_STOPWORDS | frozenset(_EN_TEXT.split()))
EN_COMMON = frozenset(_EN_COMMON_TEXT.split())

_ZH_TEXT = """
的 了 也 已 已经 一个 一些 一下 一直 一定 一律 一样 一般 一次 一起 这个 那个 这些 那些 这样 那样
这里 那里 这种 那种 这次 那次 然后 就是 还是 但是 可是 不过 因为 所以 如果 要是 虽然 而且 或者
以及 还有 没有 不是 就是 只是 可以 可能 需要 应该 必须 能够 我们 你们 他们 她们 它们 咱们 自己 大家
什么 怎么 怎样 为什么 为何 哪里 哪个 多少 几个 几次 好几次 现在 今天 明天 昨天 以后 以前 之前 之后
今后 将来 未来 从此 此后 从来 永远 总是 始终 每次 每天 时候 的时候 知道 觉得 认为 发现 感觉 看到
看看 记住 记得 注意 小心 千万 不要 不能 不会 不用 别再 再也 决定 采用 改用 选择 选用 偏好 喜欢 习惯
倾向 打算 希望 想要 比较 非常 特别 其实 确实 真的 终于 最后 最终 开始 结束 继续 使用 用来 进行 通过
关于 对于 所有 任何 其他 其它 别的 另外 同时 通常 也许 好像 估计 大概 直接 问题 东西 事情 情况
方面 地方 部分 结果 原因 办法 方法 一点 有点 有些 很多 许多 太多 半天 一天 两天 几天 这么 那么
多么 怎么样 还要 还会 就要 就会 都是 也是 只要 只有 不行 可是 于是 而是 而不是 不再 以后一律
已经是 一遍 再次 重新 问一下 说明 表示 提到 告诉 谢谢 好的 是的 对的 没事 然而 并且 比如 例如
等等 之类 左右 以上 以下 之间 之中 其中 当中 里面 外面 上面 下面 前面 后面 中间 旁边
流程 步骤 做法 整理 帮忙 下来 起来 怎么弄 记一下 记着 提醒 知道 弄好 搞定
去年 今年 明年 前年 上个月 下个月 这个月 上周 下周 这周 上次 下次 千万别 千万不要 不变 免得
"""

ZH = frozenset(_ZH_TEXT.split())


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# The words around an English word that tell a verb (what was done: "I'll borrow", "can't
# afford", "keep forgetting", "to paint the fence", "Save it.") from a thing ("the walk",
# "for caching"): memoryd.keyterms ranks a verb below a thing, as jieba's tags do for Chinese.
EN_SUBJECTS = _words("i you we they he she i'll you'll we'll they'll i'd we'd you'd i've we've")
EN_MODALS = _words(
    "can can't cannot could couldn't will won't would wouldn't should shouldn't must mustn't may "
    "might do don't does doesn't did didn't let's please"
)
EN_BE = _words("am 'm is 's are 're was were been be being")
EN_DEGREE = _words("too very so quite rather fairly pretty extremely")
EN_BECOMING = _words("out became become becomes got get gets seems seemed looks looked feels felt turned")
EN_HAVE = _words("have has had 've")
EN_CATENATIVE = _words("keep keeps kept stop stops stopped start starts started hate hates love loves enjoy")
EN_ADVERBS = _words("only just also nearly never always really still even often usually sometimes not")
# Words of five letters or more in -ly that are no adverb of how a thing was done (badly,
# manually, easily): nouns and names, and verbs (the words around a verb tell it). keyterms
# has no English lexicon to tell an adverb by its stem (bad-ly, manual-ly), and no letter
# before "ly" tells it (assemb-ly and possib-ly, supp-ly and simp-ly, fami-ly and easi-ly),
# so the common ones are listed.
EN_LY_NOUNS = _words(
    "family supply reply apply comply multiply assembly anomaly monopoly oligopoly homily "
    "butterfly dragonfly firefly housefly jelly belly bully rally tally gully folly italy "
    "sicily emily kelly holly molly underbelly hillbilly doily filly lily ally"
)
EN_OBJECTS = _words("me it them us him")
EN_DETERMINERS = _words(
    "the a an my our your their his her its this that these those some any no every each another"
)
EN_PREPOSITIONS = _words(
    "for of by with in on at from about into onto over under after before during without via per"
)
EN_AFTER_OBJECT = EN_PREPOSITIONS | _words("to so and or through up down out off back again away as now too")


# Other languages' grammar words, from the stop-words package (python-stop-words, BSD: lists
# for 33 languages, loaded one language at a time), with memoryd.language's function words
# for the Latin-script ones (its never/always/now: nie, immer, jamais, toujours, nunca...).
_PACKAGE_NAMES = {
    "de": "german",
    "fr": "french",
    "es": "spanish",
    "pt": "portuguese",
    "it": "italian",
    "nl": "dutch",
    "ru": "russian",
    "ja": "japanese",
    "ko": "korean",
}
_BY_LETTERS = (("ru", "cyrillic"), ("ja", "kana"), ("ko", "hangul"))  # fusion.LETTER_OF's scripts


# What _EN_TEXT lists for English in other languages: how people talk to an agent (always,
# never, from now on, instead, please, use, must, careful, remember, decided, prefer,
# important), which says what kind of memory it is, not what it is about.
_FILLER = {
    "de": """immer nie niemals jetzt ab künftig zukünftig statt stattdessen anstatt bitte
        verwenden benutzen nutzen muss müssen sollte sollten vorsicht achtung merken merk
        wichtig entschieden beschlossen lieber bevorzugt danke okay ok""",
    "fr": """toujours jamais maintenant désormais dorénavant plutôt lieu svp merci utiliser
        utilise utilisez faut doit devons attention prudent souviens rappelle important
        décidé choisi préfère préférons ok""",
    "es": """siempre nunca jamás ahora adelante vez lugar favor gracias usar usa usen
        utilizar debe debemos hay cuidado ojo acuérdate recuerda importante decidimos
        decidido elegimos prefiero preferimos vale ok""",
    "pt": """sempre nunca agora diante vez lugar favor obrigado obrigada usar use utilizar
        deve devemos cuidado atenção lembra lembre importante decidimos escolhemos prefiro
        preferimos ok""",
    "it": """sempre mai adesso ora poi invece favore grazie usare usa utilizzare deve
        dobbiamo attenzione ricorda ricordati importante deciso scelto preferisco
        preferiamo ok""",
    "nl": """altijd nooit nu voortaan plaats alsjeblieft graag bedankt gebruiken gebruik
        moet moeten voorzichtig let onthoud belangrijk besloten gekozen liever ok""",
    "ru": """всегда никогда теперь сейчас дальше впредь вместо пожалуйста спасибо
        использовать используй используем надо нужно должен должны осторожно внимание
        помни запомни важно решили выбрали предпочитаю лучше ок""",
    "ja": """いつも 必ず 絶対 今後 これから 代わり ください お願い 使う 使って 注意 気をつけて
        覚えて 大事 重要 決めた 好き""",
    "ko": """항상 언제나 절대 절대로 앞으로 이제 지금 대신 주세요 부탁 제발 사용 쓰기 써 꼭
        반드시 조심 주의 기억 중요 결정 선호 좋아""",
}


@functools.lru_cache(maxsize=16)
def of_language(code: str) -> frozenset[str]:
    """The grammar words of a language (ISO 639-1) other than English and Chinese, lower
    case, with the filler of how people talk to an agent in it."""
    from stop_words import get_stop_words

    words = {w.lower() for w in get_stop_words(_PACKAGE_NAMES[code])}
    return frozenset(words | language.function_words(code) | frozenset(_FILLER.get(code, "").split()))


def foreign(text: str) -> frozenset[str]:
    """The grammar words of the languages other than English and Chinese that `text` is
    written in: the Latin-script language its function words tell (where most of it is in
    Latin letters), and Russian, Japanese or Korean where their letters appear. Empty for
    English and Chinese (EN and ZH cover them)."""
    # The Latin words of a Chinese text are names and jargon (Wi-Fi, LOS, GitHub Actions):
    # their function words, if any, tell no language of the text.
    latin = language.latin_language(text) if fusion.script(text) == "latin" else None
    codes = [latin] if latin is not None and latin != "en" else []
    if not text.isascii():
        codes += [code for code, name in _BY_LETTERS if fusion.LETTER_OF[name].search(text)]
    return frozenset().union(*(of_language(c) for c in codes))
