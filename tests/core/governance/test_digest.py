"""The digest: its sections, its JSON schema, and delivery by mail (a real aiosmtpd on
loopback) and notification (a real dunst)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from memoryd import clock
from memoryd.app import Memoryd
from memoryd.governance.digest import Digest
from tests.delivery import shown

from .sessions import REMEMBER, ROUTINE, capture

ROOT = Path(__file__).resolve().parents[3]
T0 = datetime(2026, 3, 2, 9, 0, 0, tzinfo=clock.UTC)


def _at(days: float) -> str:
    return clock.iso(T0 + timedelta(days=days))


@pytest.fixture
def week(cli, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A week of use: a queued promotion, duplicates, a session about to dim, searches."""
    monkeypatch.setenv("MEMORYD_NOW", _at(-85))
    old = capture(cli, project, tmp_path, "old-1", [("Tune the nginx worker count", "Set to 4.")])
    monkeypatch.setenv("MEMORYD_NOW", _at(-2))
    keep = Memoryd().record(
        "fact", "Staging on db-2", "Staging lives on db-2.", triggers=["staging"], scope_path=project
    )[0]
    dup = Memoryd().record("fact", "db-2 is staging", "Staging lives on db-2.", scope_path=project)[0]
    slug = capture(cli, project, tmp_path, "week-1", [REMEMBER])
    assert cli("analyze-session", slug).returncode == 0
    capture(cli, project, tmp_path, "week-2", [ROUTINE])
    for _ in range(3):
        assert cli("search", "db-2 staging", "--mode", "keyword", "--scope", str(project)).returncode == 0
    monkeypatch.setenv("MEMORYD_NOW", _at(0))
    return {"old": old or "", "keep": keep.meta.slug, "dup": dup.meta.slug, "session": slug or ""}


def test_sections(cli, week: dict[str, str]):
    out = cli("digest", "--json")
    assert out.returncode == 0, out.stderr
    d = Digest.model_validate_json(out.stdout)
    assert d.since == _at(-7) and d.until == _at(0) and d.scopes is None
    (p,) = d.pending_promotions
    assert p.session_slug == week["session"] and p.mean >= d.promote_threshold and p.id >= 1
    (group,) = d.duplicates
    assert {m.slug for m in group.memories} == {week["keep"], week["dup"]}
    (reminder,) = d.ttl_reminders
    assert (reminder.slug, reminder.state, reminder.next_state) == (week["old"], "alive", "dim")
    assert reminder.due_at == _at(5) and reminder.idle_days == 85
    hot = {r.slug: r.recalls for r in d.trends.recall_hot}
    assert hot[week["keep"]] == 3 and hot[week["dup"]] == 3
    triggers = {t.trigger: t.hits for t in d.trends.top_triggers}
    assert triggers == {"staging": 3}
    # The analysed session names pnpm four times (the rules read sessions); nothing before.
    rising = {e.name: e.delta for e in d.trends.rising_entities}
    assert rising["pnpm"] == 4 and all(delta > 0 for delta in rising.values()), rising
    assert d.trends.recent_supersedes == [] and d.pending_supersedes == []
    assert d.spend.today.tokens == 0 and d.spend.daily_budget == 200_000

    text = cli("digest").stdout
    for heading in (
        "Pending promotions (1",
        "Duplicates (1",
        "TTL reminders (1",
        "Trends",
        "Top triggers:",
        "Top entities (rising):",
        "Recent supersedes:",
        "Supersedes to confirm (0",
        "Recall hot:",
        "LLM spend",
    ):
        assert heading in text
    (merge_hint,) = [ln for ln in text.splitlines() if "memoryd merge --keep" in ln]
    assert week["keep"] in merge_hint and week["dup"] in merge_hint
    assert "  pnpm                     +4 mentions" in text
    assert f"#{p.id} preference" in text
    # --since narrows the window: the searches were 2 days ago.
    narrow = Digest.model_validate_json(cli("digest", "--json", "--since", _at(-1)).stdout)
    assert narrow.trends.recall_hot == [] and narrow.trends.top_triggers == []
    assert len(narrow.pending_promotions) == 1  # the queue is not windowed: pending is pending


def test_scope_filter(cli, week: dict[str, str], tmp_path: Path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    d = Digest.model_validate_json(cli("digest", "--json", "--scope", str(elsewhere)).stdout)
    assert d.pending_promotions == [] and d.duplicates == [] and d.ttl_reminders == []


def test_bad_input_is_one_line(cli):
    for args, code in ((("--since", "last tuesday"), 2), (("--since", "2999-01-01"), 2)):
        out = cli("digest", *args)
        assert out.returncode == code and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_schema_file_is_the_model():
    """docs/digest.schema.json is what the tray codes against: regenerate it on purpose."""
    committed = json.loads((ROOT / "docs" / "digest.schema.json").read_text())
    assert committed == Digest.model_json_schema(), (
        "Digest changed: python -m memoryd.governance.digest > docs/digest.schema.json"
    )


def _email_config(tmp_path: Path, port: int) -> None:
    (tmp_path / "config.toml").write_text(
        f'[email]\nhost = "127.0.0.1"\nport = {port}\nsecurity = "none"\n'
        'from_addr = "memoryd@localhost"\nto = ["me@example.org", "also@example.org"]\n'
    )


def test_notify_mails_the_digest_text_and_notifies(cli, week, smtp_server, dunst, tmp_path: Path):
    bus, record = dunst
    server = smtp_server()
    _email_config(tmp_path, server.port)
    plain = cli("digest")
    out = cli("digest", "--notify", env={"DBUS_SESSION_BUS_ADDRESS": bus})
    assert out.returncode == 0, out.stderr
    assert out.stdout == plain.stdout
    assert "email: sent to 2 recipients" in out.stderr and "notification" in out.stderr

    ((mail_from, rcpts, msg),) = server.box.received
    assert mail_from == "memoryd@localhost"
    assert rcpts == ["me@example.org", "also@example.org"]
    assert msg["Subject"].startswith("memoryd digest 2026-03-02: 1 promotion(s) to review")
    assert msg.get_content() == plain.stdout  # the mail is the digest, byte for byte

    ((_app, title, body),) = shown(record)
    assert title.startswith("memoryd: 1 promotion(s) to review") and "Pending promotions" in body
    (event,) = json.loads(cli("audit", "--event-type", "digest_notify", "--json").stdout)
    assert json.loads(event["details"])["delivered"] == {"notification": True, "email": True}
    assert cli("audit", "verify").returncode == 0


def test_notify_reports_each_failed_channel(cli, week, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from tests.delivery import closed_port

    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "no-runtime"))
    with closed_port() as port:  # nothing listens there, and no parallel test's server can
        _email_config(tmp_path, port)
        out = cli("digest", "--notify")
    assert out.returncode == 1
    assert "Pending promotions" in out.stdout  # the digest itself is still printed
    errors = [ln for ln in out.stderr.splitlines() if "failed" in ln]
    assert len(errors) == 2 and all(ln.startswith("memoryd: ") for ln in errors)
    assert "Traceback" not in out.stderr
    (event,) = json.loads(cli("audit", "--event-type", "digest_notify", "--json").stdout)
    assert json.loads(event["details"])["delivered"] == {"notification": False, "email": False}
