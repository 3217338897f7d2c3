"""Settings changed from the tray (`Memoryd.update_config`): the user's config.toml keeps
its comments, layout and other keys; a value the loader refuses leaves the file as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from memoryd.app import Memoryd
from memoryd.config import load
from memoryd.errors import UsageError

HAND_WRITTEN = """\
# memoryd settings, written by hand
[llm]
provider = "anthropic"  # the default
model = "claude-haiku-4-5"
daily_token_budget = 50000

# keep things longer than the default
[decay]
dim_after_days = 120   # four months
forget_after_days = 200

[schedule]
digest = "0 9 * * 1"  # Monday morning
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(HAND_WRITTEN, encoding="utf-8")
    return path


def test_changes_keep_comments_and_other_keys(config: Path):
    app = Memoryd()
    cfg = app.update_config(
        {"llm.model": "claude-sonnet-4-5", "schedule.digest": "0 8 * * mon", "email.host": "smtp.example.org"}
    )
    assert config.read_text(encoding="utf-8") == HAND_WRITTEN.replace(
        'model = "claude-haiku-4-5"', 'model = "claude-sonnet-4-5"'
    ).replace('digest = "0 9 * * 1"  # Monday', 'digest = "0 8 * * mon"  # Monday') + (
        '\n[email]\nhost = "smtp.example.org"\n'
    )
    # The facade and the next process both see the new values, and the old ones stay.
    for c in (cfg, app.config, load(config), Memoryd().config):
        assert c.llm.model == "claude-sonnet-4-5" and c.llm.daily_token_budget == 50000
        assert c.decay.dim_after_days == 120 and c.decay.forget_after_days == 200
        assert c.email.host == "smtp.example.org"
    assert {r["id"]: r["cron"] for r in Memoryd().schedules()}["digest"] == "0 8 * * mon"


def test_none_removes_a_key_and_its_default_applies(config: Path):
    app = Memoryd()
    cfg = app.update_config({"decay.dim_after_days": None, "llm.daily_token_budget": None})
    text = config.read_text(encoding="utf-8")
    assert "dim_after_days" not in text and "daily_token_budget" not in text
    assert "# keep things longer than the default\n[decay]\nforget_after_days = 200\n" in text
    assert "# memoryd settings, written by hand" in text and "# Monday morning" in text
    assert cfg.decay.dim_after_days == 90 and cfg.llm.daily_token_budget == 200_000
    assert cfg.decay.forget_after_days == 200
    before = config.read_bytes()
    app.update_config({"decay.dim_after_days": None, "nosuch.key": None})  # already absent: no-op
    assert config.read_bytes() == before


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"llm.provider": "gpt"}, ("provider must be one of", "'gpt'")),
        ({"schedule.digest": "0 9 * * 8"}, ("bad weekday",)),
        ({"schedule.weekly": "0 9 * * 1"}, ("unknown key", "weekly")),
        ({"decay.dim_after_days": -5}, ("dim_after_days", "non-negative")),
        ({"decay.dim_after_days": "soon"}, ("dim_after_days", "non-negative")),
        ({"search.default_limit": True}, ("default_limit",)),
        ({"llm.nosuch": 1}, ("unknown key", "nosuch")),
        ({"email.security": "tls"}, ("security must be",)),
        ({"llm.model.name": "x"}, ("llm.model is not a table",)),
        ({"provider": "rules"}, ("section.key",)),
        ({"llm.": "rules"}, ("section.key",)),
        # one bad change among good ones: none is written
        ({"llm.model": "claude-sonnet-4-5", "decay.forget_after_days": -1}, ("forget_after_days",)),
    ],
)
def test_a_bad_value_leaves_the_file_byte_identical(config: Path, changes: dict, words: tuple[str, ...]):
    app = Memoryd()
    before, mtime = config.read_bytes(), config.stat().st_mtime_ns
    with pytest.raises(UsageError) as err:
        app.update_config(changes)
    assert "\n" not in str(err.value)
    for w in words:
        assert w in str(err.value), (w, str(err.value))
    assert config.read_bytes() == before and config.stat().st_mtime_ns == mtime
    assert app.config.llm.model == "claude-haiku-4-5" and app.config.decay.dim_after_days == 120
    assert [p.name for p in config.parent.iterdir() if p.name.startswith(".tmp-")] == []


def test_creates_the_file_when_missing(tmp_path: Path):
    config = tmp_path / "config.toml"
    assert not config.exists()
    app = Memoryd()
    cfg = app.update_config({"llm.provider": "rules", "digest.top_n": 5})
    assert config.read_text(encoding="utf-8") == '[llm]\nprovider = "rules"\n\n[digest]\ntop_n = 5\n'
    assert cfg.llm.provider == "rules" and cfg.digest.top_n == 5
    assert Memoryd().config.llm.provider == "rules"


def test_missing_file_and_a_bad_value_creates_nothing(tmp_path: Path):
    config = tmp_path / "config.toml"
    with pytest.raises(UsageError):
        Memoryd().update_config({"llm.provider": "nope"})
    assert not config.exists()


def test_a_file_broken_since_it_was_loaded_is_refused_and_kept(config: Path):
    app = Memoryd()  # the tray loaded it; then the user broke it in an editor
    config.write_text("[llm\nprovider = 'rules'\n", encoding="utf-8")
    before = config.read_bytes()
    with pytest.raises(UsageError) as err:
        app.update_config({"llm.provider": "rules"})
    assert "\n" not in str(err.value) and str(config) in str(err.value)
    assert config.read_bytes() == before


def test_lists_and_tuples_are_written_as_arrays(config: Path):
    cfg = Memoryd().update_config({"email.to": ("a@example.org", "b@example.org")})
    assert cfg.email.to == ("a@example.org", "b@example.org")
    assert 'to = ["a@example.org", "b@example.org"]' in config.read_text(encoding="utf-8")


def test_a_symlinked_config_is_written_through(tmp_path: Path):
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "memoryd.toml"
    target.write_text(HAND_WRITTEN, encoding="utf-8")
    config = tmp_path / "config.toml"
    config.symlink_to(target)
    Memoryd().update_config({"llm.model": "claude-sonnet-4-5"})
    assert config.is_symlink() and config.resolve() == target.resolve()
    assert target.read_text(encoding="utf-8") == HAND_WRITTEN.replace("claude-haiku-4-5", "claude-sonnet-4-5")
    assert [p.name for p in dotfiles.iterdir()] == ["memoryd.toml"]  # no temp file left behind


@pytest.mark.xfail(
    strict=True,
    reason="core/memoryd/config_edit.py:34-36: a new sub-table (llm.ollama) is appended to the "
    "[llm] table's body, after the comment that introduces the next section, so "
    "'# keep things longer than the default' ends up above [llm.ollama], not above [decay]",
)
def test_a_new_sub_table_keeps_the_next_sections_comment_in_place(config: Path):
    Memoryd().update_config({"llm.ollama.base_url": "http://127.0.0.1:11500"})
    text = config.read_text(encoding="utf-8")
    assert load(config).llm.provider_config("ollama").base_url == "http://127.0.0.1:11500"
    assert "# keep things longer than the default\n[decay]\n" in text, text
