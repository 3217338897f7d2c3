"""memoryd mark-sensitive / unmark-sensitive / rotate-key / grant / revoke / grants /
grant-pin / key export / key import.

Granting needs the person, and a terminal is not proof of one (an agent with a shell can
open a pty): when the tray runs, its own dialog decides; otherwise the grant needs a
secret the agent does not have, the scope's passphrase or the grant PIN. There is no
`--yes`. Passphrases and PINs are read from the terminal, or from stdin when piped,
never from argv."""

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
        description="once = 90 s, session = 8 h, task = until `memoryd revoke PATH --task NAME`. When the "
        "tray app runs, its dialog asks the user; otherwise the grant needs the scope's passphrase, or for a "
        "random-key scope the grant PIN (`memoryd grant-pin set`), typed or on stdin. Example: "
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

    al = sub.add_parser(
        "allow-llm",
        parents=[common],
        help="let the LLM provider score a sensitive project's sessions (or --off)",
        description="A sensitive project's sessions are scored by the local rules, so nothing of them "
        "leaves this computer. allow-llm sends them to the provider and URL configured in [llm] now, "
        "once the person confirms as for a grant (the tray's dialog, the grant PIN, or the scope's "
        "passphrase); a provider or URL changed later is not covered. --off takes it back (anyone "
        "may); --status shows it. Example: memoryd allow-llm ~/work/finance",
    )
    al.add_argument("path")
    how = al.add_mutually_exclusive_group()
    how.add_argument("--off", action="store_true", help="keep this project's sessions here again")
    how.add_argument("--status", action="store_true", help="say whether it is allowed, and for what")
    al.set_defaults(handler=run_allow_llm)

    gp = sub.add_parser(
        "grant-pin",
        parents=[common],
        help="set or change the grant PIN that confirms grants without the tray",
        description="set: choose the first PIN (asked when the first random-key scope is marked; once "
        "random-key scopes exist, the first PIN needs the tray's confirmation). change: the current PIN, "
        "then the new one (piped: one per line). Only a scrypt hash is kept, in the OS keyring. "
        "Example: memoryd grant-pin change",
    )
    gp.add_argument("action", choices=["set", "change"])
    gp.set_defaults(handler=run_grant_pin)

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


def read_secret(prompt: str) -> str:
    """A PIN or passphrase from the terminal, else one line of stdin; never from argv."""
    try:
        if sys.stdin.isatty():
            return getpass.getpass(prompt)
        return sys.stdin.readline().rstrip("\r\n")
    except EOFError:  # the terminal closed before a line came: nothing was typed
        return ""


def read_new_pin(prompt: str, *, optional: bool = False) -> str | None:
    """A new grant PIN: twice on a terminal, else one line of stdin. `optional`: an empty
    answer on stdin means "not now"."""
    from memoryd.sensitive import pin

    first = read_secret(prompt)
    if not first and optional and not sys.stdin.isatty():
        return None
    pin.check_new(first)
    if sys.stdin.isatty() and getpass.getpass("Again: ") != first:
        raise UsageError("the two PINs differ")
    return first


def _ask_tray(op: str, request: dict[str, Any]) -> dict[str, Any] | None:
    """The running tray's answer to `op`, or None when no tray listens."""
    from memoryd.sensitive import broker

    if broker.current is None:
        return None
    return broker.current({"op": op, **request})


def _pin_on_mark(app: Any) -> None:
    """Marking a random-key scope: the first one chooses the grant PIN; later ones must
    know it (so a PIN someone else set before the person marked is noticed)."""
    from memoryd.errors import KeyUnavailable

    try:
        status = app.grant_pin_status()
    except KeyUnavailable:
        return  # no keyring: marking says so in its own words
    if status["set"]:
        app.check_grant_pin(read_secret("Grant PIN (it guards this scope's grants): "), what="mark-sensitive")
    elif not (status["random_scopes"] or status["had_random_scopes"]):
        new = read_new_pin(
            "Choose a grant PIN (it confirms grants when the tray is not running): ", optional=True
        )
        if new is None:
            output.warn(
                "no grant PIN set: grants of this scope need the tray app until one is set there "
                "(`memoryd grant-pin set` while the tray runs)"
            )
        else:
            app.set_grant_pin(new)


def run_mark(args: argparse.Namespace) -> int:
    app = _app()
    existing = app.sensitive_settings(args.path)
    passphrase = None
    if args.passphrase or (existing is not None and existing.key_source == "passphrase"):
        passphrase = read_passphrase("Passphrase for this scope: ", confirm=existing is None)
    elif existing is None:
        _pin_on_mark(app)
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


def _granted_line(args: argparse.Namespace, grant: dict[str, Any], root: str) -> None:
    if args.json:
        output.emit_json(grant)
    else:
        until = grant["expires_at"] or "revoked"
        output.line(f"granted {grant['duration']} access to {root} until {until}")


def run_grant(args: argparse.Namespace) -> int:
    from memoryd.errors import AuthorizationRequired
    from memoryd.sensitive.state import label

    app = _app()
    settings = app.sensitive_settings(args.path)
    if settings is None:
        raise UsageError(f"{args.path} is not in a sensitive scope: nothing to grant")
    folder = app.sensitive_where(args.path)
    where = label(settings.scope_hash, folder)
    if args.duration == "task" and not (args.task and args.task.strip()):
        raise UsageError(
            "--duration task needs --task NAME (revoke it with `memoryd revoke PATH --task NAME`)"
        )
    if args.duration != "task" and args.task:
        raise UsageError("--task goes with --duration task")
    answer = _ask_tray(
        "grant",
        {
            "scope_hash": settings.scope_hash,
            "what": f"memoryd grant --duration {args.duration}",
            "passphrase": settings.key_source == "passphrase",
        },
    )
    if answer is not None:  # the tray's dialog decided, and wrote the grant itself
        if not answer.get("granted"):
            raise AuthorizationRequired(
                f"not granted: {answer.get('error') or 'the user refused it in the tray'}"
            )
        mine = [g for g in app.grants() if g["scope_hash"] == settings.scope_hash]
        if not mine:
            raise AuthorizationRequired(
                "the tray answered yes but no grant is in effect (it may have expired)"
            )
        _granted_line(args, {k: v for k, v in mine[-1].items() if k != "root"}, where)
        return 0
    passphrase = pin = None
    if settings.key_source == "passphrase":
        passphrase = read_passphrase(f"Passphrase of {where}: ")
    elif app.grant_pin_status()["set"]:
        pin = read_secret(f"Grant PIN to allow reads of {where}: ")
    grant, warnings = app.grant(
        args.path, duration=args.duration, task=args.task, passphrase=passphrase, pin=pin
    )
    for w in warnings:
        output.warn(w)
    _granted_line(args, grant.as_dict(), label(settings.scope_hash, app.sensitive_where(args.path)))
    return 0


def run_allow_llm(args: argparse.Namespace) -> int:
    from memoryd.errors import AuthorizationRequired
    from memoryd.sensitive.state import label
    from memoryd.visible import clean

    app = _app()
    settings = app.sensitive_settings(args.path)
    if settings is None:
        raise UsageError(f"{args.path} is not in a sensitive scope: its sessions go to the LLM already")
    where = label(settings.scope_hash, app.sensitive_where(args.path))
    if args.off or args.status:
        consent = app.llm_consent(args.path)
        if args.off:
            app.withdraw_llm(args.path)
        if args.json:
            output.emit_json({"scope_hash": settings.scope_hash, "allowed": None if args.off else consent})
        elif args.off:
            output.line(f"{where}: sessions scored here by the rules" + ("" if consent else " (as before)"))
        elif consent:
            output.line(f"{where}: sessions scored by {consent['endpoint']} (since {consent['allowed_at']})")
        else:
            output.line(f"{where}: sessions scored here by the rules")
        return 0
    shown = app.llm_endpoint()  # shown in the prompt (cleaned), checked again when written
    if shown is None:
        raise UsageError(
            f"[llm] provider = {app.config.llm.provider!r} sends nothing anywhere: nothing to allow"
        )
    answer = _ask_tray("llm", {"scope_hash": settings.scope_hash, "what": "memoryd allow-llm"})
    if answer is not None:  # the tray's dialog decided, and wrote the consent itself
        if not answer.get("granted"):
            from memoryd.sensitive import broker

            raise AuthorizationRequired(f"not allowed: {broker.refusal(answer)}")
        consent = app.llm_consent(args.path)
        if consent is None:
            raise AuthorizationRequired("the tray answered yes but no consent is recorded")
    else:
        passphrase = pin = None
        # the prompt names where the text would go, before any secret is typed
        if settings.key_source == "passphrase":
            passphrase = read_passphrase(f"Passphrase of {where}, to send its sessions to {clean(shown)}: ")
        elif app.grant_pin_status()["set"]:
            pin = read_secret(f"Grant PIN to send the sessions of {where} to {clean(shown)}: ")
        consent = app.allow_llm(args.path, passphrase=passphrase, pin=pin, expected=shown)
    if args.json:
        output.emit_json(consent)
    else:
        output.line(f"{where}: sessions scored by {consent['endpoint']} from now on")
    return 0


def run_grant_pin(args: argparse.Namespace) -> int:
    from memoryd.errors import AuthorizationRequired

    app = _app()
    status = app.grant_pin_status()
    if args.action == "set":
        if status["set"]:
            raise UsageError("a grant PIN is set already: `memoryd grant-pin change` changes it")
        new = read_new_pin("Choose a grant PIN: ")
        assert new is not None
        in_tray = False
        if status["random_scopes"] or status["had_random_scopes"]:
            answer = _ask_tray("pin", {"what": "memoryd grant-pin set"})
            if answer is not None and not answer.get("granted"):
                raise AuthorizationRequired(
                    f"grant PIN not set: {answer.get('error') or 'the user refused it in the tray'}"
                )
            in_tray = answer is not None
        app.set_grant_pin(new, in_tray=in_tray)
    else:
        if not status["set"]:
            raise UsageError("no grant PIN is set yet: `memoryd grant-pin set` chooses one")
        old = read_secret("Current grant PIN: ")
        app.check_grant_pin(old, what="grant-pin change")
        new = read_new_pin("New grant PIN: ")
        assert new is not None
        app.set_grant_pin(new, old=old)
    if args.json:
        output.emit_json({"grant_pin": "changed" if args.action == "change" else "set"})
    else:
        output.line("grant PIN changed" if args.action == "change" else "grant PIN set")
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
