"""The Layer 1 snapshot: rendered into scopes/<hash>/snapshot.md when a scope changes, read
back by `memoryd inject`; constraints first, forgotten memories gone, a stale marker or a
newer identity profile forcing a new render, a real token budget however big the scope,
and a sealed file in sensitive scopes."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memoryd import inject, paths, slugs, snapshot, tokencount
from memoryd.app import Memoryd
from memoryd.frontmatter import Document
from memoryd.models import Frontmatter, MemoryType, default_ttl
from memoryd.scope import resolve
from memoryd.store import Store
from tests.core.sensitive.support import CANARY, PIN, grant_tty, leaks

Cli = Callable[..., subprocess.CompletedProcess[str]]

RECORDS = [
    ("decision", "Orders move to PostgreSQL", "Chosen for JSONB and row locks."),
    ("preference", "Use pnpm, never npm", "The lockfile is pnpm-lock.yaml."),
    ("warning", "Never run migrations on Friday", "The prod database locks for minutes."),
    ("fact", "The API is written in Go", "It lives in services/api."),
    ("playbook", "Release checklist", "Tag, build, smoke test, announce."),
]


def _snap(home: Path, project: Path) -> Path:
    return home / "scopes" / resolve(project).hash / "snapshot.md"


def _record_all(cli: Cli, project: Path) -> dict[str, str]:
    slugs_by_title = {}
    for kind, title, body in RECORDS:
        out = cli("record", "--type", kind, "--title", title, "--body", body, "--json", cwd=project)
        assert out.returncode == 0, out.stderr
        slugs_by_title[title] = json.loads(out.stdout)["slug"]
    return slugs_by_title


def _entry(memory_type: str, text: str, day: str | None = None) -> str:
    """A snapshot line of a memory the user recorded today (memoryd.quoting's format)."""
    day = day or datetime.now(UTC).strftime("%Y-%m-%d")
    return f"- {memory_type}, recorded by the user, manual, {day}: {json.dumps(text, ensure_ascii=False)}"


def _section(text: str, title: str) -> list[str]:
    lines, inside = [], False
    for line in text.splitlines():
        if line.startswith("## "):
            inside = line == title
        elif inside and line.strip():
            lines.append(line)
    return lines


def test_record_renders_the_snapshot_with_labelled_constraints(
    cli, project: Path, isolated_home: Path
) -> None:
    """`memoryd record` leaves a fresh snapshot.md: decisions, preferences and warnings
    under Constraints with their type, the others under Key memories; `inject` prints it."""
    _record_all(cli, project)
    snap = _snap(isolated_home, project)
    assert snap.is_file()
    text = snap.read_text(encoding="utf-8")
    assert not (snap.parent / inject.STALE).exists()
    constraints = _section(text, "## Constraints")
    assert (
        _entry("warning", "Never run migrations on Friday: The prod database locks for minutes.")
        in constraints
    )
    assert _entry("decision", "Orders move to PostgreSQL: Chosen for JSONB and row locks.") in constraints
    assert _entry("preference", "Use pnpm, never npm: The lockfile is pnpm-lock.yaml.") in constraints
    assert len(constraints) == 3
    key = _section(text, "## Key memories")
    assert _entry("fact", "The API is written in Go: It lives in services/api.") in key
    assert _entry("playbook", "Release checklist: Tag, build, smoke test, announce.") in key
    assert "from 5 long-term memories and 0 sessions" in text
    assert text.rstrip("\n").endswith(inject.MORE)
    out = cli("inject", cwd=project)
    assert out.returncode == 0 and out.stdout == text, out.stderr


def test_a_warning_outranks_a_fact(project: Path, isolated_home: Path) -> None:
    """Same age, recall and quality: the warning scores higher, comes first in the
    snapshot, and outlives the fact when the budget is tight."""
    now = datetime(2026, 11, 1, tzinfo=UTC)
    base = {"slug": "a", "created_at": "2026-10-01T00:00:00Z", "recall_count": 3, "dura_mean": None}
    assert snapshot.score({**base, "type": "warning"}, now) > snapshot.score({**base, "type": "fact"}, now)
    assert snapshot.score({**base, "type": "warning"}, now) > snapshot.score(
        {**base, "type": "preference"}, now
    )

    app = Memoryd()
    app.record("fact", "The build uses Bazel", "Targets live in BUILD files.", scope_path=project)
    app.record("warning", "Bazel cache poisons on NFS", "Keep the disk cache local.", scope_path=project)
    text = _snap(isolated_home, project).read_text(encoding="utf-8")
    assert text.index("Bazel cache poisons") < text.index("The build uses Bazel")
    small = inject.fit(text, tokencount.count(text) - 5)
    assert "Bazel cache poisons" in small and "The build uses Bazel" not in small


def test_ranking_keeps_warnings_when_constraints_overflow(project: Path, isolated_home: Path) -> None:
    """More constraints than the snapshot holds (MAX_CONSTRAINTS): the one warning
    recorded last still makes it, a preference is left out."""
    app = Memoryd()
    for i in range(snapshot.MAX_CONSTRAINTS):
        app.record("preference", f"Style rule {i:02d}", f"Rule number {i}.", scope_path=project)
    app.record("warning", "Do not force-push main", "CI deploys from main.", scope_path=project)
    constraints = _section(_snap(isolated_home, project).read_text(encoding="utf-8"), "## Constraints")
    assert len(constraints) == snapshot.MAX_CONSTRAINTS
    assert constraints[0] == _entry("warning", "Do not force-push main: CI deploys from main.")


def test_forget_removes_a_memory_from_the_snapshot(cli: Cli, project: Path, isolated_home: Path) -> None:
    slugs_by_title = _record_all(cli, project)
    snap = _snap(isolated_home, project)
    assert "Never run migrations on Friday" in snap.read_text(encoding="utf-8")
    out = cli("forget", slugs_by_title["Never run migrations on Friday"])
    assert out.returncode == 0, out.stderr
    text = snap.read_text(encoding="utf-8")
    assert "Never run migrations on Friday" not in text
    assert "Orders move to PostgreSQL" in text
    assert "from 4 long-term memories" in text
    injected = cli("inject", cwd=project)
    assert injected.returncode == 0 and "Never run migrations" not in injected.stdout


def test_forgetting_everything_leaves_the_empty_snapshot(
    cli: Cli, project: Path, isolated_home: Path
) -> None:
    """No visible memory left: snapshot.md is the empty snapshot (written, so the hook does
    not render again at every start), and inject prints it."""
    out = cli("record", "--type", "fact", "--title", "Lonely fact", "--body", "x", "--json", cwd=project)
    cli("forget", json.loads(out.stdout)["slug"])
    assert _snap(isolated_home, project).read_text(encoding="utf-8") == inject.empty_snapshot(
        str(isolated_home)
    )
    injected = cli("inject", cwd=project)
    assert injected.returncode == 0
    assert injected.stdout == inject.empty_snapshot(str(isolated_home))


def test_a_write_without_refresh_leaves_a_marker_that_inject_honours(
    cli, project: Path, isolated_home: Path
) -> None:
    """A writer that goes straight to the Store (no facade, no refresh) still leaves the
    stale marker, so the next inject renders again and shows the new content."""
    app = Memoryd()
    doc, _ = app.record("fact", "Deploys go through Heroku", "git push heroku main.", scope_path=project)
    snap = _snap(isolated_home, project)
    marker = snap.parent / inject.STALE
    assert "Heroku" in snap.read_text(encoding="utf-8") and not marker.exists()

    store = Store.open(paths.layout())
    changed, _ = store.read(doc.meta.slug)
    changed.meta.title = "Deploys go through Fly.io"
    changed.body = "fly deploy from the repo root.\n"
    store.save(changed, event="update", actor="test")
    now = datetime.now(UTC)
    title = "Staging resets nightly"
    extra = Frontmatter(
        title=title,
        slug=slugs.for_title(title, now),
        type=MemoryType.warning,
        scope_hash=resolve(project).hash,
        source="manual",
        created_at=now,
        updated_at=now,
    )
    store.save(Document(meta=extra, body="Do not keep data there.\n"), event="record", actor="test")
    store.engine.dispose()
    assert marker.exists()
    assert "Heroku" in snap.read_text(encoding="utf-8"), "nobody rendered yet"

    out = cli("inject", cwd=project)
    assert out.returncode == 0, out.stderr
    assert "Deploys go through Fly.io: fly deploy from the repo root." in out.stdout
    assert _entry("warning", "Staging resets nightly: Do not keep data there.") in out.stdout
    assert "Heroku" not in out.stdout
    assert not marker.exists() and "Fly.io" in snap.read_text(encoding="utf-8")


def test_store_changed_alone_forces_a_new_render(cli: Cli, project: Path, isolated_home: Path) -> None:
    """inject trusts the file while no marker says otherwise, and stops trusting it as
    soon as Store.changed marks the scope."""
    Memoryd().record("fact", "Logs go to Loki", "Grafana reads them.", scope_path=project)
    snap = _snap(isolated_home, project)
    snap.write_text(snap.read_text(encoding="utf-8").replace("Loki", "TAMPERED"), encoding="utf-8")
    first = cli("inject", cwd=project)
    assert "TAMPERED" in first.stdout, "a fresh file is printed as it is, without rendering"

    store = Store.open(paths.layout())
    store.changed(resolve(project).hash)
    store.engine.dispose()
    again = cli("inject", cwd=project)
    assert again.returncode == 0, again.stderr
    assert "TAMPERED" not in again.stdout and "Logs go to Loki" in again.stdout


def test_a_newer_identity_profile_shows_up_in_inject(cli: Cli, project: Path, isolated_home: Path) -> None:
    """The identity profile changes outside any scope: a profile newer than the snapshot
    makes inject render again, with the profile's summary under About the user."""
    Memoryd().record("decision", "Monorepo with Nx", "One repo for web and api.", scope_path=project)
    snap = _snap(isolated_home, project)
    past = time.time() - 120
    os.utime(snap, (past, past))
    profile = isolated_home / "profile"
    profile.mkdir(exist_ok=True)
    (profile / "identity.md").write_text(
        "---\ntitle: Identity\n---\n## Summary\nSenior backend engineer, answers in German.\n",
        encoding="utf-8",
    )
    out = cli("inject", cwd=project)
    assert out.returncode == 0, out.stderr
    assert _section(out.stdout, "## About the user") == ["- Senior backend engineer, answers in German."]
    assert "Monorepo with Nx" in out.stdout
    assert "Senior backend engineer" in snap.read_text(encoding="utf-8")


def test_a_removed_identity_profile_leaves_inject(cli: Cli, project: Path, isolated_home: Path) -> None:
    """The converse: once the user deletes the profile, the next start-up context no
    longer tells the agent who they are."""
    profile = isolated_home / "profile"
    profile.mkdir(parents=True)
    identity = profile / "identity.md"
    identity.write_text("## Summary\nWorks night shifts at the hospital.\n", encoding="utf-8")
    Memoryd().record("fact", "Pager rota in PagerDuty", "Escalation after 5 minutes.", scope_path=project)
    first = cli("inject", cwd=project)
    assert "Works night shifts" in first.stdout

    identity.unlink()
    out = cli("inject", cwd=project)
    assert out.returncode == 0, out.stderr
    assert "Pager rota in PagerDuty" in out.stdout
    assert "Works night shifts" not in out.stdout and "## About the user" not in out.stdout


def _population(scope_hash: str, n_long: int, n_sessions: int, *, wide: bool) -> list[tuple[Document, None]]:
    """Long titles and bodies in English, Chinese and paths, which cost many tokens per
    character (the worst case for the token budget), or, `wide`, long runs that cost few
    tokens per character (the worst case for the character cap)."""
    kinds = [
        MemoryType.warning,
        MemoryType.decision,
        MemoryType.preference,
        MemoryType.fact,
        MemoryType.playbook,
    ]
    base = datetime.now(UTC) - timedelta(days=40)
    docs = []
    for i in range(n_long + n_sessions):
        kind = MemoryType.session if i >= n_long else kinds[i % len(kinds)]
        when = base + timedelta(minutes=i)
        title = (
            f"Rule {i}: 订单表迁移到 PostgreSQL 之前先备份 /srv/app/db/migrations/{i:04d}_orders.sql "
            f"and check the 索引 on orders.customer_id before 部署 {i}"
        )
        if wide:
            title = f"Rule {i} " + "=" * 700
        body = (
            f"Because 上次 the migration {i} locked /var/lib/postgresql/16/main for 7 minutes, "
            "run `pg_dump --format=custom --jobs=4` first, 然后 verify 校验和 sha256 "
            f"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 step {i}.\n"
        )
        meta = Frontmatter(
            title=title,
            slug=slugs.for_title(f"bulk {i}", when) + f"-{i}",
            type=kind,
            scope_hash=scope_hash,
            source="claude-code" if kind is MemoryType.session else "manual",
            created_at=when,
            updated_at=when,
            ttl_days=default_ttl(kind),
            recall_count=i % 7,
            session_id=f"sess-{i}" if kind is MemoryType.session else None,
        )
        docs.append((Document(meta=meta, body=body), None))
    return docs


@pytest.mark.parametrize("wide", [False, True], ids=["token-heavy", "char-heavy"])
def test_a_big_scope_stays_within_the_budget(
    cli: Cli, project: Path, isolated_home: Path, wide: bool
) -> None:
    """300 long-term memories and 20 sessions: the snapshot's real token count stays at or
    under 2000 and its length under the character cap; `--budget 500` is honoured too."""
    store = Memoryd().store
    docs = _population(resolve(project).hash, 300, 20, wide=wide)
    assert store.save_many(docs, actor="test") == 320
    if not wide:
        full = snapshot.render(store, resolve(project).hash, budget=10**6)
        assert full is not None and tokencount.count(full) > 2000, "the budget must bite"
    store.engine.dispose()
    snap = _snap(isolated_home, project)
    assert (snap.parent / inject.STALE).exists()

    out = cli("inject", cwd=project)
    assert out.returncode == 0, out.stderr
    text = snap.read_text(encoding="utf-8")
    assert out.stdout == text
    assert tokencount.count(text) <= 2000, tokencount.count(text)
    assert len(text) <= 9500
    assert "from 300 long-term memories and 20 sessions" in text
    if wide:  # 27 lines of 900 characters: only the character cap can have cut them
        shown = [ln for ln in text.splitlines() if ln.startswith("- ")]
        assert 0 < len(shown) < snapshot.MAX_CONSTRAINTS + snapshot.MAX_KEY + snapshot.MAX_SESSIONS
    assert _section(text, "## Constraints"), "constraints are what is cut last"
    assert text.rstrip("\n").endswith(inject.MORE)

    small = cli("inject", "--budget", "500", cwd=project)
    assert small.returncode == 0, small.stderr
    assert tokencount.count(small.stdout) <= 500, tokencount.count(small.stdout)
    assert inject.MORE in small.stdout
    assert _section(small.stdout, "## Constraints")

    hook = cli("inject", "--format", "claude-hook", stdin=json.dumps({"cwd": str(project)}))
    ctx = json.loads(hook.stdout)["hookSpecificOutput"]["additionalContext"]
    assert ctx == text and len(hook.stdout) < 10_000


def test_sensitive_scope_snapshot_is_sealed_and_needs_a_grant(
    cli, secret_service: str, project: Path, isolated_home: Path
) -> None:
    """After mark-sensitive: only snapshot.md.enc on disk, inject without a grant prints a
    content-free note (exit 0, the hook must not fail), and with a live grant the memories."""
    app = Memoryd()
    app.record("warning", f"Vault rule {CANARY}", f"Rotate the {CANARY} key monthly.", scope_path=project)
    app.record("fact", "Ledger export", f"Exports land in {CANARY}/exports.", scope_path=project)
    snap = _snap(isolated_home, project)
    assert CANARY in snap.read_text(encoding="utf-8")

    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    sealed = snap.with_name(inject.SNAPSHOT_ENC)
    assert not snap.exists(), "no plaintext snapshot may stay behind"
    assert sealed.is_file()
    assert CANARY.lower().encode() not in sealed.read_bytes().lower()

    h = resolve(project).hash
    for args in ((), ("--format", "claude-hook")):
        out = cli("inject", *args, stdin=json.dumps({"cwd": str(project)}) if args else None, cwd=project)
        assert out.returncode == 0, out.stderr
        assert CANARY.lower() not in out.stdout.lower()
        assert "Vault rule" not in out.stdout and "Ledger export" not in out.stdout
        assert h in out.stdout and "memoryd grant" in out.stdout

    grant_tty(project, "session")
    out = cli("inject", cwd=project)
    assert out.returncode == 0, out.stderr
    assert _entry("warning", f"Vault rule {CANARY}: Rotate the {CANARY} key monthly.") in out.stdout
    assert "Ledger export" in out.stdout
    assert not snap.exists()
    assert leaks(isolated_home) == [], "the canary is on disk in plaintext"
