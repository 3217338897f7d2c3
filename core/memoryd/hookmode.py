"""Hook mode: how `memoryd capture` and `memoryd inject --format claude-hook` end.

An agent acts on its hooks' exit codes (Claude Code: exit 2 from a Stop hook makes the
agent carry on, with stderr as its next instruction), so a memory hook must never steer it:
whatever happens, these entry points exit 0, say one line on stderr and append the same
line, timestamped, to the data dir's logs/hooks.log. Neither the stderr write nor the log
write can fail the hook. Standard library only: the hook path imports it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time

from memoryd import envpaths

LOG_NAME = "hooks.log"
MAX_LOG = 1024 * 1024  # then hooks.log moves to hooks.log.1: a broken setup cannot fill the disk
MAX_LINE = 800


def one_line(text: str) -> str:
    """`text` as one printable line: line breaks, terminal escapes and other control
    characters become visible escapes, lone surrogates U+FFFD, long text is cut."""
    out = []
    for ch in text:
        o = ord(ch)
        if o < 0x20 or 0x7F <= o <= 0x9F:
            out.append({"\n": "\\n", "\r": "\\r", "\t": " "}.get(ch, f"\\x{o:02x}"))
        elif 0xD800 <= o <= 0xDFFF:
            out.append("\ufffd")
        else:
            out.append(ch)
    line = "".join(out).strip()
    return line if len(line) <= MAX_LINE else line[: MAX_LINE - 1] + "…"


def describe(exc: BaseException) -> str:
    """What went wrong, in words: memoryd's own errors say it themselves; anything else
    is named by its class (a MemoryError or KeyboardInterrupt has no message)."""
    from memoryd.errors import MemorydError

    if isinstance(exc, MemorydError):
        return str(exc)
    if isinstance(exc, OSError) and exc.strerror:
        where = f": {exc.filename}" if exc.filename else ""
        return f"{exc.__class__.__name__}: {exc.strerror}{where}"
    text = str(exc)
    return f"{exc.__class__.__name__}: {text}" if text else exc.__class__.__name__


def log(command: str, message: str) -> None:
    """Append one timestamped line to logs/hooks.log; any failure is swallowed (a full
    disk, a read-only data dir, a file where the folder should be)."""
    try:
        folder = os.path.join(envpaths.data_home(), "logs")
        envpaths.ensure_dir(folder)
        path = os.path.join(folder, LOG_NAME)
        try:
            if os.stat(path).st_size > MAX_LOG:
                os.replace(path, path + ".1")
        except OSError:
            pass
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        line = f"{stamp} {command} pid={os.getpid()}: {message}\n".encode("utf-8", "replace")
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, envpaths.FILE_MODE)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except BaseException:  # the log is a courtesy; the hook must still exit 0
        pass


def say(command: str, message: str) -> None:
    """The hook's one stderr line (`memoryd: ...`), also logged."""
    line = one_line(message)
    try:
        err = sys.stderr
        if err is not None:
            err.write(f"memoryd: {line}\n")
            err.flush()
    except BaseException:  # stderr closed or a broken pipe: nobody to tell
        pass
    log(command, line)


def fail(command: str, what: str, exc: BaseException) -> int:
    """End a hook that failed: one line, logged, exit code 0."""
    with contextlib.suppress(BaseException):  # e.g. MemoryError again while formatting
        say(command, f"{what}: {describe(exc)}")
    return 0
