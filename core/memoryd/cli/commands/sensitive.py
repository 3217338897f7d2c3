"""memoryd mark-sensitive / unmark-sensitive / rotate-key / grant / revoke / grants /
key export / key import.

Granting needs the user: on a terminal it asks for confirmation, and it refuses when
stdin is not a terminal (an agent with a shell must not grant itself access). A
passphrase is read from the terminal, or from stdin when piped, never from argv."""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path
from typing import Any

from memoryd.cli import output
from memoryd.errors import UsageError


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    m = sub.add_parser(
        "mark-sensitive",
        parents=[common],
        help="encrypt a project's memories; reads then need a grant",
        description="Writes .memoryd-sensitive at the scope root, keeps a random key in the OS keyring "
        "(or derives one from a passphrase), encrypts every memory of the scope and removes its words "
        "from the index. Example: memoryd mark-sensitive ~/work/finance",
    )
    m.add_argument("path")
    m.add_argument("--passphrase", action="store_true", help="derive the key from a passphrase (asked for)")
    m.set_defaults(handler=run_mark)

    u = sub.add_parser(
        "unmark-sensitive",
        parents=[common],
        help="decrypt a scope back (needs a grant)",
        description="Example: memoryd unmark-sensitive ~/work/finance",
    )
    u.add_argument("path")
    u.set_defaults(handler=run_unmark)

    r = sub.add_parser(
        "rotate-key",
        parents=[common],
        help="re-encrypt a sensitive scope under a new key (needs a grant)",
        description="Example: memoryd rotate-key ~/work/finance",
    )
    r.add_argument("path")
    r.set_defaults(handler=run_rotate)

    g = sub.add_parser(
        "grant",
        parents=[common],
        help="let reads of a sensitive scope through for a while",
        description="once = 90 s, session = 8 h, task = until `memoryd revoke PATH --task NAME`. Asks for "
        "confirmation on the terminal (or the scope's passphrase). Example: "
        "memoryd grant ~/work/finance --duration session",
    )
    g.add_argument("path")
    g.add_argument("--duration", required=True, choices=["once", "session", "task"])
    g.add_argument("--task")
    g.set_defaults(handler=run_grant)

    v = sub.add_parser(
        "revoke",
        parents=[common],
        help="end grants of a sensitive scope",
        description="Without --task every grant of the scope ends. "
        "Example: memoryd revoke ~/work/finance --task audit",
    )
    v.add_argument("path")
    v.add_argument("--task")
    v.set_defaults(handler=run_revoke)

    ls = sub.add_parser(
        "grants", parents=[common], help="list live grants", description="Example: memoryd grants --json"
    )
    ls.set_defaults(handler=run_grants)

    k = sub.add_parser(
        "key",
        parents=[common],
        help="export or import a sensitive scope's key (recovery file)",
        description="Example: memoryd key export ~/work/finance --out finance.memoryd-key ; "
        "memoryd key import finance.memoryd-key",
    )
    ksub = k.add_subparsers(dest="key_command", metavar="export|import", parser_class=type(k))
    ke = ksub.add_parser(
        "export",
        parents=[common],
        help="write a passphrase-protected recovery file (needs a grant)",
        description="Example: memoryd key export ~/work/finance --out finance.memoryd-key",
    )
    ke.add_argument("path")
    ke.add_argument("--out", required=True)
    ke.set_defaults(handler=run_key_export)
    ki = ksub.add_parser(
        "import",
        parents=[common],
        help="put a scope's key back into the OS keyring from a recovery file",
        description="Example: memoryd key import finance.memoryd-key",
    )
    ki.add_argument("file")
    ki.set_defaults(handler=run_key_import)
    k.set_defaults(handler=lambda a: (_ for _ in ()).throw(UsageError("memoryd key: say export or import")))


def _app() -> Any:
    from memoryd.app import Memoryd

    return Memoryd()


def read_passphrase(prompt: str, *, confirm: bool = False) -> str:
    """From the terminal (twice when choosing one), else the first line of stdin."""
    if sys.stdin.isatty():
        first = getpass.getpass(prompt)
        if confirm and getpass.getpass("Again: ") != first:
            raise UsageError("the two passphrases differ")
    else:
        first = sys.stdin.readline().rstrip("\r\n")
    if not first:
        raise UsageError("the passphrase is empty")
    if confirm and len(first) < 8:
        raise UsageError("choose a passphrase of at least 8 characters")
    return first


def _confirm(question: str) -> None:
    if not sys.stdin.isatty():
        raise UsageError(
            "granting access needs the user at a terminal (stdin is not a terminal); "
            "ask the user to run this command themselves"
        )
    sys.stderr.write(question + " [y/N] ")
    sys.stderr.flush()
    if sys.stdin.readline().strip().lower() not in ("y", "yes"):
        raise UsageError("not granted")


def run_mark(args: argparse.Namespace) -> int:
    app = _app()
    existing = app.sensitive_settings(args.path)
    passphrase = None
    if args.passphrase or (existing is not None and existing.key_source == "passphrase"):
        passphrase = read_passphrase("Passphrase for this scope: ", confirm=existing is None)
    rep = app.mark_sensitive(args.path, passphrase=passphrase)
    for w in rep.warnings:
        output.warn(w)
    if args.json:
        output.emit_json(rep.__dict__)
    else:
        verb = "finished marking" if rep.resumed else "marked"
        output.line(
            f"{verb} {rep.root} sensitive ({rep.key_source} key): {rep.encrypted} memories encrypted, "
            f"{rep.audit_rewritten} audit events rewritten without their words"
        )
        if rep.key_source == "random":
            output.line(f"keep a recovery file: memoryd key export {rep.root} --out FILE")
    return 0


def run_unmark(args: argparse.Namespace) -> int:
    n = _app().unmark_sensitive(args.path)
    if args.json:
        output.emit_json({"decrypted": n})
    else:
        output.line(f"unmarked: {n} memories decrypted; the key was removed")
    return 0


def run_rotate(args: argparse.Namespace) -> int:
    app = _app()
    settings = app.sensitive_settings(args.path)
    new = None
    if settings is not None and settings.key_source == "passphrase":
        new = read_passphrase("New passphrase: ", confirm=True)
    n = app.rotate_key(args.path, new_passphrase=new)
    if args.json:
        output.emit_json({"reencrypted": n})
    else:
        output.line(f"rotated: {n} memories re-encrypted under the new key")
    return 0


def run_grant(args: argparse.Namespace) -> int:
    app = _app()
    settings = app.sensitive_settings(args.path)
    if settings is None:
        raise UsageError(f"{args.path} is not in a sensitive scope: nothing to grant")
    span = {"once": "90 seconds", "session": "8 hours", "task": f"task {args.task!r} (until revoked)"}
    passphrase = None
    if settings.key_source == "passphrase":
        passphrase = read_passphrase(f"Passphrase of {settings.root}: ")
    else:
        _confirm(f"memoryd: allow reads of sensitive scope {settings.root} for {span[args.duration]}?")
    grant, warnings = app.grant(args.path, duration=args.duration, task=args.task, passphrase=passphrase)
    for w in warnings:
        output.warn(w)
    if args.json:
        output.emit_json(grant.as_dict())
    else:
        until = grant.expires_at or "revoked"
        output.line(f"granted {args.duration} access to {settings.root} until {until}")
    return 0


def run_revoke(args: argparse.Namespace) -> int:
    n = _app().revoke(args.path, task=args.task)
    if args.json:
        output.emit_json({"revoked": n})
    else:
        output.line(f"revoked {n} grant(s)")
    return 0


def run_grants(args: argparse.Namespace) -> int:
    rows = _app().grants()
    if args.json:
        output.emit_json(rows)
        return 0
    output.table(
        [
            [r["root"] or r["scope_hash"], r["duration"], r["task"] or "", r["expires_at"] or "until revoked"]
            for r in rows
        ],
        ["SCOPE", "DURATION", "TASK", "EXPIRES"],
    )
    if not rows:
        output.line("no live grants")
    return 0


def run_key_export(args: argparse.Namespace) -> int:
    out = Path(args.out).expanduser()
    passphrase = read_passphrase("Passphrase for the recovery file: ", confirm=True)
    _app().key_export(args.path, out, passphrase=passphrase)
    if args.json:
        output.emit_json({"out": str(out)})
    else:
        output.line(f"wrote {out}: keep it away from this machine's disk; it opens only with the passphrase")
    return 0


def run_key_import(args: argparse.Namespace) -> int:
    if not Path(args.file).expanduser().is_file():
        raise UsageError(f"no such file: {args.file}")
    passphrase = read_passphrase("Passphrase of the recovery file: ")
    h = _app().key_import(Path(args.file).expanduser(), passphrase=passphrase)
    if args.json:
        output.emit_json({"scope_hash": h})
    else:
        output.line(f"key of scope {h} is back in the OS keyring")
    return 0
