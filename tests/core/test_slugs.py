from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from memoryd import slugs
from memoryd.errors import InvalidSlug

WHEN = datetime(2026, 5, 18, tzinfo=UTC)


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "..",
        "../etc/passwd",
        "a/b",
        "a\\b",
        "x\x00y",
        "a" * 121,
        ".hidden",
        "-flag",
        "ok..no",
        "x.md",
        "with space",
        "日本",
    ],
)
def test_unsafe_slugs_are_refused(bad: str):
    with pytest.raises(InvalidSlug):
        slugs.validate(bad)


def test_generated_slugs_are_safe_and_readable():
    s = slugs.for_title("Use Postgres for the job queue!", WHEN)
    assert s.startswith("2026-05-18-use-postgres-for-the-job-queue-") and slugs.validate(s) == s
    assert slugs.validate(slugs.for_title("全部中文标题", WHEN)).startswith("2026-05-18-")
    a = slugs.for_session("claude-code", "../../evil/ id", WHEN)
    assert a == slugs.for_session("claude-code", "../../evil/ id", WHEN)
    assert a != slugs.for_session("codex", "../../evil/ id", WHEN)
    assert "/" not in a and ".." not in a


def test_cli_refuses_traversal_slug_without_damage(cli, isolated_home, project):
    assert (
        cli("record", "--type", "fact", "--title", "keep", "--body", "b", "--scope", str(project)).returncode
        == 0
    )
    for bad in ("../../etc/passwd", "a/b", "x" * 500):
        for cmd in (("get", bad), ("forget", bad), ("update", bad, "--title", "x")):
            res = cli(*cmd)
            assert res.returncode == 2, (cmd, res.stderr)
            assert res.stderr.startswith("memoryd: slug") and res.stderr.count("\n") == 1
    assert cli("doctor").returncode == 0


# -- Chinese titles (issue 21): their words, in pinyin ------------------------------------
@pytest.mark.parametrize(
    ("title", "words"),
    [
        ("全部中文标题", "quan-bu-zhong-wen-biao-ti"),
        ("以后一律用pnpm，不要用npm", "yi-hou-yi-lv-yong-pnpm-bu-yao-yong-npm"),
        ("部署到 Fly.io 之前先跑迁移", "bu-shu-dao-fly-io-zhi-qian-xian-pao-qian-yi"),
        ("重庆的银行", "chong-qing-de-yin-hang"),  # polyphones read in their phrase
    ],
)
def test_chinese_titles_give_their_words(title: str, words: str):
    s = slugs.for_title(title, WHEN)
    assert s.startswith(f"2026-05-18-{words}-") and slugs.validate(s) == s
    assert s.isascii() and len(s) == len(f"2026-05-18-{words}-") + 4
    p = slugs.for_promotion(3, title, "2026-05-18-sess")
    assert p.startswith(f"promoted-3-{words}-") and slugs.validate(p) == p


# -- titles in scripts accents cannot be folded off: transliterated, never wordless ----------
@pytest.mark.parametrize(
    ("title", "words"),
    [
        ("Никогда не запускай миграции", "nikogda-ne-zapuskay-migratsii"),
        ("저장소 백업 절차", "jeojangso-baegeob-jeolcha"),
        ("データベースの設定", "detabesuno-she-ding"),  # kana by anyascii, kanji by pypinyin
        ("Ελληνικά δεδομένα", "ellinika-dedomena"),
        ("Straße und Maß", "strasse-und-mass"),  # ß has no accent to fold off either
        ("Für die Prüfung", "fur-die-prufung"),  # accents fold as before
    ],
)
def test_other_scripts_give_their_words(title: str, words: str):
    s = slugs.for_title(title, WHEN)
    assert s.startswith(f"2026-05-18-{words}-") and slugs.validate(s) == s and s.isascii()


def test_symbols_are_no_words_of_a_name():
    assert slugs.for_title("Deploy 🚀 on Friday", WHEN).startswith("2026-05-18-deploy-on-friday-")


def test_a_very_long_chinese_title_is_cut_at_a_syllable():
    title = "数据库迁移必须在维护窗口内完成并且提前通知所有下游团队以及值班同事" * 3
    s = slugs.for_title(title, WHEN)
    words = s.removeprefix("2026-05-18-").rsplit("-", 1)[0]
    assert 40 <= len(words) <= 60 and slugs.validate(s) == s
    assert words.startswith("shu-ju-ku-qian-yi-bi-xu-zai-wei-hu")
    assert all(w.isalpha() for w in words.split("-"))


def test_chinese_slugs_work_in_the_cli(cli, project):
    made = []
    for _ in range(2):
        out = cli(
            "record",
            "--type",
            "warning",
            "--title",
            "不要在周五下午发布",
            "--scope",
            str(project),
            "--json",
            stdin=f"上次周五发布出了事故，第{len(made)}次提醒。",
        )
        assert out.returncode == 0, out.stderr
        made.append(json.loads(out.stdout)["slug"])
    a, b = made
    assert a != b and a.startswith("20") and "-bu-yao-zai-zhou-wu-xia-wu-fa-bu-" in a
    got = cli("get", a)
    assert got.returncode == 0 and "不要在周五下午发布" in got.stdout
    assert cli("update", a, "--title", "不要在周五发布").returncode == 0
    assert "不要在周五发布" in cli("get", a).stdout
    assert cli("forget", b).returncode == 0 and cli("get", b).returncode == 1


def test_a_huge_title_gives_the_name_of_its_start():
    """A megabyte title is not transliterated whole: only its start can reach the name."""
    start = "Никогда не запускай миграции на staging в рабочее время "
    huge = slugs.for_title(start * 20_000, WHEN)
    assert huge.rsplit("-", 1)[0] == slugs.for_title(start * 10, WHEN).rsplit("-", 1)[0]
