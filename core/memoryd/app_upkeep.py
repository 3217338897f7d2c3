"""The facade's upkeep half: scheduled jobs, settings, API keys, pausing capture, and the
tray's grant socket. A mixin of `Memoryd` so callers still see one object; it lives apart
because app.py holds the memory operations and was long enough already."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memoryd import clock, envpaths, paths, schedule
from memoryd.config import Config
from memoryd.errors import UsageError

if TYPE_CHECKING:
    from memoryd.consolidate import Report as ConsolidationReport
    from memoryd.governance.digest import Digest
    from memoryd.store import Store


@dataclass
class JobRun:
    """One run of a scheduled job: what ran, for which slot, and what it found."""

    job: str
    slot: str
    runner: str
    summary: str
    ok: bool = True
    digest: Digest | None = None
    deliveries: list[tuple[str, bool, str]] = field(default_factory=list)
    consolidation: ConsolidationReport | None = None  # the consolidate job's, for a window to word

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("digest", "consolidation")}
        if self.digest is not None:
            out["counts"] = digest_counts(self.digest)
        return out


def digest_counts(d: Digest) -> dict[str, int]:
    """What waits for the person, by kind: the weekly notification lists the ones not 0."""
    return {
        "promotions": len(d.pending_promotions),
        "duplicates": len(d.duplicates),
        "expiring": len(d.ttl_reminders),
        "supersedes": len(d.pending_supersedes),
        "conflicts": len(d.sync_conflicts),
        "suspect": len(d.suspect),
    }


class Upkeep:
    """Mixed into Memoryd; relies on its `layout`, `config` and `store`."""

    layout: paths.Layout
    config: Config
    store: Store
    _config_seen: int | None

    # -- scheduled jobs ---------------------------------------------------------------
    def _jobs(self) -> list[schedule.Job]:
        return schedule.jobs(self.config.raw)

    def schedules(self) -> list[dict[str, Any]]:
        """Each job's cron line, next run, and how its last run went."""
        return schedule.describe(self._jobs(), schedule.Ledger(self.layout), clock.now())

    def due_jobs(self) -> list[str]:
        """Jobs with a scheduled time passed and not yet run (missed while asleep or closed)."""
        ledger, now = schedule.Ledger(self.layout), clock.now()
        return [job.id for job in self._jobs() if job.timed and ledger.due(job, now) is not None]

    def run_job(
        self, job_id: str, *, runner: str = "cli", force: bool = False, notification: bool = True
    ) -> JobRun | None:
        """Run a job if its slot is due and nobody ran it (`force`: run it now anyway).
        None when there was nothing to do. The digest job delivers by email when
        configured, and by notification unless the caller shows its own."""
        job = schedule.find(self._jobs(), job_id)
        ledger = schedule.Ledger(self.layout)
        slot = ledger.claim(job, clock.now(), runner, force=force)
        if slot is None:
            return None
        run = JobRun(job=job.id, slot=clock.iso(slot), runner=runner, summary="")
        try:
            self._run(run, notification=notification)
        except Exception as exc:
            ledger.finish(job.id, clock.now(), f"{type(exc).__name__}: {exc}")
            raise
        ledger.finish(job.id, clock.now(), None if run.ok else run.summary)
        return run

    def _run(self, run: JobRun, *, notification: bool) -> None:
        actor = "scheduler"
        app: Any = self
        if run.job == "consolidate":
            from memoryd import consolidate

            try:
                rep = consolidate.run(app, trigger="schedule")
            except consolidate.Busy:
                run.summary = "consolidation: already running (started by another runner)"
                return
            run.consolidation = rep
            failed = [f"{p.name}: {p.error}" for p in rep.phases if p.error]
            run.summary = "consolidation: " + (rep.skipped or rep.summary_line())
            if failed:
                run.ok, run.summary = False, run.summary + "; failed: " + "; ".join(failed)
        elif run.job == "digest":
            d = app.digest()
            run.digest = d
            run.deliveries = app.deliver_digest(d, notification=notification, actor=actor)
            c = digest_counts(d)
            run.summary = (
                f"digest: {c['promotions']} promotions, {c['duplicates']} duplicate groups, "
                f"{c['expiring']} expiring"
            )
            # not configured, or no desktop session (cron has no session bus): not a failure
            failed = [
                msg
                for _name, ok, msg in run.deliveries
                if not ok and not msg.startswith("not configured") and "no D-Bus session bus" not in msg
            ]
            if failed:
                run.ok, run.summary = False, run.summary + "; not delivered: " + "; ".join(failed)
        elif run.job == "identity":
            rw = app.rewrite_identity(trigger="weekly_cron", actor=actor)
            run.summary = (
                f"identity: version {rw.version}" if rw.changed else f"identity: unchanged ({rw.note})"
            )
        elif run.job == "monthly-report":
            first = clock.now().astimezone(schedule.local_zone()).replace(day=1)
            ended = (first - timedelta(days=1)).strftime("%Y-%m")  # the 1st reports the month before
            rep = app.monthly_report(ended, actor=actor)
            run.summary = f"monthly report {rep.period}: {rep.versions} versions, {rep.supersedes} supersedes"
        else:  # schedule.find already refused it
            raise UsageError(f"unknown job {run.job!r}")

    def job_triggers(self) -> dict[str, Any]:
        """APScheduler triggers for the jobs, for the tray's scheduler: the same cron
        reading as `due_jobs` and the timers."""
        return {job.id: schedule.trigger(job.cron) for job in self._jobs() if job.timed}

    @staticmethod
    def cron_trigger(cron: str) -> Any:
        """The APScheduler trigger a cron line makes, built as `job_triggers` builds the
        tray scheduler's (UsageError for a line that is not valid): so the settings' live
        "next run" is when the scheduler will fire."""
        return schedule.trigger(cron)

    def set_schedule(self, job_id: str, cron: str) -> None:
        job = schedule.find(self._jobs(), job_id)
        self.update_config({f"schedule.{job.key}": schedule.check(cron)})

    def timers_installed(self) -> list[str]:
        """Timers `setup auto-install` wrote (then the tray leaves the jobs to them)."""
        from memoryd.agents import timers

        return timers.installed()

    # -- settings ---------------------------------------------------------------------
    def _config_stamp(self) -> int | None:
        path = self.config.path or paths.config_file()
        try:
            return Path(path).stat().st_mtime_ns
        except OSError:
            return None

    def reload_config_if_changed(self) -> bool:
        """Re-read config.toml if it changed on disk since this facade last read it (a
        long-running tray sees `memoryd` or an editor change the schedule); True if so.
        A broken file keeps the config in use: the CLI reports the error where it is run."""
        from memoryd import config as config_mod
        from memoryd.errors import MemorydError

        stamp = self._config_stamp()
        if stamp == self._config_seen:
            return False
        self._config_seen = stamp
        try:
            self.config = config_mod.load(self.config.path)
        except MemorydError:
            return False
        return True

    def update_config(self, changes: Mapping[str, Any]) -> Config:
        """Change config.toml keys ("llm.model": "...", None to reset); checked first,
        written atomically, comments kept; this facade then uses the new values."""
        from memoryd import config_edit

        changes = dict(changes)
        for legacy, job_id in schedule.LEGACY_KEYS.items():
            key = next(k for k, v in schedule.KEYS.items() if v == job_id)
            if f"schedule.{key}" in changes:  # else the old name would still set the time
                changes.setdefault(f"schedule.{legacy}", None)
        path = self.config.path or paths.config_file()
        self.config = config_edit.apply(Path(path), changes)
        self._config_seen = self._config_stamp()  # our own write is no news
        return self.config

    def api_key_stored(self, provider: str) -> bool:
        from memoryd import secrets

        return secrets.get_api_key(provider) is not None

    def set_api_key(self, provider: str, key: str | None, *, actor: str = "cli") -> None:
        """Into the OS keyring (never config.toml); None or "" deletes it."""
        from memoryd import secrets

        secrets.set_api_key(provider, key)
        self.store.audit.append(
            "settings", actor=actor, details={"api_key": provider, "stored": bool(key and key.strip())}
        )

    def set_smtp_password(self, password: str | None, *, actor: str = "cli") -> None:
        """Into the OS keyring under [email] user, where `digest --notify` reads it."""
        import keyring
        from keyring.errors import PasswordDeleteError

        from memoryd import mailer, oskeyring
        from memoryd.errors import KeyUnavailable

        user = self.config.email.user
        if not user:
            raise UsageError("set the SMTP user first: the password is stored under it")
        try:
            if password:
                oskeyring.call(lambda: keyring.set_password(mailer.KEYRING_SERVICE, user, password))
            else:
                with contextlib.suppress(PasswordDeleteError):
                    oskeyring.call(lambda: keyring.delete_password(mailer.KEYRING_SERVICE, user))
        except oskeyring.unavailable() as exc:
            raise KeyUnavailable(
                f"no OS keyring to hold the SMTP password ({exc.__class__.__name__})"
            ) from None
        self.store.audit.append("settings", actor=actor, details={"smtp_password": bool(password)})

    # -- pause capture ----------------------------------------------------------------
    def capture_paused(self) -> bool:
        return Path(envpaths.paused_flag(str(self.layout.home))).exists()

    def pause_capture(self, paused: bool, *, actor: str = "cli") -> bool:
        """While paused, agent hooks keep nothing; returns whether anything changed."""
        flag = Path(envpaths.paused_flag(str(self.layout.home)))
        if paused == flag.exists():
            return False
        if paused:
            paths.ensure_dir(self.layout.home)
            flag.write_text(clock.now_iso() + "\n", encoding="utf-8")
        else:
            flag.unlink(missing_ok=True)
        self.store.audit.append("capture_paused" if paused else "capture_resumed", actor=actor)
        return True

    # -- the tray's grant socket ------------------------------------------------------
    def grant_socket(self) -> str:
        """Where the tray listens for grant requests (made private first)."""
        from memoryd.sensitive import broker

        return broker.prepare(self.layout)

    def grant_request(self, line: bytes) -> dict[str, Any]:
        """A request line the tray received, checked (ValueError if it is not one). The
        folder shown and whether a passphrase is asked come from core's record of the
        scope, never from the caller, so a prompt cannot name one folder and grant another."""
        from memoryd.sensitive import broker

        req = broker.parse_request(line)
        if req["op"] in ("grant", "llm"):
            settings = self.store.keys.settings(req["scope_hash"])
            if settings is None:
                raise ValueError(f"scope {req['scope_hash']} is not a sensitive scope here")
            req["root"] = self.store.keys.root(req["scope_hash"])  # None where it stays sealed
            req["passphrase"] = settings.key_source == "passphrase"
        if req["op"] == "llm":
            from memoryd.llm.factory import endpoint, endpoint_problem

            req["endpoint"] = endpoint(self.config.llm)  # where the text would go, from core's config
            if req["endpoint"] is None:
                raise ValueError(f"[llm] provider = {self.config.llm.provider!r} sends nothing anywhere")
            if problem := endpoint_problem(self.config.llm):
                raise ValueError(problem)
        return req

    def show_request(self) -> bytes:
        """The line a second tray launch sends the running tray to show its window."""
        from memoryd.sensitive import broker

        return broker.show_line()

    def grant_answer(
        self,
        granted: bool,
        *,
        duration: str | None = None,
        error: str | None = None,
        reason: str | None = None,
    ) -> bytes:
        """The tray's answer line; `reason` a code of memoryd.sensitive.broker.REASONS."""
        from memoryd.sensitive import broker

        return broker.answer_line(granted, duration=duration, error=error, reason=reason)

    def sensitive_scopes(self) -> list[dict[str, Any]]:
        """Every sensitive scope with its root, key source, live grants and where its
        sessions are scored ("llm": the endpoint allowed, None for the rules)."""
        from memoryd.sensitive import grants, llm_access, marking

        out = []
        for row in marking.status(self.store):
            live = grants.live(self.store.keys, row["scope_hash"])
            consent = llm_access.get(self.store, row["scope_hash"])
            out.append(
                {**row, "grants": [g.as_dict() for g in live], "llm": consent.endpoint if consent else None}
            )
        return out

    def llm_endpoint(self) -> str | None:
        """Where analysis would send a session now (`memoryd allow-llm` names it)."""
        from memoryd.llm.factory import endpoint

        return endpoint(self.config.llm)

    # -- the identity window ----------------------------------------------------------
    def monthly_reports(self) -> list[dict[str, Any]]:
        from memoryd.profile import report

        return report.listing(self.store)

    # -- autostart at login -----------------------------------------------------------
    def autostart_enabled(self) -> bool:
        from memoryd.agents import autostart

        return autostart.enabled()

    def set_autostart(self, on: bool, *, actor: str = "cli") -> str | None:
        """Start the tray at login (XDG autostart, LaunchAgent, Run key), or stop that;
        returns where the entry is (or was)."""
        from memoryd.agents import autostart

        where = autostart.enable() if on else autostart.disable()
        self.store.audit.append("settings", actor=actor, details={"autostart": on})
        return str(where) if where else None

    # -- agents and the tray's first-run welcome --------------------------------------
    def agents_found(self) -> list[dict[str, Any]]:
        """The agents on this machine (by their settings folders) and whether each is
        connected to memoryd already: what the welcome offers to connect."""
        from memoryd.agents import connect

        return connect.found(Path.home())

    def connect_agent(self, agent: str, *, actor: str = "cli") -> dict[str, Any]:
        """`memoryd setup <agent>` for the user (hooks, MCP server, skill): the same files,
        backups and ledger; returns the report (changed and unchanged files, notes)."""
        from memoryd.agents import connect

        report = connect.apply(connect.plan(agent, Path.home()))
        out = report.as_dict()
        self.store.audit.append(
            "settings", actor=actor, details={"setup": agent, "changed": len(out["changed"])}
        )
        return out

    def welcome_wanted(self) -> bool:
        """True until the tray's first-run welcome was finished or skipped ([tray] welcomed);
        never with MEMORYD_NO_WELCOME set (scripted installs, and tests of other windows)."""
        import os

        if os.environ.get("MEMORYD_NO_WELCOME"):
            return False
        table = self.config.raw.get("tray")
        return not (isinstance(table, dict) and table.get("welcomed") is True)

    def finish_welcome(self, *, actor: str = "cli") -> None:
        """The welcome is done (or skipped): config.toml's [tray] welcomed = true."""
        self.update_config({"tray.welcomed": True})
        self.store.audit.append("settings", actor=actor, details={"welcomed": True})
