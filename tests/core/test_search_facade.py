"""The search facade's own shortcuts (issue 20, warm search at 100k memories) keep what
search promised: a memory file with Windows line ends keeps its snippet, an identifier
held only in a session's turns still counts as an exact match, and a scope marked
sensitive by another process is withheld from the very next search of a facade that
searched it before."""

from __future__ import annotations

from pathlib import Path

import pytest

from memoryd import fusion, search
from memoryd.app import Memoryd
from memoryd.scope import resolve
from memoryd.sensitive import state
from memoryd.testing import claude_exchange, stop_payload, write_jsonl

from .sensitive.support import CANARY, PASSPHRASE


def test_a_memory_file_with_windows_line_ends_keeps_its_snippet(project: Path) -> None:
    """An editor on Windows may save a memory with CRLF: the body after the frontmatter is
    still found (read as text mode reads it), not an empty snippet."""
    app = Memoryd()
    doc, _ = app.record("fact", "Release train", "Ship the mobile release on Tuesdays.", scope_path=project)
    path = app.store.files.absolute(app.store.row(doc.meta.slug)["body_path"])
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    h = resolve(project).hash
    (hit,) = app.search("mobile release", scopes=[h], count_recall=False, mode="keyword")
    assert hit.slug == doc.meta.slug
    assert hit.snippet == "Ship the mobile release on Tuesdays."


def _session(cli, project: Path, tmp_path: Path, prompt: str, answer: str, tool_output: str) -> str:
    """A captured session whose tool output is in its turns (level 2), not in its body."""
    lines = claude_exchange(
        prompt,
        answer,
        tool="Bash",
        tool_input={"command": "make deploy"},
        tool_output=tool_output,
        session_id="s1",
        cwd=str(project),
    )
    transcript = write_jsonl(tmp_path / "s1.jsonl", lines)
    out = cli(
        "capture",
        "--source=claude-code",
        stdin=stop_payload("s1", transcript, project),
        cwd=project,
        env={"MEMORYD_NO_WORKER": "1"},
    )
    assert out.returncode == 0, out.stderr
    app = Memoryd()
    app.drain_spool(wait=True)
    slug = app.store.slug_for_session("claude-code", "s1")
    assert slug
    return slug


def test_an_identifier_held_only_in_a_sessions_turns_is_an_exact_match(
    cli, project: Path, tmp_path: Path
) -> None:
    """A session holds the error code in a turn (a tool's output), not in its title or
    body: hybrid search still ranks it as holding the identifier."""
    code = "ERR_QUOKKA_LOCKFILE"
    slug = _session(cli, project, tmp_path, "the deploy broke again", "I pinned the runner.", f"{code} at 3")
    app = Memoryd()
    app.record("fact", "Lockfile policy", "Commit the lockfile, never edit it by hand.", scope_path=project)
    row = app.store.row(slug)
    assert code not in row["title"] and code not in app.get(slug).doc.body  # the premise
    assert code in app.store.traces_text(slug)
    found = app.search(f"{code} lockfile", scopes=[row["scope_hash"]], count_recall=False, mode="hybrid")
    assert found[0].slug == slug, [r.slug for r in found]
    assert found[0].score >= fusion.EXACT_STEP


def test_exact_counts_identifiers_across_title_body_and_turns(cli, project: Path, tmp_path: Path) -> None:
    """One identifier in the body and another only in the turns: both count, as they did
    when the three texts were joined and searched at once; the body read is kept for the
    snippet."""
    slug = _session(
        cli, project, tmp_path, "how do we run deploy_api.sh?", "Run it twice.", "ERR_GATEWAY_TIMEOUT"
    )
    app = Memoryd()
    row = app.store.row(slug)
    body = app.get(slug).doc.body
    idents = ["deploy_api.sh", "ERR_GATEWAY_TIMEOUT", "JIRA-999"]
    whole = "\n".join((row["title"], body, app.store.traces_text(slug)))
    assert "deploy_api.sh" in body and "ERR_GATEWAY_TIMEOUT" not in body  # the premise
    exact, bodies = search._exact(app.store, idents, {slug: row})
    assert exact == {slug: fusion.verbatim(idents, whole)} == {slug: 2}
    assert bodies == {slug: body}
    # the turns of many memories in one statement, as one by one ("" without turns)
    doc, _ = app.record("fact", "No turns", "Nothing said here.", scope_path=project)
    both = [doc.meta.slug, slug]
    assert app.store.traces_texts(both) == {s: app.store.traces_text(s) for s in both}
    assert app.store.traces_texts(both)[doc.meta.slug] == "" and app.store.traces_texts([]) == {}


def test_a_scope_marked_sensitive_elsewhere_is_withheld_from_the_next_search(project: Path) -> None:
    """Nothing about sensitive scopes is cached by a live facade (the MCP server, the tray):
    once another process marks the scope, the next search withholds it."""
    live = Memoryd()
    live.record("fact", "Salary note", f"{CANARY} is the salary code.", scope_path=project)
    h = resolve(project).hash
    assert [r.title for r in live.search(CANARY, scopes=[h], count_recall=False, mode="keyword")] == [
        "Salary note"
    ]
    assert live.withheld == []

    Memoryd().mark_sensitive(project, passphrase=PASSPHRASE)  # another facade: another process

    assert live.search(CANARY, scopes=[h], count_recall=False, mode="keyword") == []
    assert [(w[0], w[2]) for w in live.withheld] == [(h, 1)]


@pytest.mark.parametrize("name", ["", ".", "..", "abc/def", "ABCDEF012345", "not-a-hash"])
def test_is_sensitive_agrees_with_the_scan_for_any_name(project: Path, name: str) -> None:
    """Whatever the name, the answer is the scan's: a settings file where joining a name that
    is not a folder would land (the scopes folder itself, the home, a nested folder) is no
    sensitive scope."""
    app = Memoryd()
    app.record("fact", "Vault", f"{CANARY} vault", scope_path=project)
    app.mark_sensitive(project, passphrase=PASSPHRASE)
    h = resolve(project).hash
    assert state.is_sensitive(app.layout, h) and h in state.sensitive_hashes(app.layout)
    decoy = app.layout.scopes / name / state.SETTINGS
    decoy.parent.mkdir(parents=True, exist_ok=True)
    decoy.write_bytes(state.settings_path(app.layout, h).read_bytes())
    scanned = name in state.sensitive_hashes(app.layout)  # a plain folder name is one
    assert scanned == (name in ("ABCDEF012345", "not-a-hash"))
    assert state.is_sensitive(app.layout, name) == scanned
    unmarked = "0123456789ab"
    app.layout.scope_dir(unmarked).mkdir(parents=True)  # a scope's folder, not marked
    assert not state.is_sensitive(app.layout, unmarked)


def test_a_scope_marked_sensitive_elsewhere_is_gated_on_the_next_get(project: Path) -> None:
    """The gate itself sees a mark made by another process after this facade last looked:
    `get` (and every other reader through the gate) asks for a grant and audits the
    refusal; it does not read the file as if the scope were open."""
    from memoryd.errors import AuthorizationRequired

    live = Memoryd()
    doc, _ = live.record("fact", "Salary note", f"{CANARY} is the salary code.", scope_path=project)
    h = resolve(project).hash
    assert live.get(doc.meta.slug, count_recall=False).doc.meta.title == "Salary note"

    other = Memoryd()  # another facade: another process
    other.mark_sensitive(project, passphrase=PASSPHRASE)
    (row,) = other.list(scopes=[h])  # marking renames the memory (no title words in its slug)

    with pytest.raises(AuthorizationRequired):
        live.get(row["slug"], count_recall=False)
    denied = [e for e in live.store.audit.events() if e.event_type == "access_denied"]
    assert denied and denied[-1].scope_hash == h


def test_search_terms_are_what_keyword_search_matches(project: Path) -> None:
    """What the tray highlights: each term a keyword search found a memory by occurs in
    it, case aside; stopwords and function characters are not terms; Han text as bigrams."""
    app = Memoryd()
    body = "The Postgres dev database listens on 5433."
    doc, _ = app.record("fact", "开发数据库端口", body, scope_path=project)
    terms = Memoryd.search_terms("Where is the POSTGRES 数据库 port?")
    assert terms == ["postgres", "数据", "据库", "port"]
    assert Memoryd.search_terms("the of 的") == []
    h = resolve(project).hash
    (hit,) = app.search("POSTGRES 数据库", scopes=[h], count_recall=False, mode="keyword")
    assert hit.slug == doc.meta.slug
    text = f"{doc.meta.title} {doc.body}".lower()
    assert all(term in text for term in Memoryd.search_terms("POSTGRES 数据库"))
