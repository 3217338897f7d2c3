"""Scope links (memoryd.scope_links, memoryd.links): one project under two scope hashes
becomes one scope, by `memoryd scope link A B` or by itself when two git clones share an
origin URL; the link travels to other devices with sync."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from memoryd.scope import hash_root
from memoryd.scope_links import normalise_remote
from tests.core.sensitive.support import PASSPHRASE, one_line_error
from tests.core.sync.homes import Clock, Home, make_homes, sync_until_stable


@pytest.mark.parametrize(
    ("url", "want"),
    [
        ("https://github.com/Acme/App.git", "github.com/Acme/App"),
        ("https://github.com/Acme/App", "github.com/Acme/App"),
        ("https://github.com/Acme/App/", "github.com/Acme/App"),
        ("https://github.com/Acme/App.git/", "github.com/Acme/App"),
        ("https://GitHub.COM/Acme/App.git", "github.com/Acme/App"),
        ("https://user:token@github.com/Acme/App.git", "github.com/Acme/App"),
        ("https://github.com:8443/Acme/App", "github.com/Acme/App"),
        ("git@github.com:Acme/App.git", "github.com/Acme/App"),
        ("git@github.com:Acme/App", "github.com/Acme/App"),
        ("git@GITHUB.com:Acme/App/", "github.com/Acme/App"),
        ("github.com:Acme/App.git", "github.com/Acme/App"),
        ("ssh://git@github.com:22/Acme/App.git", "github.com/Acme/App"),
        ("ssh://git@github.com/Acme/App", "github.com/Acme/App"),
        ("ssh://GitHub.com:2222/Acme/App/", "github.com/Acme/App"),
        ("git://example.org/group/sub/repo.git", "example.org/group/sub/repo"),
        ("  https://github.com/Acme/App.git\n", "github.com/Acme/App"),  # as `git config` prints it
        ("", None),
        ("   ", None),
        ("/srv/git/app.git", None),
        ("../app", None),
        ("./app.git", None),
        ("app", None),
        ("~/repos/app", None),
        ("file:///srv/git/app.git", None),
        ("https://github.com", None),
        ("https://github.com/", None),
        ("C:/work/app.git", None),
        ("C:\\work\\app", None),
    ],
)
def test_normalise_remote(url: str, want: str | None):
    assert normalise_remote(url) == want


@pytest.fixture
def two_projects(tmp_path: Path) -> tuple[Path, Path]:
    """Two folders: one project checked out at two paths (the lower hash first)."""
    a, b = tmp_path / "laptop" / "app", tmp_path / "desktop" / "app"
    for p in (a, b):
        p.mkdir(parents=True)
    return (a, b) if hash_root(a) < hash_root(b) else (b, a)


def _home(tmp_path: Path, monkeypatch, name: str = "A") -> Home:
    (home,) = make_homes(tmp_path, monkeypatch, name)
    return home


def _scope_dirs(home: Home, slug: str) -> list[str]:
    return [p.parts[-3] for p in home.path.glob(f"scopes/*/*/{slug}.md")]


def test_link_moves_memories_under_the_smaller_hash(tmp_path: Path, monkeypatch, two_projects):
    low_p, high_p = two_projects
    low, high = hash_root(low_p), hash_root(high_p)
    home = _home(tmp_path, monkeypatch)
    m_low = home.app().record("fact", "Build tool", "Build with vite.", scope_path=low_p)[0].meta.slug
    m_high = home.app().record("fact", "Test runner", "Test with vitest.", scope_path=high_p)[0].meta.slug
    assert _scope_dirs(home, m_high) == [high]

    done = home.main_json("scope", "link", high, low)
    assert done == {"scope_hash": low, "aliases": [high], "moved": 1}
    assert _scope_dirs(home, m_low) == [low] and _scope_dirs(home, m_high) == [low]
    assert not list(home.path.glob(f"scopes/{high}/*/*.md"))
    assert home.main_json("scope", str(low_p)) == {
        "scope_hash": low,
        "project": "app",  # the alias's own name went with the link
        "root": str(low_p),
        "kind": "dir",
    }
    shown = home.main_json("scope", str(high_p))
    assert shown["scope_hash"] == low and shown["linked_from"] == high and shown["project"] == "app"
    for path in (low_p, high_p):
        h = home.app().scope(path).hash
        hits = {r.slug for r in home.app().search("vite vitest build test", scopes=[h])}
        assert hits == {m_low, m_high}, path
        listed = home.main_json("list", "--scope", str(path))
        assert {r["slug"] for r in listed} == {m_low, m_high}
    # New memories of either path go under the shared hash; linking again moves nothing.
    m_new = home.app().record("fact", "Linter", "Lint with eslint.", scope_path=high_p)[0].meta.slug
    assert _scope_dirs(home, m_new) == [low]
    assert home.app().scope_link(low, high)["moved"] == 0
    event, _ = home.app().audit_events(event_type="scope_link")
    assert event.scope_hash == low and event.details_obj == {"linked": sorted((low, high)), "moved": 1}
    assert home.app().audit_verify().ok
    code, out, err = home.main("doctor")
    assert code == 0, (out, err)


def test_link_refuses_bad_hashes(tmp_path: Path, monkeypatch, two_projects):
    low, high = (hash_root(p) for p in two_projects)
    home = _home(tmp_path, monkeypatch)
    one_line_error(home.cli("scope", "link", "not-a-hash", low), 2, "not-a-hash", "12 hex digits")
    for args, words in (
        ((low, low), ("itself",)),
        ((low.upper(), high), ("not a scope hash",)),
        ((low + "0", high), ("not a scope hash",)),
        ((low[:-1], high), ("not a scope hash",)),
        ((low,), ("two scope hashes",)),
        ((low, high, high), ("two scope hashes",)),
    ):
        code, out, err = home.main("scope", "link", *args)
        assert code == 2 and out == "" and err.count("\n") == 1, (args, out, err)
        assert all(w in err for w in words), (args, err)
    assert not (home.path / "scope-links.json").exists()


def test_link_refuses_a_sensitive_scope(tmp_path: Path, monkeypatch, two_projects):
    low_p, high_p = two_projects
    low, high = hash_root(low_p), hash_root(high_p)
    home = _home(tmp_path, monkeypatch)
    home.app().record("fact", "Payroll", "Payroll runs monthly.", scope_path=high_p)
    home.app().record("fact", "Open note", "Nothing secret.", scope_path=low_p)
    home.app().mark_sensitive(high_p, passphrase=PASSPHRASE)
    before = sorted(str(p.relative_to(home.path)) for p in home.path.glob("scopes/*/*/*"))
    one_line_error(home.cli("scope", "link", low, high), 2, high, "sensitive")
    code, out, err = home.main("scope", "link", high, low)
    assert (code, out, err.count("\n")) == (2, "", 1) and "sensitive" in err, err
    assert sorted(str(p.relative_to(home.path)) for p in home.path.glob("scopes/*/*/*")) == before
    assert home.app().scope(high_p).hash == high and home.app().scope(low_p).hash == low


def _clone(path: Path, origin: str | None) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    if origin is not None:
        subprocess.run(["git", "-C", str(path), "remote", "add", "origin", origin], check=True)
    return path


def test_git_clones_of_one_repository_link_themselves(tmp_path: Path, monkeypatch):
    home = _home(tmp_path, monkeypatch)
    one = _clone(tmp_path / "src" / "app", "https://github.com/Acme/App.git")
    two = _clone(tmp_path / "work" / "app-copy", "git@GitHub.com:Acme/App")
    other = _clone(tmp_path / "src" / "lib", "https://github.com/Acme/Lib.git")
    local = _clone(tmp_path / "src" / "mirror", str(one))  # a local path is not a remote
    want = min(hash_root(one), hash_root(two))

    m1 = home.app().record("fact", "Router", "Routes live in app/routes.", scope_path=one)[0].meta.slug
    m_other = home.app().record("fact", "Lib API", "The lib exports parse.", scope_path=other)[0].meta.slug
    m_local = home.app().record("fact", "Mirror", "The mirror is read-only.", scope_path=local)[0].meta.slug
    # The second clone is seen for the first time: linked at once, memories moved.
    m2 = home.app().record("fact", "Styles", "Styles live in app/styles.", scope_path=two)[0].meta.slug
    assert home.app().scope(one).hash == home.app().scope(two).hash == want
    assert _scope_dirs(home, m1) == [want] and _scope_dirs(home, m2) == [want]
    assert _scope_dirs(home, m_other) == [hash_root(other)]
    assert _scope_dirs(home, m_local) == [hash_root(local)]
    hits = {r.slug for r in home.app().search("routes styles", scopes=[home.app().scope(two).hash])}
    assert hits == {m1, m2}
    saved = json.loads((home.path / "scope-links.json").read_text())
    assert saved["remotes"][hash_root(one)] == saved["remotes"][hash_root(two)] == "github.com/Acme/App"
    assert saved["remotes"].get(hash_root(local), "") == ""  # checked, no remote: links to nothing
    assert saved["canonical"] == {max(hash_root(one), hash_root(two)): want}


def test_a_link_made_on_one_device_reaches_the_other(tmp_path: Path, monkeypatch, two_projects):
    low_p, high_p = two_projects
    low, high = hash_root(low_p), hash_root(high_p)
    clk = Clock(monkeypatch)
    folder = tmp_path / "Sync"
    folder.mkdir()
    a, b = make_homes(tmp_path, monkeypatch, "A", "B")
    m_a = a.app().record("fact", "Build tool", "Build with vite.", scope_path=low_p)[0].meta.slug
    m_b = b.app().record("fact", "Test runner", "Test with vitest.", scope_path=high_p)[0].meta.slug
    for h in (a, b, a):
        clk.tick()
        h.sync(folder)
    assert b.app().scope(high_p).hash == high
    clk.tick()
    assert a.app().scope_link(low, high)["scope_hash"] == low
    sync_until_stable([a, b], folder, clk)

    assert a.files() == b.files()
    for h in (a, b):
        assert h.app().scope(high_p).hash == low, h.name
        assert _scope_dirs(h, m_a) == [low] and _scope_dirs(h, m_b) == [low], h.name
        for path in (low_p, high_p):
            hits = {r.slug for r in h.app().search("vite vitest", scopes=[h.app().scope(path).hash])}
            assert hits == {m_a, m_b}, (h.name, path)
        assert h.app().sync_conflicts() == []
    # A memory B makes now under the other path joins the shared scope there too.
    m_new = b.app().record("fact", "Linter", "Lint with eslint.", scope_path=high_p)[0].meta.slug
    assert _scope_dirs(b, m_new) == [low]
    assert b.app().audit_events(event_type="scope_link") == []  # the link was made on A
