"""Plain statements about a person's world, said without a cue word ("We use Bitbucket",
"I drive a 2016 Mazda 3", "我先生叫王磊", "家里的洗衣机是西门子的"): the weak fact cue of
memoryd.llm.cues.

What holds again and again is a fact too: a habit or a schedule told in the present with a
recurrence ("Backups run every night at 2am", "I teach on Saturday mornings", 我每天七点半出门,
每周三下午开组会), where one works or comes from (在医院上班, 老家在成都) and how many there are
(一共六个人). A recurrence is no fact in a plan, a complaint or a request (remind me every…).

A statement is a fact when a subject from the speaker's world (my / our / the X, I, we, it,
我/我们/家里/公司…) has a stable property (is, has, uses, lives, drives, takes, expires, 叫,
用的是, 今年…岁) whose value is specific: a name, a number, a version, a host or a path. It is
not a fact when it is a plan (tomorrow, I'm going to, 明天, 打算), a past one-off event
(yesterday, last week, 上周, 刚才), a guess (should, maybe) or a symptom (blank, again, returns,
卡, 点不了): those are what a session is about, not what to keep. The patterns are bounded
(a few words between subject, verb and value) so they stay linear on any text.
"""

from __future__ import annotations

import re

_NUMBER_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|"
    r"hundred|a dozen|a couple of"
)
# A specific value: a number, a proper name (not "I"), a dotted or slashed identifier, a quote.
_VALUE = (
    rf"(?:\d|(?!I\b|I')[A-Z][\w.+&'-]*|(?i:(?:{_NUMBER_WORDS})\b)|[\w-]+(?:\.[\w-]+)+|[\w-]*/[\w/.-]+|"
    r"[\"“'‘][^\"”'’]{1,40}[\"”'’])"
)
_SUBJECT = (
    r"(?i:\b(?:my|our|the|his|her|their)\s+(?:[\w'-]+\s+){0,3}?[\w'-]+|"
    r"(?<![\w'])(?:i|we|he|she|they|it|mine|ours|yours|hers|his|[A-Z][a-z]+'s(?:\s+[\w-]+)?))"
)
_VERB = (
    r"(?i:'s|'re|'m|\s+(?:is|are|am|has|have|uses?|runs? on|lives?|works?|goes to|go to|drives?|"
    r"owns?|rents?|takes?|hosts?|builds? with|deploys? to|belongs? to|expires?|renews?|starts?|"
    r"costs?|weighs?|talks? to|connects? to|points? to|banks? with|comes? with|speaks?|"
    r"stud(?:y|ies)|teach(?:es)?|attends?|is due|are due|was born|were born|was built|"
    r"was installed|was bought|(?:is |'s )?(?:good|valid) (?:till|until))\b)"
)
# Subject, verb, then the value within three words ("goes to Riverside", "is a Rails app").
_EN = re.compile(rf"{_SUBJECT}{_VERB}(?:\s+[^\s,.;:!?]+){{0,3}}?\s+{_VALUE}")
# What a person or a thing does in the present, any verb: "We deploy from GitHub Actions to
# DigitalOcean", "Logs end up in /var/log/acme", "Payday is the 25th". Not a modal, a wish, a
# past form or an opinion (those are plans, stories and tastes).
_NOT_PRESENT = (
    r"will|would|can|could|should|might|must|need|needs|want|wants|tried|try|think|thought|hope|wonder|"
    r"guess|mean|feel|see|know|love|like|hate|prefer|get|got|went|saw|had|did|made|took|ran|broke|"
    r"came|found|said|told|gave|bought|lost|left|just|really|don'?t|doesn'?t|didn'?t|can'?t|won'?t|"
    r"was|were|am|keep|keeps|let|let's|please|always|never|forget|forgot|also|still"
)
_NOT_VERB = r"the|a|an|this|that|my|our|your|to|in|on|of|for|with|about|it|me|us|and|or"
_EN_PRESENT = re.compile(
    r"(?:^(?-i:[A-Z][a-z]+)\s+(?:is|are)|"  # "Payday is the 25th" (a capital word alone may be a verb)
    # the subject leads the sentence: "the variable cnt" inside a request is no subject
    r"(?i:^(?:(?:yes|yeah|right|ok|okay|so|and|also|well|oh|no|fyi|btw)[,!]?\s+)*"
    r"(?:(?:we|i|they)\b|(?:my|our|the|their)\s+(?:[\w'-]+\s+){0,2}?[\w'-]+))"
    rf"\s+(?!(?i:{_NOT_PRESENT}|{_NOT_VERB}|is|are)\b)(?i:[a-z]+)(?<!ed))"
    rf"(?:\s+[^\s,.;:!?]+){{0,4}}?\s+{_VALUE}"
)
# Again and again: a habit or a schedule.
_RECUR = re.compile(  # a word, not part of a path ("reports/weekly.py")
    r"(?<![/\w.-])(?:every (?:other |single )?(?:day|night|morning|evening|week|weekday|weekend|month|year|"
    r"quarter|hour|\d+ (?:minutes|hours|days|weeks|months)|(?:mon|tues|wednes|thurs|fri|satur|sun)day)|"
    r"each (?:day|night|morning|evening|week|month|year)|daily|nightly|weekly|fortnightly|monthly|"
    r"(?:one|two|three|four|five|six|seven|\d+) (?:days|nights|evenings|mornings|shifts) (?:a|per) "
    r"(?:week|month)|"
    r"quarterly|yearly|annually|hourly|(?:once|twice|three times|\d+ times) (?:a|per) (?:day|week|month|"
    r"year)|on (?:mon|tues|wednes|thurs|fri|satur|sun)(?:days|day (?:mornings|afternoons|evenings|nights))|"
    r"on (?:mon|tues|wednes|thurs|fri|satur|sun)days?(?:,\s*|,?\s+and\s+|\s*&\s*)"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|"
    r"on (?:weekdays|weekends)|usually|normally|typically|(?:first|last|\d+(?:st|nd|rd|th)) "
    r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day |working day |weekday )?of (?:the|each|every) month)"
    r"\b(?![/.-]\w)",
    re.I,
)
# A habit's subject and verb in the present: "Backups run", "I work", "Staging gets reset".
_EN_HABIT = re.compile(
    r"^(?:(?:i|we|they|he|she)(?:\s+[a-z]+ly)?|(?:my|our|the|his|her|their)(?:\s+[\w'-]+){1,3}?|(?-i:[A-Z][a-z]+))\s+"
    rf"(?!(?:{_NOT_PRESENT}|{_NOT_VERB})\b)[a-z]+(?<!ed)\b",
    re.I,
)
_HABIT_NOT = re.compile(
    r"\b(?:remind|tell|send|ping|email|text|notify|wake|message)\s+(?:me|us)\b|"
    r"\b(?:forget|forgets|miss|misses|lose|loses|oversleep|fails?|crash\w*|breaks?|errors?|went|came|"
    r"saw|had|did|got|took|was|were|ran|bought|found|left|met|"
    r"going to|gonna|(?:i|we)(?:'ll| will| want| need)|tomorrow|tonight|next (?:week|month|year))\b",
    re.I,
)
# Who a person is, in the words people use for it: "I'm vegan", "I am a type 1 diabetic".
_IDENTITY = re.compile(
    r"\b(?:i'?m|i am|we'?re|we are)\s+(?:a\s+)?(?:vegan|vegetarian|pescatarian|diabetic|"
    r"type [12] diabetic|pregnant|left-handed|colou?r-?blind|lactose[- ]intolerant|coeliac|celiac|"
    r"asthmatic|epileptic|deaf|retired|self-employed|freelancer|married|divorced|widowed)\b",
    re.I,
)

_ZH_SUBJECT = r"(?:我|我们|咱们?|他|她)(?:家|公司|组|团队|单位|部门|学校|项目)?(?:里)?的?"
_ZH_PLACE = r"(?:我|我们|咱们?)?(?:家里|家|公司|单位|学校|组里|团队|部门|项目|小区)(?:里)?的"
_ZH = re.compile(
    # what one uses, drives, lives in: "我开的是…", "用的是…", "户主登记的是…"
    r"(?:用|开|住|吃|坐|骑|装|买|租|喝|戴|登记|注册|绑定|留)的是|"
    # a name: "我先生叫王磊", "房东姓张"
    rf"{_ZH_SUBJECT}[\u4e00-\u9fff]{{0,4}}?(?:叫|姓)(?![了过着])[\u4e00-\u9fffA-Za-z]{{1,6}}(?=[，。,.；;！!]|$)|"
    r"(?:房东|老板|领导|班主任|医生|物业|邻居)姓[\u4e00-\u9fff]|"
    # a household's or company's thing and what it is: "家里的洗衣机是西门子的"
    rf"{_ZH_PLACE}[\u4e00-\u9fffA-Za-z]{{1,10}}?(?:是|叫|在|用)|"
    # what a group uses: "我们公司用企业微信", "我们的前端项目用 yarn"
    r"(?:我们|公司|团队|组里|我们的?[\u4e00-\u9fffA-Za-z]{0,6}?项目)[\u4e00-\u9fff]{0,4}?(?:用|在用|使用)"
    r"\s*[A-Za-z\u4e00-\u9fff]|"
    # age, school year, health: "今年八岁", "上三年级", "血糖偏高", "O型血"
    r"今年\s*[\d一二三四五六七八九十两]+\s*岁|[一二三四五六\d]年级|属[鼠牛虎兔龙蛇马羊猴鸡狗猪]|"
    r"有(?:糖尿病|高血压|哮喘|心脏病|鼻炎|痛风|甲亢|甲减|贫血|胃病)|(?:血压|血糖|血脂|胆固醇|尿酸)(?:偏高|偏低|高|低)|[ABO]{1,2}型血|一直在?(?:吃|用|打)|还在(?:吃|用|打)|"
    # a medicine and its dose: "吃的氨氯地平，5mg，每天早上一片"
    r"^(?:高血压|糖尿病|高血脂|哮喘|痛风|甲减|甲亢)$|^(?:吃|服)的[\u4e00-\u9fffA-Za-z]{2,8}$|"
    r"\d+(?:\.\d+)?\s*(?:mg|毫克|微克|ml)\b|(?:每天|早上|晚上|睡前)[^，,。]{0,4}?[一两二三]\s*(?:片|粒)|"
    # when it falls due: "每年 3 月 18 号到期"
    r"每(?:年|个?月|周|星期)[^，,。]{0,10}?(?:到期|续费|扣款|还款|交|缴)|"
    r"[\d一二三四五六七八九十]+\s*(?:月|号|日)\s*(?:到期|续费|截止)|"
    # what a project is pinned to: "这个项目就是固定用 Node 14 的"
    r"固定(?:用|在|是)|项目[\u4e00-\u9fff]{0,6}?(?:用|在用|使用)\s*[A-Za-z]|"
    r"(?:电话|热线|客服)[^，,。]{0,4}?\d{3,}|打\s*\d{5,}|"
    # what a thing is, where it is: "宽带是移动的", "光猫在电视柜最下面那层"
    r"^(?![这那])[\u4e00-\u9fffA-Za-z]{1,6}是[\u4e00-\u9fffA-Za-z0-9]{1,8}的$|"
    r"^(?![这那我你他她])[\u4e00-\u9fffA-Za-z0-9]{1,8}(?:放)?在[\u4e00-\u9fffA-Za-z0-9]{1,12}"
    r"(?:里|上|下|边|旁边|层|后面|背面|门口|对面|楼|室|区|路)$|"
    # where one works, studies, comes from: "在医院上班", "老家在成都"
    r"在[\u4e00-\u9fffA-Za-z0-9]{2,14}?(?:上班|工作|读书|上学|实习|任职|公司做)|"
    r"(?:老家|家|公司|单位|学校|办公室)(?:在|住在)[\u4e00-\u9fffA-Za-z]|"
    # how many: "一共六个人", "家里有三台电脑"
    r"(?:一共|总共|共有)(?:有)?\s*[\d一二三四五六七八九十两几]+\s*(?:个|口|位|名|台|间|辆|只)"
)
# Again and again: "我每天七点半出门", "每周三下午开组会", "一般周末回父母家".
_ZH_RECUR = re.compile(
    r"每(?:天|晚|早|日|周|星期|个?月|年|隔|季度)|(?:一般|平时|通常|经常|平常)(?!都不)|工作日"
)
_ZH_HABIT_NOT = re.compile(r"提醒我|叫我|告诉我|帮我|给我|记得|别忘|总是|老是|怎么|吗|呢")
_CLAUSE = re.compile(r"[，,；;。！!：:]")
# Plans, one-off events, guesses: no stable property.
_EN_NOT = re.compile(
    r"\b(?:today|tomorrow|tonight|yesterday|this (?:morning|afternoon|evening|week|weekend)|"
    r"next (?:week|month|year|time)|last (?:night|week|month|time)|right now|at the moment|just now|"
    r"ago|later|soon|(?:mon|tues|wednes|thurs|fri|satur|sun)day(?!s)|going to|gonna|about to|"
    r"planning|thinking|trying|(?:i|we)(?:'ll| will|'d| would| want| need)|should|could|might|"
    r"maybe|probably|not sure|wonder|problem|issue|slow|blank|missing|weird|strange|again|"
    r"times? out|timed out|timeout|hangs?|hung|freez\w*|stopped|returns?|shows?|says|throws?|"
    r"instead of|(?:getting|seeing|hitting|having|receiving) (?:a|an|the|this|that|some|\d+))\b",
    re.I,
)
_ZH_NOT = re.compile(
    r"明天|今天|今晚|待会|等会|下周|下个月|昨天|上周|刚才|刚刚|要去|打算|准备|想要|我想|试试|一下|吧|"
    r"不了|不行|点不|打不开|没反应|卡住|卡死|很慢|变慢|怎么|问题|去了|买了|试了"
)


def of(sentence: str) -> str:
    """The words that make `sentence` a plain statement of fact, or "" (the caller has
    already ruled out questions, requests and problem reports)."""
    if m := _IDENTITY.search(sentence):
        return m.group()
    if (m := (_EN.search(sentence) or _EN_PRESENT.search(sentence))) and not _EN_NOT.search(sentence):
        return m.group()
    if (m := _RECUR.search(sentence)) and _EN_HABIT.search(sentence) and not _HABIT_NOT.search(sentence):
        return m.group()
    for clause in _CLAUSE.split(sentence):  # Chinese packs a fact and a one-off into one sentence
        clause = clause.strip()
        if (m := _ZH.search(clause)) and not _ZH_NOT.search(clause):
            return m.group()
        if (
            (m := _ZH_RECUR.search(clause))
            and not _ZH_NOT.search(clause)
            and not _ZH_HABIT_NOT.search(clause)
        ):
            return m.group()
    return ""


# A session that only tells: every sentence a statement in the present, none asking, none
# a problem, a plan, a story or an acknowledgement. What it tells is about the speaker's world.
_ACK = re.compile(
    r"^(?:(?:ok(?:ay)?|thanks?(?: you)?|thx|great|perfect|cool|nice|got it|sounds good|yes|yeah|yep|sure|"
    r"hi|hello|hey|right)[\s,.!]*)+$|^(?:好的?|谢谢|嗯|行|可以|明白了?|收到)[\s，,。!！]*$",
    re.I,
)
_TELLING_NOT = re.compile(
    r"\b(?:isn'?t|aren'?t|doesn'?t|don'?t|won'?t|can'?t|couldn'?t|didn'?t|wasn'?t|weren'?t|not|no longer|"
    r"did|was|were|went|got|had|\w+ed|always|never|forget|forgets|miss|misses|keeps? \w+ing|please|"
    r"help (?:me|us)|let'?s|let me|you|your)\b|[?？!！]",
    re.I,
)
_ZH_TELLING_NOT = re.compile(
    r"帮|请|麻烦|你|吗|呢|吧|了|过|没|不|怎么|为什么|是否|(?:提醒|叫|告诉|给|让|教)我"
)
_PRESENT = re.compile(
    r"\b(?:is|are|am|has|have|lives?|works?|runs?|goes|go|uses?|owns?|keeps?|stays?|sits?|comes?|"
    r"opens?|closes?|starts?|ends?|takes?|gets?|needs?|eats?|drinks?|speaks?|teach(?:es)?|stud(?:y|ies))\b|"
    r"'s\b|'re\b|'m\b|\b(?:i|we|they)\s+[a-z]+\b",
    re.I,
)


def only_tells(sentences: list[str]) -> str:
    """The first sentence of a session that only tells about the speaker's world ("" if the
    session asks, reports a problem, plans or tells a story anywhere)."""
    told = ""
    for raw in sentences:
        s = raw.strip()[:400]
        if not s or _ACK.match(s):
            continue
        if _QUESTION_MARK.search(s):
            return ""
        if _CJK.search(s):
            if _ZH_TELLING_NOT.search(s) or _ZH_NOT.search(s) or len(s) < 6:
                return ""
        elif (
            _TELLING_NOT.search(s)
            or _EN_NOT.search(s)
            or len(s.split()) < 4
            or not _PRESENT.search(s)
            or not _TELLER.match(s)
        ):
            return ""
        told = told or s
    return told


_CJK = re.compile(r"[\u4e00-\u9fff]")
_QUESTION_MARK = re.compile(r"[?？]")
# Who tells: the speaker, their people and things ("I run a bakery", "All our invoices go ..."),
# after a lead-in ("Some background: ..."); a sentence led by a verb is a request.
_TELLER = re.compile(
    r"^(?:[\w ]{1,24}[:：]\s*)?(?:(?:hi|hey|hello|so|also|and|btw|oh|right)[,!.]?\s+)*"
    r"(?:i|we|my|our|his|her|their|all (?:of )?our|all my|both (?:of )?(?:our|my)|"
    r"the [\w-]+(?: [\w-]+)? of (?:my|our))\b",
    re.I,
)
