from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from memoryd.scope import resolve


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
            "PATH": "/usr/bin:/bin:/usr/local/bin",
            "HOME": str(cwd),
        },
    )


def test_plain_directory_hashes_itself(project: Path):
    s = resolve(project)
    assert s.kind == "dir" and s.root == project.resolve()
    assert s.hash == hashlib.sha256(str(project.resolve()).encode()).hexdigest()[:12]


def test_git_subdir_symlink_and_worktree_share_the_main_scope(tmp_path: Path):
    repo = tmp_path / "repo"
    (repo / "src" / "deep").mkdir(parents=True)
    _git("init", "-q", cwd=repo)
    (repo / "f").write_text("x")
    _git("add", "f", cwd=repo)
    _git("commit", "-qm", "init", cwd=repo)
    main = resolve(repo)
    assert main.kind == "git" and main.root == repo.resolve()
    assert resolve(repo / "src" / "deep").hash == main.hash
    link = tmp_path / "link"
    link.symlink_to(repo / "src")
    assert resolve(link).hash == main.hash
    wt = tmp_path / "wt"
    _git("worktree", "add", "-q", str(wt), cwd=repo)
    assert resolve(wt).hash == main.hash, "a linked worktree must belong to its main repository"
    assert resolve(wt).root == repo.resolve()


def test_scope_cli(cli, project: Path):
    res = cli("scope", str(project), "--json")
    assert res.returncode == 0
    assert res.stdout.count(resolve(project).hash) == 1
    missing = cli("scope", str(project / "missing"))
    assert missing.returncode == 2 and "no such directory" in missing.stderr
