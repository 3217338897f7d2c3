"""config.toml, read once per entry point and passed down (no module globals)."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memoryd import paths
from memoryd.errors import UsageError

PROVIDERS = ("anthropic", "openai", "ollama", "rules")
SEARCH_MODES = ("hybrid", "keyword", "dense")


@dataclass(frozen=True)
class CaptureConfig:
    max_turn_chars: int = 8000
    max_turns: int = 5000
    max_line_bytes: int = 4 * 1024 * 1024
    # A bigger transcript is read in part: its first line and its latest lines (a long
    # session's transcript is tens of MB; this bounds the worker's time on a hostile one).
    max_transcript_bytes: int = 256 * 1024 * 1024
    extra_secret_patterns: tuple[str, ...] = ()


@dataclass(frozen=True)
class SearchConfig:
    default_limit: int = 10
    # keyword | hybrid | dense: what `search` and `traces` use when no --mode is given.
    mode: str = "hybrid"
    # The sentence-embedding model for hybrid search: a name memoryd.embed knows,
    # "module:factory" for one you bring, or "none" for keyword search only.
    embedding_model: str = "use-multilingual-v3"


@dataclass(frozen=True)
class ProviderConfig:
    """`[llm.<provider>]`: where to reach it and which env var holds its key."""

    api_key_env: str | None = None
    base_url: str | None = None
    model: str | None = None


_PROVIDER_DEFAULTS = {
    "anthropic": ProviderConfig(api_key_env="ANTHROPIC_API_KEY"),
    "openai": ProviderConfig(api_key_env="OPENAI_API_KEY", base_url="https://api.openai.com/v1"),
    "ollama": ProviderConfig(base_url="http://127.0.0.1:11434"),
}


@dataclass(frozen=True)
class LLMConfig:
    """`[llm]` as seed 000 shows it, plus the spend and size limits users asked for."""

    provider: str = "anthropic"
    model: str = "claude-haiku-4-5"
    daily_token_budget: int = 200_000
    # The session body sent for scoring is cut to about this many tokens.
    max_input_tokens: int = 900
    timeout_seconds: float = 30.0
    max_retries: int = 2
    # No longer read (a file any agent can edit is no consent): `memoryd allow-llm PATH`
    # allows one sensitive project, confirmed as a grant is. Still parsed so that old
    # config files load; `doctor` says it is ignored.
    allow_sensitive: bool = False
    providers: dict[str, ProviderConfig] = field(default_factory=lambda: dict(_PROVIDER_DEFAULTS))
    # USD per million tokens, (input, output), overriding the built-in price list.
    prices: dict[str, tuple[float, float]] = field(default_factory=dict)

    def provider_config(self, name: str | None = None) -> ProviderConfig:
        return self.providers.get(name or self.provider, ProviderConfig())

    def model_for(self, name: str | None = None) -> str:
        return self.provider_config(name).model or self.model


@dataclass(frozen=True)
class GovernanceConfig:
    promote_threshold: float = 0.6
    analyze_after_capture: bool = True


@dataclass(frozen=True)
class KnowledgeConfig:
    """`[knowledge]`: the supersedes thresholds of seed 001 section 5. A judgement at or above
    `supersede_auto` retires the old memory at once; from `supersede_review` up it waits in
    the digest for the user; below it is ignored."""

    supersede_auto: float = 0.85
    supersede_review: float = 0.5
    # Older memories compared with a new one (the LLM sees at most this many).
    max_candidates: int = 5
    # Ask the LLM for entities when one is configured (off: the rules always extract).
    llm_entities: bool = True
    # Sessions too: one more LLM call per captured session, for the graph and trends only
    # (sessions are never superseded), so by default the rules read them.
    llm_session_entities: bool = False


@dataclass(frozen=True)
class DecayConfig:
    """Days without recall before each step (seed 001: 90, then 30, then 90)."""

    dim_after_days: int = 90
    soft_forget_after_days: int = 30
    forget_after_days: int = 90


@dataclass(frozen=True)
class DigestConfig:
    since_days: int = 7
    ttl_warning_days: int = 7
    top_n: int = 10


@dataclass(frozen=True)
class EmailConfig:
    """`[email]`: where `digest --notify` sends the digest. The password comes from the
    env var `password_env`, else the OS keyring (service "memoryd-smtp", user `user`)."""

    host: str | None = None
    port: int = 587
    security: str = "starttls"  # starttls / ssl / none
    user: str | None = None
    password_env: str | None = "MEMORYD_SMTP_PASSWORD"
    from_addr: str | None = None
    to: tuple[str, ...] = ()
    timeout_seconds: float = 20.0

    @property
    def configured(self) -> bool:
        return bool(self.host and self.to)


@dataclass(frozen=True)
class ExportTarget:
    """One `[[exports.markdown]]` entry: a project folder whose MEMORY.md and USER.md are
    kept in `out` (an OpenClaw workspace, a folder an agent reads)."""

    scope: str
    out: str


@dataclass(frozen=True)
class ConsolidationConfig:
    """`[consolidation]`: when a missed nightly run is made up at the next start."""

    fallback_hours: int = 48


@dataclass(frozen=True)
class Config:
    path: Path | None = None
    capture: CaptureConfig = field(default_factory=CaptureConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    llm: LLMConfig = field(default_factory=LLMConfig)
    governance: GovernanceConfig = field(default_factory=GovernanceConfig)
    knowledge: KnowledgeConfig = field(default_factory=KnowledgeConfig)
    decay: DecayConfig = field(default_factory=DecayConfig)
    digest: DigestConfig = field(default_factory=DigestConfig)
    email: EmailConfig = field(default_factory=EmailConfig)
    consolidation: ConsolidationConfig = field(default_factory=ConsolidationConfig)
    exports: tuple[ExportTarget, ...] = ()
    raw: dict[str, Any] = field(default_factory=dict)


_SECTIONS: dict[str, type] = {
    "capture": CaptureConfig,
    "search": SearchConfig,
    "governance": GovernanceConfig,
    "knowledge": KnowledgeConfig,
    "decay": DecayConfig,
    "digest": DigestConfig,
    "email": EmailConfig,
    "consolidation": ConsolidationConfig,
}


def _build(cls: type, data: Any, where: str, path: Path, skip: tuple[str, ...] = ()) -> Any:
    if not isinstance(data, dict):
        raise UsageError(f"{path}: [{where}] must be a table")
    known = {k for k in cls.__dataclass_fields__ if k not in skip}
    data = {k: v for k, v in data.items() if k not in skip}
    unknown = sorted(set(data) - known)
    if unknown:
        raise UsageError(f"{path}: unknown key(s) in [{where}]: {', '.join(unknown)}")
    values = {}
    for key, value in data.items():
        default = cls.__dataclass_fields__[key].default
        if isinstance(default, bool) and not isinstance(value, bool):
            raise UsageError(f"{path}: [{where}] {key} must be true or false")
        if isinstance(default, (int, float)) and not isinstance(default, bool):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
                raise UsageError(f"{path}: [{where}] {key} must be a non-negative number")
            value = type(default)(value)
        if isinstance(default, tuple) or str(cls.__dataclass_fields__[key].type).startswith("tuple"):
            if isinstance(value, str):
                value = [value]  # `to = "a@b.c"`: one item, not one per character
            elif not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise UsageError(f"{path}: [{where}] {key} must be a list of strings")
        elif str(cls.__dataclass_fields__[key].type) in ("str", "str | None") and not isinstance(value, str):
            raise UsageError(f"{path}: [{where}] {key} must be a string")
        values[key] = tuple(value) if isinstance(value, list) else value
    return cls(**values)


def _llm(raw: dict[str, Any], path: Path) -> LLMConfig:
    data = raw.get("llm", {})
    subs = ("anthropic", "openai", "ollama", "prices")
    cfg: LLMConfig = _build(LLMConfig, data, "llm", path, skip=("providers", *subs))
    if cfg.provider not in PROVIDERS:
        raise UsageError(
            f"{path}: [llm] provider must be one of {', '.join(PROVIDERS)}, not {cfg.provider!r}"
        )
    providers = dict(_PROVIDER_DEFAULTS)
    for name in ("anthropic", "openai", "ollama"):
        if name in data:
            base = _PROVIDER_DEFAULTS[name]
            given = _build(ProviderConfig, data[name], f"llm.{name}", path)
            providers[name] = ProviderConfig(
                api_key_env=given.api_key_env or base.api_key_env,
                base_url=given.base_url or base.base_url,
                model=given.model,
            )
    if cfg.provider in ("openai", "ollama") and "model" not in data and not providers[cfg.provider].model:
        raise UsageError(
            f"{path}: [llm] provider = {cfg.provider!r} needs a model: set [llm] model "
            f"(the default {cfg.model!r} is an Anthropic model)"
        )
    prices: dict[str, tuple[float, float]] = {}
    table = data.get("prices") or {}
    if not isinstance(table, dict):
        raise UsageError(f"{path}: [llm.prices] must be a table of model = [input, output]")
    for model, pair in table.items():
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, (int, float)) for p in pair)):
            raise UsageError(f"{path}: [llm.prices] {model} must be [input, output] USD per million tokens")
        prices[model] = (float(pair[0]), float(pair[1]))
    return LLMConfig(**{**cfg.__dict__, "providers": providers, "prices": prices})


def load(path: Path | None = None) -> Config:
    """Read config.toml; a missing file means defaults, a broken one a clear error."""
    path = path or paths.config_file()
    if not path.exists():
        return Config(path=path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML ({exc})") from None
    return from_text(text, path)


def from_text(text: str, path: Path) -> Config:
    """Parse and check config.toml's text; `path` names it in errors."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML ({exc})") from None
    sections = {name: _build(cls, raw.get(name, {}), name, path) for name, cls in _SECTIONS.items()}
    email: EmailConfig = sections["email"]
    if email.security not in ("starttls", "ssl", "none"):
        raise UsageError(f"{path}: [email] security must be starttls, ssl or none")
    _check_patterns(sections["capture"], path)
    search: SearchConfig = sections["search"]
    if search.mode not in SEARCH_MODES:
        raise UsageError(f"{path}: [search] mode must be keyword, hybrid or dense (got {search.mode!r})")
    kn: KnowledgeConfig = sections["knowledge"]
    if not 0 < kn.supersede_review <= kn.supersede_auto <= 1:
        raise UsageError(
            f"{path}: [knowledge] needs 0 < supersede_review <= supersede_auto <= 1 "
            f"(got {kn.supersede_review:g} and {kn.supersede_auto:g})"
        )
    if "schedule" in raw:  # checked at load, so a bad line is reported where it was written
        from memoryd import schedule

        try:
            schedule.jobs(raw)
        except UsageError as exc:
            raise UsageError(f"{path}: {exc}") from None
    return Config(path=path, llm=_llm(raw, path), exports=_exports(raw, path), raw=raw, **sections)


def _check_patterns(capture: CaptureConfig, path: Path) -> None:
    """Each extra secret pattern compiles, checked at load: a bad one found later, by the
    first redaction that uses it, was an internal error with no word of where it came from."""
    import re

    for i, pattern in enumerate(capture.extra_secret_patterns):
        if not isinstance(pattern, str):
            raise UsageError(f"{path}: [capture] extra_secret_patterns[{i}] must be a string (a regex)")
        try:
            re.compile(pattern)
        except re.error as exc:
            raise UsageError(
                f"{path}: [capture] extra_secret_patterns[{i}] is not a valid regex: {exc} ({pattern!r})"
            ) from None


def _exports(raw: dict[str, Any], path: Path) -> tuple[ExportTarget, ...]:
    table = raw.get("exports", {})
    if not isinstance(table, dict):
        raise UsageError(f"{path}: [exports] must be a table")
    unknown = sorted(set(table) - {"markdown"})
    if unknown:
        raise UsageError(f"{path}: unknown key(s) in [exports]: {', '.join(unknown)}")
    items = table.get("markdown", [])
    if not isinstance(items, list):
        raise UsageError(f"{path}: [exports] markdown must be a list of {{ scope = ..., out = ... }}")
    out = []
    for i, item in enumerate(items, 1):
        where = f"[[exports.markdown]] entry {i}"
        if not isinstance(item, dict) or set(item) != {"scope", "out"}:
            raise UsageError(f'{path}: {where} needs exactly scope = "<project folder>" and out = "<folder>"')
        if not all(isinstance(item[k], str) and item[k].strip() for k in ("scope", "out")):
            raise UsageError(f"{path}: {where}: scope and out must be folder paths in quotes")
        out.append(ExportTarget(scope=item["scope"], out=item["out"]))
    return tuple(out)
