"""The identity profile: rewritten by rules or by the LLM (the real anthropic SDK against a
recorded response), kept as numbered versions with diffs, never holding anything of a
sensitive scope, and shown at the top of every project's start-up snapshot."""

from __future__ import annotations

import json
from pathlib import Path

from memoryd.app import Memoryd
from memoryd.config import Config, LLMConfig
from memoryd.profile import identity
from tests.core.llm.replay import Replay, recorded
from tests.core.sensitive.support import PIN, audit_events, grant_pin, leaks, one_line_error, set_pin

CANARY = "QuokkaLedger5521"


def _at(monkeypatch, when: str) -> None:
    monkeypatch.setenv("MEMORYD_NOW", when)


def test_two_weekly_rewrites_give_two_versions_and_a_diff(
    cli, project: Path, monkeypatch, isolated_home: Path
):
    """The issue's acceptance: a week apart, with a new preference in between."""
    _at(monkeypatch, "2026-11-08T09:00:00Z")
    Memoryd().record("preference", "Tabs over spaces", "The user indents with tabs.", scope_path=project)
    first = cli("profile", "rewrite-identity", "--weekly", "--json")
    assert first.returncode == 0, first.stderr
    v1 = json.loads(first.stdout)
    assert v1["changed"] and v1["version"] == 1 and v1["by"] == "rules"

    _at(monkeypatch, "2026-11-15T09:00:00Z")
    Memoryd().record(
        "preference", "Short answers", "The user wants short, direct answers.", scope_path=project
    )
    second = json.loads(cli("profile", "rewrite-identity", "--weekly", "--json").stdout)
    assert second["changed"] and second["version"] == 2

    versions = json.loads(cli("profile", "versions", "--json").stdout)
    assert [v["version_num"] for v in versions] == [1, 2]
    assert [v["trigger"] for v in versions] == ["weekly_cron", "weekly_cron"]
    assert [v["written_at"][:10] for v in versions] == ["2026-11-08", "2026-11-15"]

    diff = cli("profile", "diff", "1", "2")
    assert diff.returncode == 0, diff.stderr
    added = [ln for ln in diff.stdout.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    assert any("Short answers" in ln for ln in added), diff.stdout
    assert "- Tabs over spaces" in cli("profile", "show", "2").stdout  # kept, not replaced

    shown = cli("profile", "show", "1")
    assert "Tabs over spaces" in shown.stdout and "Short answers" not in shown.stdout
    latest = (isolated_home / "profile" / "identity.md").read_text(encoding="utf-8")
    assert latest == cli("profile", "show").stdout and "Short answers" in latest

    # What the agent sees next: the profile's Summary heads the project's snapshot.
    out = cli("inject", "--cwd", str(project))
    about = out.stdout.split("## About the user", 1)[1].split("\n## ", 1)[0]
    assert "Short answers" in about, out.stdout


def test_a_rewrite_that_changes_nothing_makes_no_version(cli, project: Path):
    Memoryd().record(
        "warning", "Never force-push main", "It rewrote shared history once.", scope_path=project
    )
    assert json.loads(cli("profile", "rewrite-identity", "--json").stdout)["version"] == 1
    again = json.loads(cli("profile", "rewrite-identity", "--json").stdout)
    assert again["changed"] is False and again["version"] == 1
    assert len(json.loads(cli("profile", "versions", "--json").stdout)) == 1
    events = [e for e in json.loads(cli("audit", "--json").stdout) if e["event_type"] == "profile_rewrite"]
    assert len(events) == 1 and json.loads(events[0]["details"])["version"] == 1


def test_nothing_of_a_sensitive_scope_enters_the_profile(
    cli, secret_service: str, project: Path, tmp_path: Path, isolated_home: Path
):
    secret = tmp_path / "payroll"
    secret.mkdir()
    Memoryd().record("preference", f"Payroll runs use {CANARY}", f"Always {CANARY}.", scope_path=secret)
    Memoryd().record("preference", "Tabs over spaces", "The user indents with tabs.", scope_path=project)
    assert cli("mark-sensitive", str(secret)).returncode == 0
    assert cli("profile", "rewrite-identity").returncode == 0
    text = (isolated_home / "profile" / "identity.md").read_text(encoding="utf-8")
    assert "Tabs over spaces" in text and CANARY not in text
    assert CANARY not in json.dumps(identity.versions(Memoryd().store))


def test_the_llm_rewrites_the_profile(project: Path, monkeypatch, isolated_home: Path):
    """The anthropic SDK against a recorded answer: what was sent is the current profile and
    the week's memories, the answer becomes version 1, the tokens are on the ledger."""
    app = Memoryd(config=Config(llm=LLMConfig(provider="anthropic", model="claude-haiku-4-5-20251001")))
    app.record("preference", "Short answers", "The user wants short, direct answers.", scope_path=project)
    replay = Replay(recorded("anthropic", "identity_ok"))
    res = identity.rewrite(
        app.store, app.config, env={"ANTHROPIC_API_KEY": "sk-test-0123456789"}, transport=replay.transport
    )
    assert res.changed and res.version == 1 and res.by == "anthropic:claude-haiku-4-5-20251001"
    assert res.change_summary.startswith("Added the indentation")
    (sent,) = replay.bodies()
    user = " ".join(
        m["content"] if isinstance(m["content"], str) else json.dumps(m["content"]) for m in sent["messages"]
    )
    assert "Short answers" in user and "(no profile yet)" in user
    text = (isolated_home / "profile" / "identity.md").read_text(encoding="utf-8")
    assert "Backend developer who works in Python 3.11" in text
    assert app.spend().today.tokens == 412 + 96


def test_a_failing_llm_falls_back_to_rules(project: Path):
    app = Memoryd(
        config=Config(llm=LLMConfig(provider="anthropic", model="claude-haiku-4-5-20251001", max_retries=0))
    )
    app.record("preference", "Short answers", "The user wants short, direct answers.", scope_path=project)
    replay = Replay(recorded("anthropic", "server_error"))
    res = identity.rewrite(
        app.store, app.config, env={"ANTHROPIC_API_KEY": "sk-test-0123456789"}, transport=replay.transport
    )
    assert res.changed and res.by == "rules" and "LLM failed" in res.note
    assert "Short answers" in identity.current_text(app.store)


def test_bad_input_is_one_line(cli):
    for args, code in (
        (["profile", "show", "7"], 1),
        (["profile", "diff", "1", "x"], 2),
        (["profile", "show"], 1),
    ):
        out = cli(*args)
        assert out.returncode == code, (args, out.returncode, out.stderr)
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr


def test_marking_a_scope_sensitive_withholds_it_from_the_profile(
    cli, secret_service: str, project: Path, tmp_path: Path, isolated_home: Path
):
    """Written into the profile, a version and a monthly report while the scope was plain;
    marked afterwards: every version and report that drew on it is withheld (sealed, out of
    every listing, counted), identity.md is rewritten without it, and no other project's
    snapshot shows it."""
    secret = tmp_path / "payroll"
    secret.mkdir()
    Memoryd().record("preference", f"Payroll runs use {CANARY}", f"Always {CANARY}.", scope_path=secret)
    Memoryd().record("preference", "Tabs over spaces", "The user indents with tabs.", scope_path=project)
    assert cli("profile", "rewrite-identity").returncode == 0
    assert cli("profile", "generate-monthly-report").returncode == 0
    assert CANARY in (isolated_home / "profile" / "identity.md").read_text(encoding="utf-8")
    assert CANARY in cli("inject", "--cwd", str(project)).stdout

    assert cli("mark-sensitive", str(secret)).returncode == 0
    profile = isolated_home / "profile"
    assert CANARY not in (profile / "identity.md").read_text(encoding="utf-8")
    assert "Tabs over spaces" in (profile / "identity.md").read_text(encoding="utf-8")
    assert not list((profile / "change-reports").glob("*.md"))
    app = Memoryd()
    assert [v["version_num"] for v in app.profile_versions()] == [2]  # v1 withheld, v2 by rules
    assert app.monthly_reports() == []
    hidden = app.profile_withheld()
    assert (hidden.versions, hidden.reports, hidden.scopes) == (1, 1, [app.scope(secret).hash])
    assert CANARY not in json.dumps(
        [identity.version(app.store, v["version_num"]) for v in app.profile_versions()]
    )
    listed = cli("profile", "versions")
    assert "1 version(s) and 1 monthly report(s) drew on sensitive projects" in listed.stderr + listed.stdout
    assert CANARY not in cli("inject", "--cwd", str(project)).stdout
    events = [e for e in json.loads(cli("audit", "--json").stdout) if e["event_type"] == "profile_withdraw"]
    assert len(events) == 1
    assert leaks(isolated_home, CANARY) == []  # no byte left anywhere, index.db's free pages included


def test_a_live_grant_shows_the_withheld_versions_and_report(
    cli, secret_service: str, project: Path, tmp_path: Path, isolated_home: Path
):
    """Through the gate every reader passes: with a live grant the versions and the report
    a sensitive project withheld are listed and read again; without one they are counted,
    and asking for one by number is refused (and audited). Unmarked, they are plain again."""
    secret = tmp_path / "payroll"
    secret.mkdir()
    set_pin(cli)
    Memoryd().record("preference", f"Payroll runs use {CANARY}", f"Always {CANARY}.", scope_path=secret)
    Memoryd().record("preference", "Tabs over spaces", "The user indents with tabs.", scope_path=project)
    assert cli("profile", "rewrite-identity").returncode == 0  # v1
    Memoryd().record("preference", "Short answers", "The user wants short answers.", scope_path=project)
    assert cli("profile", "rewrite-identity").returncode == 0  # v2
    assert cli("profile", "generate-monthly-report").returncode == 0
    assert (
        cli("mark-sensitive", str(secret), stdin=PIN + "\n").returncode == 0
    )  # v1, v2 and the report withheld; v3

    app = Memoryd()
    assert [v["version_num"] for v in app.profile_versions()] == [3]
    assert app.profile_withheld().as_dict() == {
        "versions": 2,
        "reports": 1,
        "scopes": [app.scope(secret).hash],
    }
    one_line_error(cli("profile", "show", "1"), 3, "sensitive")
    assert "profile" in audit_events(cli, "access_denied")[-1]["details"]

    grant_pin(cli, secret, "session")
    app = Memoryd()
    shown = app.profile_versions()
    assert [v["version_num"] for v in shown] == [1, 2, 3]
    assert shown[0]["change_summary"] == "first version" and shown[0]["withheld_by"] == [
        app.scope(secret).hash
    ]
    assert "withheld_by" not in shown[2]
    assert CANARY in app.profile_version(1)["content_md"]
    assert "+- Short answers" in app.profile_diff(1, 2)
    (report,) = app.monthly_reports()
    assert CANARY in report["content_md"]
    assert app.profile_withheld().as_dict() == {"versions": 0, "reports": 0, "scopes": []}
    assert "profile" in audit_events(cli, "sensitive_read")[-1]["details"]

    assert cli("revoke", str(secret)).returncode == 0
    assert [v["version_num"] for v in Memoryd().profile_versions()] == [3]
    assert Memoryd().profile_withheld().versions == 2

    grant_pin(cli, secret, "once")
    assert cli("unmark-sensitive", str(secret)).returncode == 0
    app = Memoryd()
    assert [v["version_num"] for v in app.profile_versions()] == [1, 2, 3]
    assert "withheld_by" not in app.profile_versions()[0] and CANARY in app.profile_version(1)["content_md"]
    assert app.profile_withheld().versions == 0


def test_a_rotated_key_still_opens_what_it_withheld(
    cli, secret_service: str, project: Path, tmp_path: Path, isolated_home: Path
):
    secret = tmp_path / "payroll"
    secret.mkdir()
    set_pin(cli)
    Memoryd().record("preference", f"Payroll runs use {CANARY}", f"Always {CANARY}.", scope_path=secret)
    assert cli("profile", "rewrite-identity").returncode == 0
    assert cli("mark-sensitive", str(secret), stdin=PIN + "\n").returncode == 0
    grant_pin(cli, secret, "session")
    out = cli("rotate-key", str(secret))
    assert out.returncode == 0, out.stderr
    assert CANARY in Memoryd().profile_version(1)["content_md"]


def _locale(monkeypatch, lang: str) -> None:
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", lang)


def test_the_profile_is_written_in_the_users_language(cli, project: Path, monkeypatch, isolated_home: Path):
    """Issue 22: a Chinese user's profile had English headings ("Identity profile",
    "Summary", "Prefers:"). The locale decides; the agent still finds the Summary."""
    _locale(monkeypatch, "zh_CN.UTF-8")
    _at(monkeypatch, "2026-11-08T09:00:00Z")
    Memoryd().record("preference", "Tabs over spaces", "The user indents with tabs.", scope_path=project)
    assert cli("profile", "rewrite-identity").returncode == 0
    text = (isolated_home / "profile" / "identity.md").read_text(encoding="utf-8")
    assert text.startswith("# 身份画像\n\n## 概要\n- 偏好：Tabs over spaces\n"), text
    assert "\n## 偏好\n- Tabs over spaces" in text and "Summary" not in text
    about = cli("inject", "--cwd", str(project)).stdout.split("## About the user", 1)[1]
    assert "偏好：Tabs over spaces" in about.split("\n## ", 1)[0]

    _at(monkeypatch, "2026-11-15T09:00:00Z")
    Memoryd().record("preference", "Short answers", "The user wants short answers.", scope_path=project)
    assert cli("profile", "rewrite-identity").returncode == 0
    # the change summary as values, for a window to word (the CLI keeps its English line)
    changes = [v["change"] for v in Memoryd().profile_versions()]
    assert changes[0] == {"kind": "first"} and changes[1]["kind"] == "lines", changes
    assert changes[1]["added"] >= 1


def test_the_tray_language_setting_wins_over_the_locale(cli, project: Path, monkeypatch, tmp_path: Path):
    _locale(monkeypatch, "zh_CN.UTF-8")
    (tmp_path / "config.toml").write_text('[tray]\nlanguage = "en"\n', encoding="utf-8")
    Memoryd().record("preference", "Tabs over spaces", "The user indents with tabs.", scope_path=project)
    assert cli("profile", "rewrite-identity").returncode == 0
    assert cli("profile", "show").stdout.startswith("# Identity profile\n\n## Summary\n- Prefers: Tabs")


def test_the_language_follows_gettexts_order() -> None:
    from memoryd import locale_text

    assert locale_text.language({}, {"LANG": "zh_CN.UTF-8"}) == "zh"
    assert locale_text.language({}, {"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}) == "en"
    assert locale_text.language({}, {"LANGUAGE": "zh_CN:en", "LANG": "en_US.UTF-8"}) == "zh"
    assert locale_text.language({}, {"LANG": "zh_TW.UTF-8"}) == "en"  # no Traditional Chinese
    assert locale_text.language({"tray": {"language": "zh_CN"}}, {"LANG": "en_US"}) == "zh"
    assert locale_text.language({}, {}) == "en"
