"""memoryd schedule / run-job / run-due / pause-capture / resume-capture / api-key: what
the tray's menu and settings do, from a terminal (and what the timers of `memoryd setup
auto-install` run)."""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import Any

from memoryd.cli import output
from memoryd.errors import UsageError
from memoryd.schedule import ALIASES, DEFAULTS
from memoryd.secrets import PROVIDERS_WITH_KEYS as PROVIDERS

JOBS = (*DEFAULTS, *ALIASES)  # `decay-sweep`: what timers of earlier versions still run
RUNNERS = ("tray", "timer", "cli")


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    s = sub.add_parser(
        "schedule",
        parents=[common],
        help="the scheduled jobs: times, next and last runs, which timers run them",
        description="Each job's cron line (local time; [schedule] in config.toml), its next run, how "
        "its last run went, and the OS timers `memoryd setup auto-install` wrote. "
        "Example: memoryd schedule --json",
    )
    s.set_defaults(handler=run_schedule)

    j = sub.add_parser(
        "run-job",
        parents=[common],
        help="run a scheduled job if its time has come (--force: now)",
        description="Runs the job when a scheduled time passed that no runner (tray, timer, terminal) "
        "took yet, else says nothing is due. Exit 1 when the run failed. "
        "Example: memoryd run-job digest --force",
    )
    j.add_argument("job", choices=JOBS)
    j.add_argument("--force", action="store_true", help="run it now even if nothing is due")
    j.add_argument("--runner", choices=RUNNERS, default="cli", help="who runs it (kept in schedule.json)")
    j.set_defaults(handler=run_job)

    d = sub.add_parser(
        "run-due",
        parents=[common],
        help="run every job whose time passed (once, however many runs were missed)",
        description="What the tray does at start and after a sleep. Example: memoryd run-due",
    )
    d.add_argument("--runner", choices=RUNNERS, default="cli", help="who runs them (kept in schedule.json)")
    d.set_defaults(handler=run_due)

    for name, paused in (("pause-capture", True), ("resume-capture", False)):
        p = sub.add_parser(
            name,
            parents=[common],
            help="agent hooks keep nothing until resumed" if paused else "agent hooks capture again",
            description=(
                "While paused, `memoryd capture` (the agents' hooks) spools nothing. "
                if paused
                else "Ends `memoryd pause-capture`. "
            )
            + f"Example: memoryd {name}",
        )
        p.set_defaults(handler=run_pause, paused=paused)

    k = sub.add_parser(
        "api-key",
        parents=[common],
        help="an LLM provider's API key in the OS keyring",
        description="The key is read from the terminal without echo (or one line of piped stdin), "
        "never from the command line, and kept in the OS keyring, never in config.toml. The "
        "environment variable ([llm.<provider>] api_key_env) still wins. "
        "Example: memoryd api-key set anthropic ; memoryd api-key status",
    )
    ksub = k.add_subparsers(dest="key_command", metavar="set|delete|status", parser_class=type(k))
    ks = ksub.add_parser(
        "set",
        parents=[common],
        help="store a provider's key (asked for)",
        description="Example: memoryd api-key set anthropic",
    )
    ks.add_argument("provider", choices=PROVIDERS)
    ks.set_defaults(handler=run_key_set)
    kd = ksub.add_parser(
        "delete",
        parents=[common],
        help="remove a provider's stored key",
        description="Example: memoryd api-key delete openai",
    )
    kd.add_argument("provider", choices=PROVIDERS)
    kd.set_defaults(handler=run_key_delete)
    kt = ksub.add_parser(
        "status",
        parents=[common],
        help="which providers have a key (keyring or environment)",
        description="Example: memoryd api-key status --json",
    )
    kt.set_defaults(handler=run_key_status)
    k.set_defaults(handler=_say_which)


def _say_which(args: argparse.Namespace) -> int:
    raise UsageError("memoryd api-key: say set, delete or status")


def _app() -> Any:
    from memoryd.app import Memoryd

    return Memoryd()


def run_schedule(args: argparse.Namespace) -> int:
    app = _app()
    jobs = app.schedules()
    timers = app.timers_installed()
    if args.json:
        output.emit_json({"jobs": jobs, "timers": timers, "capture_paused": app.capture_paused()})
        return 0
    rows = [
        [
            j["id"],
            j["cron"],
            _short(j["next_run"]),
            "yes" if j["due"] else "",
            _short(j["last_run"]) + (f" ({j['runner']})" if j["runner"] else ""),
            "failed: " + j["last_error"] if j["last_error"] else ("ok" if j["last_success"] else ""),
        ]
        for j in jobs
    ]
    output.table(rows, ["job", "cron (local)", "next run", "due", "last run", "last result"])
    output.line()
    if timers:
        output.line("timers: " + "; ".join(timers))
    else:
        output.line("timers: none (the tray runs the jobs; `memoryd setup auto-install` adds timers)")
    if app.capture_paused():
        output.line("capture is paused: `memoryd resume-capture`")
    return 0


def _short(ts: str | None) -> str:
    """An ISO time as `YYYY-MM-DD HH:MM`, local to the stamp."""
    return ts[:16].replace("T", " ") if ts else "-"


def _print_run(job: str, run: Any, as_json: bool) -> None:
    if as_json:
        output.emit_json({"job": job, "ran": run is not None, **(run.as_dict() if run else {})})
    elif run is None:
        output.line(f"nothing due for {job}")
    else:
        output.line(run.summary)


def run_job(args: argparse.Namespace) -> int:
    run = _app().run_job(args.job, runner=args.runner, force=args.force)
    _print_run(args.job, run, args.json)
    return 0 if run is None or run.ok else 1


def run_due(args: argparse.Namespace) -> int:
    """Every due job, each on its own: one failing does not keep the others from running."""
    app = _app()
    results: list[dict[str, Any]] = []
    failed = False
    for job in app.due_jobs():
        try:
            run = app.run_job(job, runner=args.runner)
        except Exception as exc:  # recorded in schedule.json by run_job; one line here
            failed = True
            results.append({"job": job, "ran": True, "ok": False, "summary": f"{type(exc).__name__}: {exc}"})
            if not args.json:
                output.warn(f"{job} failed: {type(exc).__name__}: {exc}")
            continue
        if run is None:  # another runner took it meanwhile
            continue
        failed = failed or not run.ok
        results.append({"ran": True, **run.as_dict()})
        if not args.json:
            output.line(run.summary)
    if args.json:
        output.emit_json(results)
    elif not results:
        output.line("nothing due")
    return 1 if failed else 0


def run_pause(args: argparse.Namespace) -> int:
    app = _app()
    changed = app.pause_capture(args.paused)
    if args.json:
        output.emit_json({"paused": args.paused, "changed": changed})
    elif args.paused:
        output.line("capture paused: agent hooks keep nothing" if changed else "capture was already paused")
    else:
        output.line("capture resumed" if changed else "capture was not paused")
    return 0


def read_key(provider: str) -> str:
    """From the terminal without echo, else the first line of stdin."""
    if sys.stdin.isatty():
        key = getpass.getpass(f"{provider} API key: ")
    else:
        key = sys.stdin.readline().rstrip("\r\n")
    key = key.strip()
    if not key:
        raise UsageError("the API key is empty: nothing was stored")
    return key


def run_key_set(args: argparse.Namespace) -> int:
    app = _app()
    key = read_key(args.provider)
    app.set_api_key(args.provider, key)
    if args.json:
        output.emit_json({"provider": args.provider, "stored": True})
    else:
        output.line(f"stored the {args.provider} API key in the OS keyring")
    return 0


def run_key_delete(args: argparse.Namespace) -> int:
    app = _app()
    app.set_api_key(args.provider, None)
    if args.json:
        output.emit_json({"provider": args.provider, "stored": False})
    else:
        output.line(f"no {args.provider} API key is stored in the OS keyring now")
    return 0


def run_key_status(args: argparse.Namespace) -> int:
    import os

    app = _app()
    rows = []
    for provider in PROVIDERS:
        env_name = app.config.llm.provider_config(provider).api_key_env
        rows.append(
            {
                "provider": provider,
                "keyring": app.api_key_stored(provider),
                "env_var": env_name,
                "env_set": bool(env_name and os.environ.get(env_name)),
                "in_use": provider == app.config.llm.provider,
            }
        )
    if args.json:
        output.emit_json(rows)
        return 0
    output.table(
        [
            [
                r["provider"] + (" (in use)" if r["in_use"] else ""),
                "stored" if r["keyring"] else "-",
                f"{r['env_var']} set" if r["env_set"] else (f"{r['env_var']} unset" if r["env_var"] else "-"),
            ]
            for r in rows
        ],
        ["provider", "keyring", "environment"],
    )
    return 0
