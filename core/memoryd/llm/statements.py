"""Plain statements about a person's world, said without a cue word ("We use Bitbucket",
"I drive a 2016 Mazda 3", "我先生叫王磊", "家里的洗衣机是西门子的"): the weak fact cue of
memoryd.llm.cues.

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
    r"(?:血压|血糖|血脂|胆固醇|尿酸)(?:偏高|偏低|高|低)|[ABO]{1,2}型血|一直在?(?:吃|用|打)|还在(?:吃|用|打)|"
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
    r"(?:里|上|下|边|旁边|层|后面|背面|门口|对面|楼|室|区|路)$"
)
_CLAUSE = re.compile(r"[，,；;。！!：:]")
# Plans, one-off events, guesses: no stable property.
_EN_NOT = re.compile(
    r"\b(?:today|tomorrow|tonight|yesterday|this (?:morning|afternoon|evening|week|weekend)|"
    r"next (?:week|month|year|time)|last (?:night|week|month|time)|right now|at the moment|just now|"
    r"ago|later|soon|(?:mon|tues|wednes|thurs|fri|satur|sun)day(?!s)|going to|gonna|about to|"
    r"planning|thinking|trying|(?:i|we)(?:'ll| will|'d| would| want| need)|should|could|might|"
    r"maybe|probably|not sure|wonder|problem|issue|slow|blank|missing|weird|strange|again|"
    r"times? out|timed out|timeout|hangs?|hung|freez\w*|stopped|returns?|shows?|says|throws?|"
    r"instead of)\b",
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
    if (m := _EN.search(sentence)) and not _EN_NOT.search(sentence):
        return m.group()
    for clause in _CLAUSE.split(sentence):  # Chinese packs a fact and a one-off into one sentence
        clause = clause.strip()
        if (m := _ZH.search(clause)) and not _ZH_NOT.search(clause):
            return m.group()
    return ""
