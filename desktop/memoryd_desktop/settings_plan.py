"""What the Settings dialog reads and what a Save does, with no widgets: the values the form
starts from (`read_settings`), the changes one Save makes (`Plan`), and `apply_plan`, which
saves them in an order that can be undone.

Both functions run on the Ops thread (keyring, ledger and config.toml may block). Kept
apart from the dialog so the save order and its undo read, and can be tested, on their own.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from memoryd.app import Memoryd
from memoryd.errors import MemorydError, UsageError

log = logging.getLogger("memoryd.tray")

ACTOR = "tray"
PROVIDERS = ("rules", "anthropic", "openai", "ollama")
KEYED_PROVIDERS = ("anthropic", "openai")  # the others take no API key
NEEDS_MODEL = ("openai", "ollama")  # the default model is an Anthropic one
SECURITY = ("starttls", "ssl", "none")
LANGUAGES = ("system", "en", "zh_CN")
DEFAULT_PORT = 587


# -- what the dialog reads ------------------------------------------------------------
@dataclass(frozen=True)
class Job:
    """One scheduled job as `facade.schedules()` describes it."""

    id: str
    key: str
    cron: str
    next_run: str | None = None
    last_run: str | None = None
    last_success: str | None = None
    last_error: str | None = None
    timed: bool = True  # False: no timer of its own, the nightly consolidation runs it when due


@dataclass(frozen=True)
class Settings:
    """The values the form starts from; a save writes only what differs from them."""

    provider: str = "anthropic"
    model: str = ""
    keys_stored: frozenset[str] = frozenset()
    email_host: str = ""
    email_port: int = DEFAULT_PORT
    email_security: str = "starttls"
    email_user: str = ""
    email_from: str = ""
    email_to: tuple[str, ...] = ()
    jobs: tuple[Job, ...] = ()
    jobs_error: str = ""  # config.toml's [schedule] cannot be read (edited by hand)
    timers: tuple[str, ...] = ()
    sync_folder: str = ""
    autostart: bool | None = None  # None: this install cannot start memoryd at login
    language: str = "system"


def _dotted(raw: Mapping[str, Any], key: str) -> Any:
    """The value at "section.key" in config.toml's parsed tables, or None."""
    node: Any = raw
    for part in key.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def read_settings(facade: Memoryd) -> Settings:
    """Everything the form shows; runs on the Ops thread (keyring and ledger reads)."""
    cfg = facade.config
    try:
        timers = tuple(facade.timers_installed())
    except ImportError:  # no `setup auto-install` in this install: the tray runs the jobs
        timers = ()
    try:
        autostart: bool | None = bool(facade.autostart_enabled())
    except ImportError:
        autostart = None
    jobs: tuple[Job, ...] = ()
    jobs_error = ""
    try:
        rows = facade.schedules()
    except UsageError as exc:  # the other tabs stay usable; the error says what to fix
        jobs_error = one_line(exc)
    else:
        jobs = tuple(Job(**{k: row.get(k) for k in Job.__dataclass_fields__ if k in row}) for row in rows)
    folder = _dotted(cfg.raw, "sync.folder")
    language = _dotted(cfg.raw, "tray.language")
    return Settings(
        provider=cfg.llm.provider,
        model=cfg.llm.model,
        keys_stored=frozenset(p for p in KEYED_PROVIDERS if facade.api_key_stored(p)),
        email_host=cfg.email.host or "",
        email_port=cfg.email.port,
        email_security=cfg.email.security,
        email_user=cfg.email.user or "",
        email_from=cfg.email.from_addr or "",
        email_to=tuple(cfg.email.to),
        jobs=jobs,
        jobs_error=jobs_error,
        timers=timers,
        sync_folder=folder if isinstance(folder, str) else "",
        autostart=autostart,
        language=language if isinstance(language, str) else "system",
    )


# -- what a save does -----------------------------------------------------------------
@dataclass(frozen=True)
class Plan:
    """The changes one Save makes, worked out on the GUI thread, applied on the Ops thread."""

    config: dict[str, Any] = field(default_factory=dict)
    api_key: tuple[str, str | None] | None = None  # (provider, key); key None deletes
    smtp_password: str | None = None
    autostart: bool | None = None
    crons: dict[str, tuple[str, str]] = field(default_factory=dict)  # job id -> (key, cron)

    def __bool__(self) -> bool:
        return bool(self.config or self.api_key or self.smtp_password or self.autostart is not None)


class CronError(Exception):
    """A schedule line the config check refused, tied to its job so the form marks the field."""

    def __init__(self, job_id: str, message: str) -> None:
        super().__init__(message)
        self.job_id = job_id


def _blame_cron(exc: UsageError, crons: Mapping[str, tuple[str, str]]) -> Exception:
    """The config check names a bad line by its text (or its key); find the field it came from."""
    text = str(exc)
    for job_id, (key, cron) in crons.items():
        if repr(cron) in text or f"[schedule] {key} " in text:
            return CronError(job_id, one_line(exc))
    return exc


def apply_plan(facade: Memoryd, plan: Plan) -> None:
    """Save in an order that can be put back: login start, config.toml, then the keyring
    (which cannot be read back, so it goes last). Runs on the Ops thread."""
    undo: list[Callable[[], Any]] = []
    try:
        if plan.autostart is not None:
            on = plan.autostart
            facade.set_autostart(on, actor=ACTOR)
            undo.append(lambda: facade.set_autostart(not on, actor=ACTOR))
        if plan.config:
            before = {key: _dotted(facade.config.raw, key) for key in plan.config}
            try:
                facade.update_config(plan.config)
            except UsageError as exc:
                raise _blame_cron(exc, plan.crons) from None
            undo.append(lambda: facade.update_config(before))
        if plan.api_key is not None:
            provider, key = plan.api_key
            facade.set_api_key(provider, key, actor=ACTOR)
        if plan.smtp_password:
            facade.set_smtp_password(plan.smtp_password, actor=ACTOR)
    except Exception:
        for step in reversed(undo):
            try:
                step()
            except Exception:  # the original error is the one to show
                log.exception("could not undo part of a failed settings save")
        raise


def one_line(exc: BaseException) -> str:
    """Our errors already speak to the user; others also name their type. First line only."""
    text = str(exc) if isinstance(exc, MemorydError | CronError) else f"{type(exc).__name__}: {exc}"
    return (text.strip().splitlines() or [type(exc).__name__])[0]


def split_addresses(text: str) -> tuple[str, ...]:
    """ "a@x, b@y" -> ("a@x", "b@y"); blanks dropped."""
    return tuple(part.strip() for part in text.split(",") if part.strip())
