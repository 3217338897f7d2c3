"""Hook mode: `memoryd capture` and `memoryd inject --format claude-hook` never change what
the agent does. Whatever the input or the machine's state, they exit 0, say one line on
stderr, log it in logs/hooks.log, and leave the store as it was (docs/agents/*.md, "Exit
codes and output")."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from memoryd import startup
from memoryd.app import Memoryd
from memoryd.testing import stop_payload
from tests.conftest import run_cli

DEEP_ARRAY = b"[" * 100_000
DEEP_OBJECT = b'{"a":' * 100_000
BINARY = bytes(range(256)) * 4 + b"\xff\xfe\xc3\x28\xed\xa0\x80"

BAD_PAYLOADS = [
    pytest.param(b"", "empty stdin", id="empty"),
    pytest.param(b"   \n", "empty stdin", id="blank"),
    pytest.param(b"{not json", "not JSON", id="junk"),
    pytest.param(BINARY, "not JSON", id="binary"),
    pytest.param(b"[1, 2]", "JSON object", id="array"),
    pytest.param(b'{"transcript_path": "/x"}', "session_id", id="no-session-id"),
    pytest.param(b'{"session_id": 5}', "session_id", id="session-id-not-string"),
    pytest.param(b'{"session_id": "a", "cwd": 7}', "cwd must be a string", id="cwd-not-string"),
    pytest.param(DEEP_ARRAY, "nested too deeply", id="deep-array"),
    pytest.param(DEEP_OBJECT, "nested too deeply", id="deep-object"),
]


def one_hook_line(res: subprocess.CompletedProcess[str], *words: str) -> str:
    """Exit 0, nothing on stdout, one `memoryd: ` line on stderr holding `words`."""
    assert res.returncode == 0, (res.returncode, res.stderr)
    assert res.stdout == "", res.stdout
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("memoryd: "), res.stderr
    assert "Traceback" not in res.stderr
    for w in words:
        assert w in res.stderr, (w, res.stderr)
    return res.stderr


def spooled(home: Path) -> list[Path]:
    spool = home / "spool"
    return (
        sorted(p for p in spool.rglob("*") if p.is_file() and not p.name.endswith(".lock"))
        if spool.exists()
        else []
    )


def hooks_log(home: Path) -> str:
    path = home / "logs" / "hooks.log"
    return path.read_text(encoding="utf-8") if path.exists() else ""


@pytest.mark.parametrize("source", ["claude-code", "codex", "openclaw", "manual"])
@pytest.mark.parametrize(("stdin", "word"), BAD_PAYLOADS)
def test_bad_capture_payload_exits_0_with_one_logged_line(
    isolated_home: Path, project: Path, source: str, stdin: bytes, word: str
) -> None:
    res = run_cli("capture", f"--source={source}", stdin=stdin, cwd=project)
    line = one_hook_line(res, word)
    assert spooled(isolated_home) == []
    log = hooks_log(isolated_home)
    assert log.count("\n") == 1 and "capture" in log and word in log, log
    assert line.removeprefix("memoryd: ").strip() in log


@pytest.mark.parametrize(
    ("payload", "word"),
    [
        pytest.param("", "empty", id="empty"),
        pytest.param("{junk", "not JSON", id="junk"),
        pytest.param("[" * 100_000, "nested too deeply", id="deep"),
    ],
)
def test_codex_notify_bad_last_argument_exits_0(
    isolated_home: Path, project: Path, payload: str, word: str
) -> None:
    """Codex notify: the payload is the last argument, stdin and stderr are /dev/null."""
    res = run_cli("capture", "--source=codex", payload, cwd=project)
    one_hook_line(res, word)
    assert spooled(isolated_home) == []


def test_codex_notify_argument_of_invalid_utf8_exits_0(isolated_home: Path, project: Path) -> None:
    argv = [sys.executable, "-m", "memoryd.cli.main", "capture", "--source=codex", os.fsdecode(b"\xff\xfe{")]
    proc = subprocess.run(argv, capture_output=True, cwd=project, timeout=60, check=False)
    res = subprocess.CompletedProcess(
        argv, proc.returncode, proc.stdout.decode(), proc.stderr.decode("utf-8", "replace")
    )
    one_hook_line(res, "not JSON")
    assert spooled(isolated_home) == []


def test_unknown_source_exits_0_in_hook_mode(isolated_home: Path) -> None:
    one_hook_line(run_cli("capture", "--source=vim", stdin=b'{"session_id": "x"}'), "vim")
    assert spooled(isolated_home) == []


def test_a_multiline_message_stays_one_line(isolated_home: Path, project: Path) -> None:
    """A session id or path with newlines and terminal escapes cannot make the stderr line
    two lines, nor colour the terminal it lands on."""
    fifo = project / "pipe\n\x1b[31mred"
    os.mkfifo(fifo)
    res = run_cli(
        "capture",
        "--source=claude-code",
        stdin=stop_payload("s-1", fifo, project),
        cwd=project,
        env={"MEMORYD_NO_WORKER": "1"},
    )
    assert res.returncode == 0
    assert res.stderr.count("\n") == 1 and "\x1b" not in res.stderr, res.stderr


def test_transcript_path_naming_a_fifo_is_not_called_missing(isolated_home: Path, project: Path) -> None:
    """An existing FIFO is there, just not a file to read: say so, not "not found"."""
    fifo = project / "transcript.fifo"
    os.mkfifo(fifo)
    res = run_cli(
        "capture",
        "--source=claude-code",
        stdin=stop_payload("fifo-1", fifo, project, last_assistant_message="Done."),
        cwd=project,
        env={"MEMORYD_NO_WORKER": "1"},  # the worker's side of FIFOs is not this test's
    )
    assert res.returncode == 0, res.stderr
    assert "not found" not in res.stderr
    assert "not a regular file" in res.stderr and "skipped" in res.stderr
    assert res.stderr.count("\n") == 1
    assert len(spooled(isolated_home)) == 1  # the payload's own content is still kept


def test_stop_without_transcript_or_content_makes_no_empty_memory(
    cli, isolated_home: Path, project: Path
) -> None:
    """No "(no user prompt captured) / (no answer captured)" memory: the payload is
    skipped with its reason, once, not retried on every drain."""
    res = cli(
        "capture", "--source=claude-code", stdin=stop_payload("gone-2", project / "nope.jsonl", project)
    )
    assert res.returncode == 0 and "transcript not found" in res.stderr
    assert cli("worker", "--wait").returncode == 0
    assert json.loads(cli("list", "--all-scopes", "--json").stdout) == []
    assert not list((isolated_home / "spool").glob("*.json")), "left in the queue to be retried"
    reasons = list((isolated_home / "spool" / "rejected").glob("*.reason.txt"))
    assert len(reasons) == 1 and "nothing to capture" in reasons[0].read_text()
    assert cli("worker", "--wait").returncode == 0
    assert json.loads(cli("list", "--all-scopes", "--json").stdout) == []


def test_codex_notify_without_rollout_but_with_messages_is_still_captured(cli, project: Path) -> None:
    payload = json.dumps(
        {
            "type": "agent-turn-complete",
            "thread-id": "th-none",
            "cwd": str(project),
            "input-messages": ["fix the flaky test"],
        }
    )
    assert cli("capture", "--source=codex", payload).returncode == 0
    assert cli("worker", "--wait").returncode == 0
    mems = json.loads(cli("list", "--all-scopes", "--json").stdout)
    assert [m["title"] for m in mems] == ["fix the flaky test"]


# -- a full disk --------------------------------------------------------------------------


def _store_with_one_memory(home: Path, project: Path) -> str:
    res = run_cli(
        "record",
        "--type",
        "fact",
        "--title",
        "Deploys go through staging",
        "--body",
        "Always.",
        "--scope",
        str(project),
        env={"MEMORYD_HOME": str(home)},
    )
    assert res.returncode == 0, res.stderr
    return res.stdout


def _memories(home: Path) -> list[dict]:
    res = run_cli("list", "--all-scopes", "--json", env={"MEMORYD_HOME": str(home)})
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def _clean(home: Path) -> None:
    env = {"MEMORYD_HOME": str(home)}
    doctor = run_cli("doctor", env=env)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    verify = run_cli("audit", "verify", env=env)
    assert verify.returncode == 0, verify.stdout + verify.stderr


def _no_partial_files(home: Path) -> None:
    assert [p for p in home.rglob("*.part")] == []
    assert list((home / "spool").glob("*.json")) == []


@pytest.fixture
def tiny_tmpfs(tmp_path: Path):
    """A 4 MB tmpfs, when this test runs as root with mount(8) allowed; else skipped."""
    mnt = tmp_path / "tmpfs"
    mnt.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    res = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", str(mnt)],
        capture_output=True,
        check=False,
    )
    if res.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {res.stderr.decode(errors='replace').strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_capture_on_a_full_disk_exits_0_and_leaves_the_store(tiny_tmpfs: Path, project: Path) -> None:
    home = tiny_tmpfs / "data"
    _store_with_one_memory(home, project)
    before = _memories(home)
    filler = tiny_tmpfs / "filler"
    with open(filler, "wb", buffering=0) as fh:  # every free block, down to the last one
        for size in (65536, 1):
            try:
                while fh.write(b"\0" * size):
                    pass
            except OSError:
                pass
    payload = stop_payload("full-1", project / "t.jsonl", project, last_assistant_message="x" * 200_000)
    res = run_cli(
        "capture", "--source=claude-code", stdin=payload, cwd=project, env={"MEMORYD_HOME": str(home)}
    )
    one_hook_line(res, "No space left on device")
    _no_partial_files(home)
    filler.unlink()
    assert _memories(home) == before
    _clean(home)


def _fsize_limit() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a killed process
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))


def test_capture_over_the_file_size_limit_exits_0_and_leaves_the_store(
    isolated_home: Path, project: Path
) -> None:
    """The same failure where a tmpfs cannot be mounted: every write past 1 KB fails."""
    _store_with_one_memory(isolated_home, project)
    before = _memories(isolated_home)
    payload = stop_payload("fsize-1", project / "t.jsonl", project, last_assistant_message="y" * 50_000)
    proc = subprocess.run(
        [sys.executable, "-m", "memoryd.cli.main", "capture", "--source=claude-code"],
        input=payload,
        capture_output=True,
        cwd=project,
        preexec_fn=_fsize_limit,
        timeout=60,
        check=False,
    )
    res = subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode())
    one_hook_line(res, "File too large")
    _no_partial_files(isolated_home)
    assert _memories(isolated_home) == before
    _clean(isolated_home)


def test_unwritable_log_does_not_fail_the_hook(isolated_home: Path, project: Path) -> None:
    isolated_home.mkdir(parents=True, exist_ok=True)
    (isolated_home / "logs").write_text("a file where the log folder should be")
    one_hook_line(run_cli("capture", "--source=claude-code", stdin=b"{junk", cwd=project), "not JSON")


# -- inject at SessionStart ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("stdin", "word"),
    [
        pytest.param(b"{not json", "JSON", id="junk"),
        pytest.param(BINARY, "JSON", id="binary"),
        pytest.param(DEEP_ARRAY, "nested too deeply", id="deep-array"),
        pytest.param(DEEP_OBJECT, "nested too deeply", id="deep-object"),
    ],
)
def test_inject_hook_bad_stdin_exits_0_prints_nothing(
    isolated_home: Path, project: Path, stdin: bytes, word: str
) -> None:
    res = run_cli("inject", "--format", "claude-hook", stdin=stdin, cwd=project)
    one_hook_line(res, word)
    assert "inject" in hooks_log(isolated_home)


def test_inject_hook_failure_exits_0_prints_nothing(
    isolated_home: Path, tmp_path: Path, project: Path
) -> None:
    """The session's directory is gone (the payload names it): no context, no error code."""
    payload = json.dumps({"cwd": str(tmp_path / "deleted-project"), "hook_event_name": "SessionStart"})
    res = run_cli("inject", "--format", "claude-hook", stdin=payload, cwd=project)
    one_hook_line(res, "deleted-project")
    assert "inject" in hooks_log(isolated_home)


def test_plain_inject_outside_hook_mode_keeps_its_exit_codes(project: Path) -> None:
    res = run_cli("inject", "--cwd", "/nonexistent-dir-for-memoryd", cwd=project)
    assert res.returncode == 2 and "/nonexistent" in res.stderr


HOSTILE_TITLES = [
    "\x00nul\x1b[31mred\x07",
    "lone \ud800 high and \udfff low",
    "DEL\x7f and C1\x85\x9b",
    "ok 中文 ✓",
]


@pytest.mark.parametrize("title", HOSTILE_TITLES)
def test_hook_json_is_strict_utf8_and_within_the_cap(title: str) -> None:
    out = startup.hook_json(f"# Memory\n\n- [fact] {title}: body\n" * 2000)
    raw = out.encode("utf-8")  # no lone surrogate can reach the host
    data = json.loads(raw.decode("utf-8", "strict"), strict=True)
    ctx = data["hookSpecificOutput"]["additionalContext"]
    assert data["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert len(ctx) < 10_000
    assert not any(ord(c) < 0x20 and c not in "\n\t" for c in ctx)
    assert not any(0x7F <= ord(c) <= 0x9F for c in ctx)
    assert not any(0xD800 <= ord(c) <= 0xDFFF for c in ctx)


def test_inject_hook_with_a_hostile_title_prints_strict_json(isolated_home: Path, project: Path) -> None:
    Memoryd().record("fact", "\x00nul\x1b[31mred title", "body \x1b]0;owned\x07 text", scope_path=project)
    proc = subprocess.run(
        [sys.executable, "-m", "memoryd.cli.main", "inject", "--format", "claude-hook"],
        input=json.dumps({"cwd": str(project), "hook_event_name": "SessionStart"}).encode(),
        capture_output=True,
        cwd=project,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode("utf-8", "strict")
    data = json.loads(text, strict=True)
    ctx = data["hookSpecificOutput"]["additionalContext"]
    assert "red title" in ctx and "\x1b" not in ctx and "\x00" not in ctx
    assert len(ctx) < 10_000
