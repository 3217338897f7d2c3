"""Types from what the text says, in English and Chinese (precedence: memoryd.llm.cues)."""

from __future__ import annotations

import pytest

from memoryd import sentences
from memoryd.llm import cues


def _type(text: str) -> str:
    return cues.classify(text, sentences.split(text)).type


@pytest.mark.parametrize(
    ("text", "mtype"),
    [
        # preference: standing rules
        ("always use pnpm in this repo", "preference"),
        ("always use pnpm in this repo; npm broke the lockfile last time", "preference"),
        ("Never use npm here, only pnpm.", "preference"),
        ("I prefer tabs over spaces.", "preference"),
        ("From now on write the commit messages in English.", "preference"),
        ("Don't add comments to generated files.", "preference"),
        ("以后一律用 pnpm，不要用 npm。", "preference"),
        ("我偏好用 tabs 缩进。", "preference"),
        ("我习惯用 vim 写代码。", "preference"),
        # warning: caution to the future, a prohibition with its consequence or moment
        ("never run the migrations on staging during business hours", "warning"),
        ("Never run the import twice or it corrupts the index.", "warning"),
        ("Be careful: the CI cache breaks on Fridays.", "warning"),
        ("You must not commit the .env file.", "warning"),
        ("If you restart the worker mid-sync, it loses the queue.", "warning"),
        ("小心 redis 的内存上限。", "warning"),
        ("不要在周五下午部署生产环境。", "warning"),
        ("千万别在 main 分支上直接 push。", "warning"),
        ("有个坑：staging 的数据库端口是 5433，不是 5432。", "warning"),
        # decision
        ("We decided to use Postgres for the job queue because SQLite locks under load.", "decision"),
        ("We're going with Fly.io for hosting.", "decision"),
        ("We chose Vue over React for the admin app.", "decision"),
        ("我们决定采用 PostgreSQL 作为任务队列。", "decision"),
        ("最后选定了 Fly.io 来部署。", "decision"),
        # playbook
        ("How to release:\n1. bump the version\n2. run the tests\n3. tag and push", "playbook"),
        ("First stop the worker, then run the migration, then start it again.", "playbook"),
        ("部署步骤：第一步停掉 worker，第二步跑迁移，第三步重启。", "playbook"),
        ("先备份数据库，然后再执行迁移脚本。", "playbook"),
        # fact
        ("the staging DB is on port 5433", "fact"),
        ("Our AWS region is eu-west-1.", "fact"),
        ("我的生日是 3 月 5 日。", "fact"),
        ("测试服务器的地址是 10.0.0.5。", "fact"),
        # nothing worth keeping: questions, requests, bug reports
        ("what does this function return", ""),
        ("Deploy the staging box with ansible", ""),
        ("fix the crash in billing.py when the invoice list is empty, it throws a KeyError", ""),
        ("The tests are failing with a timeout since this morning. It always fails on CI.", ""),
        ("Should we use pnpm?", ""),
        ("Use a dict instead of a list here", ""),
        ("帮我修一下 billing.py 里的报错，空发票会崩溃。", ""),
        ("帮我把 foo 换成 bar", ""),
        ("为什么会报错？", ""),
    ],
)
def test_type_from_the_text(text: str, mtype: str):
    assert _type(text) == mtype


def test_a_list_of_rules_is_not_a_playbook():
    assert _type("1. always use pnpm\n2. never push to main\n3. prefer ruff over black") == "preference"


def test_the_writers_label_wins():
    assert _type("Warning: always use pnpm here.") == "warning"
    assert _type("Decision: never use npm.") == "decision"
    assert cues.of_sentence("警告：不要用 npm。").type == "warning"


def test_a_reported_always_is_no_rule():
    assert cues.of_sentence("it always fails on CI").type == ""
    assert cues.of_sentence("I never got it working").type == ""
    assert cues.of_sentence("always run the tests first").type == "preference"


def test_a_rule_that_leads_keeps_its_reason_a_preference():
    assert _type("always use pnpm, never npm or the lockfile breaks") == "preference"
    assert _type("以后一律用 pnpm，不要用 npm，否则 lockfile 会乱。") == "preference"
    assert _type("never use npm here or the lockfile breaks") == "warning"
    assert _type("不要用 npm，否则 lockfile 会乱。") == "warning"


@pytest.mark.parametrize(
    ("sentence", "mtype"),
    [
        # a decision settled in so many words
        ("Let's settle this: the mobile app ships weekly on Tuesdays.", "decision"),
        # a request to note something down states a fact, not a task
        ("帮我记一下，车库的门禁卡放在玄关抽屉里。", "fact"),
        ("我的车牌号要一直记着：沪A 12345。", "fact"),
        ("I'm allergic to shellfish.", "fact"),
        ("我对花生过敏。", "fact"),
        # a person adopting a how-to as theirs
        ("Perfect, that's our onboarding checklist.", "playbook"),
        ("These are the steps I'll use for every renewal.", "playbook"),
        ("以后换轮胎就按这个步骤来。", "playbook"),
        # still a task, not a habit: remember-to with a problem stays a request
        ("记得帮我修一下登录页的报错。", ""),
    ],
)
def test_more_ways_people_state_a_type(sentence: str, mtype: str):
    assert cues.of_sentence(sentence).type == mtype


def test_inline_steps_are_a_playbook():
    text = "Here you go: 1. drain the tank 2. close the valve 3. refill to the line."
    assert cues.inline_steps(text) == ["drain the tank", "close the valve", "refill to the line."]
    assert cues.inline_steps("换机油：一、热车；二、放旧油；三、加新油。") == ["热车", "放旧油", "加新油。"]
    assert cues.inline_steps("做法：第一步，泡豆子；第二步，煮一小时。") == ["泡豆子", "煮一小时。"]
    assert cues.inline_steps("we sold 2. apples and 3. pears") == []
    assert cues.steps(text) == 3


@pytest.mark.parametrize(
    ("sentence", "mtype"),
    [
        # a decision phrased as agreement
        ("Alright, that settles it: I'm selling the car and taking the tram.", "decision"),
        ("Yeah, Norway it is.", "decision"),
        ("我和老婆商量好了，就买那套两居室。", "decision"),
        # a warning told as a story: a past occasion and the harm it did
        ("Last time I ran the cleanup script it wiped my photos folder.", "warning"),
        ("I learned that the hard way: the glass lid cracked in the oven.", "warning"),
        ("上次我把充电宝放在托运行李里，整个箱子被扣了。", "warning"),
        ("我邻居就是冬天没关水阀，水管冻裂了。", "warning"),
        # "always"/总是 about what goes wrong for the speaker is a complaint, not a rule
        ("I always forget the passport photos.", ""),
        ("我总是忘记交水电费。", ""),
        # an emphatic prohibition after a leading rule is part of that rule
        ("以后做饭都少放盐，千万别放味精。", "preference"),
        # 以后 ... 必须 / 一定要 is a standing rule
        ("以后改配置必须先备份。", "preference"),
        # a how-to adopted "from now on" is still the how-to
        ("Good, that's the procedure from now on.", "playbook"),
        ("Keep this as our packing checklist.", "playbook"),
        ("对，就按这个清单来，以后报销都用这套。", "playbook"),
        ("好，这就是我们的报销流程。", "playbook"),
        # a fact given as an answer: what make it is, what our household has
        ("It's a Bosch Serie 4, bought in 2021.", "fact"),
        ("我们家燃气是港华的，户号在缴费单上。", "fact"),
    ],
)
def test_how_people_state_it(sentence: str, mtype: str):
    assert cues.of_sentence(sentence).type == mtype


def test_a_sequence_inside_a_rule_is_not_a_how_to():
    """ "先…再…" inside a sentence that states a rule is that rule, not a playbook."""
    text = "我习惯先看结论，再看细节，回答都这样写。"
    assert _type(text) == "preference"
    text = "Keep the answers short; I prefer the summary first, then the details."
    assert _type(text) == "preference"


@pytest.mark.parametrize(
    "text",
    [
        # what people tell about their world, without "remember" or "is at"
        "We use Bitbucket for all our repos.",
        "The monorepo builds with Bazel 7.",
        "I drive a 2016 Mazda 3.",
        "My son goes to Riverside Elementary.",
        "We have three dogs, Biscuit, Olive and Rex.",
        "I'm vegan.",
        "The dentist is Dr. Okafor on Elm Street.",
        "Yes, we're on Node 20 and TypeScript 5.",
        "The car insurance renews in August with Zurich.",
        "It's a 2014 ThinkPad T440 with 16 GB of RAM.",
        "I take 20 mg of omeprazole every morning.",
        "My passport expires in 2030.",
        "The web app talks to the payments API through a queue called settle-q.",
        "Right, the admin site is a Rails app hosted on Heroku.",
        "我们公司用企业微信，不用钉钉。",
        "我女儿今年八岁，在育才小学上三年级。",
        "我开的是一辆 2020 年的大众朗逸。",
        "家里的洗衣机是西门子的，前年买的。",
        "我先生叫王磊。",
        "我们的前端项目用 yarn 管理依赖。",
        "我血糖偏高，一直在吃二甲双胍。",
    ],
)
def test_a_plain_statement_about_ones_world_is_a_fact(text: str):
    assert _type(text) == "fact"


@pytest.mark.parametrize(
    "text",
    [
        # problems, plans, one-off events and requests state no stable fact
        "The page is blank after the upgrade.",
        "Tomorrow I'm seeing the accountant at 10am.",
        "I went to the vet on Monday.",
        "It is what it is.",
        "The first option is better.",
        "It returns None instead of the user list.",
        "明天上午我要去银行办卡。",
        "这个按钮是灰的，点不了。",
        "我上周去了一趟 IKEA。",
        # a bug-fix session with one weak fact in it stays a session
        "The import job fails with a KeyError on every run. The job is in jobs/import.py. "
        "It crashes before the first row. Fix it please.",
    ],
)
def test_chatter_plans_and_one_off_events_are_no_fact(text: str):
    assert _type(text) == ""


@pytest.mark.parametrize(
    "text",
    [
        # the user's own steps, without numbers
        "Here's how I clean the espresso machine: run a blank shot, soak the basket, wipe the wand.",
        "To rotate the API key, create a new one in the console, then update the vault, "
        "then revoke the old one.",
        "When the printer jams: open the back panel, then pull the sheet out slowly, then reset the tray.",
        "办退税是这样的：先在个税 App 里填报，然后核对收入，最后提交等退款。",
        # a rule word inside a step does not outrank the how-to
        "1. Switch off the mains\n2. Never touch the live wire or you get a shock\n"
        "3. Unscrew the cover\n4. Swap the fuse",
        "First drain the radiator, then never open the valve while it is hot or it burns you, "
        "then refill it.",
        # the assistant's how-to adopted by the user
        "Perfect, that's how we'll do it every time.",
        "Nice, this is the recipe I'll use from now on.",
        "Write that down as my packing checklist.",
        "Thanks, I'll do it exactly like that every month.",
        "好的，以后就按这几步来。",
        "好，就照这个来，打印出来贴在墙上。",
    ],
)
def test_a_how_to_is_a_playbook(text: str):
    assert _type(text) == "playbook"


@pytest.mark.parametrize(
    "text",
    [
        # what happened, one thing after another, is a story, not a how-to
        "First thing I did was reboot it, then it showed a different error.",
        "我先试了重装驱动，然后还是报错。",
        "先是卡住，然后就闪退了。",
        "Ok first let me look at the logs then I'll get back to you.",
        "It worked, then after the update it hung, then it crashed again.",
    ],
)
def test_a_story_of_what_happened_is_no_how_to(text: str):
    assert _type(text) == ""


@pytest.mark.parametrize(
    ("text", "mtype"),
    [
        # committing to one option is a decision
        ("We'll take the 3-year fixed rate and skip the broker.", "decision"),
        ("Hmm, go with Caddy instead, it does the certificates itself.", "decision"),
        ("We've accepted the Tuesday/Thursday place at Oak Tree from January.", "decision"),
        ("Redis 和 Memcached 选哪个？\n那就 Redis 吧，顺便做持久化。", "decision"),
        ("昨晚和家里人商量完了，暑假去青岛。", "decision"),
        # the same words after an open question pick nothing lasting
        ("周末吃什么好？\n那就火锅吧。", ""),
        # a rule told after the harm it prevents is the lesson of that harm
        (
            "It bit me in March: I restored the wrong snapshot and we lost a day of orders. "
            "So always check the snapshot date before restoring.",
            "warning",
        ),
        ("In May the cron job deleted the uploads folder on the NAS. We lost two weeks of scans.", "warning"),
        ("上次有人白天直接改表结构，锁表半小时。大表改结构一律放到凌晨。", "warning"),
        # another person's habit, what they say, or "never mind" is no rule
        ("My dad always says I never call him enough.", ""),
        ("Also never mind the font thing, it looks fine now.", ""),
        ("/api/export 总是在周一报 502，日志里是 TimeoutError", ""),
        ("一开始我用的 sed 没反应，后来换成 perl 就好了，谢谢", ""),
        # conventions and tastes said without "always"
        ("Please no print statements in this repo.", "preference"),
        ("I'd like all new endpoints to return JSON errors.", "preference"),
        ("帮我改一下格式，以后也照这个写。", "preference"),
        ("我基本不喝酒，聚餐推荐的时候注意一下。", "preference"),
        ("我出门的话住快捷酒店就行，离地铁近一点，贵一点无所谓。", "preference"),
    ],
)
def test_more_sessions_people_have(text: str, mtype: str):
    assert _type(text) == mtype


@pytest.mark.parametrize(
    "text",
    [
        "Jo's expires in March 2027, mine's valid until 2033.",
        "Sam's allergic to sesame, he carries an inhaler.",
        "燃气是华润的，户号登记的是我爸的名字，报修打 96777。",
        "糖尿病，吃的二甲双胍，500mg，每天晚上一片。",
        "平安的，每年 6 月 2 号到期。",
        "这个老项目就是固定用 Python 3.8 的，我刚才忘了切环境。",
        "路由器在书房的书架上。",
    ],
)
def test_facts_said_as_answers(text: str):
    assert _type(text) == "fact"


def test_a_plain_statement_does_not_outvote_a_decision():
    text = (
        "两家健身房都去看了：东门那家是连锁的，离家近；西门那家是私人的。\n我们商量好了，就办东门那家的年卡。"
    )
    assert _type(text) == "decision"


def test_a_routine_in_the_present_is_a_playbook():
    text = (
        "First I export the bank statements as CSV. Then I import them into the budget sheet. "
        "Finally I tag anything over 100 euros."
    )
    assert _type(text) == "playbook"
    text = (
        "你帮我记着：先在系统里提交申请，附上发票；\n然后等主管审批，发票抬头是公司全称；\n"
        "最后每月 10 号前交给财务。"
    )
    assert _type(text) == "playbook"


def test_a_rule_said_again_is_still_the_speakers_rule():
    """ "As I said" repeats the speaker's own rule; "she says" reports someone else's habit."""
    for said in (
        "Like I said earlier, never merge without a green build.",
        "I told you: always tag releases.",
    ):
        assert _type(said) == "preference", said
    assert _type("My sister always says I never call her back.") == ""


def test_steps_ending_in_a_report_back_are_an_errand():
    """A chain of one-off instructions for the assistant is no how-to to keep."""
    errand = "Build the image, then push it to the registry, then let me know the tag."
    assert cues.classify(errand, [errand]).type == ""
