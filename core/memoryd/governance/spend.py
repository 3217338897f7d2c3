"""LLM spend: every call's tokens are written down, the daily budget is checked before
a call, and today's and this month's totals are reported (stats, digest)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from memoryd import clock
from memoryd.config import LLMConfig
from memoryd.db.engine import read_session, write_session
from memoryd.llm import pricing
from memoryd.llm.base import Usage
from memoryd.store import Store
from memoryd.store import governance as sql


@dataclass(frozen=True)
class Period:
    calls: int
    tokens: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    unpriced_calls: int


@dataclass(frozen=True)
class SpendReport:
    today: Period
    month: Period
    daily_budget: int

    @property
    def left_today(self) -> int:
        return max(0, self.daily_budget - self.today.tokens)

    def as_dict(self) -> dict[str, Any]:
        return {
            "today": asdict(self.today),
            "month": asdict(self.month),
            "daily_budget": self.daily_budget,
            "left_today": self.left_today,
        }


def record(
    store: Store, cfg: LLMConfig, *, provider: str, model: str, task: str, usage: Usage, ok: bool
) -> None:
    now = clock.now()
    with write_session(store.engine) as s:
        sql.record_usage(
            s,
            {
                "ts": clock.iso(now),
                "day": now.strftime("%Y-%m-%d"),
                "provider": provider,
                "model": model,
                "task": task,
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "cost_usd": pricing.cost(provider, model, usage, cfg.prices),
                "outcome": "ok" if ok else "error",
            },
        )


def tokens_today(store: Store) -> int:
    with read_session(store.engine) as s:
        return int(sql.usage_since(s, clock.now().strftime("%Y-%m-%d"))["tokens"])


def report(store: Store, cfg: LLMConfig) -> SpendReport:
    now = clock.now()
    with read_session(store.engine) as s:
        today = sql.usage_since(s, now.strftime("%Y-%m-%d"))
        month = sql.usage_since(s, now.strftime("%Y-%m-01"))
    return SpendReport(Period(**today), Period(**month), cfg.daily_token_budget)


def describe(rep: SpendReport) -> list[str]:
    """Two lines people read in `stats` and the digest."""

    def cost(p: Period) -> str:
        if p.cost_usd is None:
            return "cost unknown"
        text = f"~${p.cost_usd:.2f}"
        return text + (f", {p.unpriced_calls} call(s) unpriced" if p.unpriced_calls else "")

    return [
        f"LLM today: {rep.today.tokens:,} tokens in {rep.today.calls} call(s) ({cost(rep.today)}); "
        f"daily budget {rep.daily_budget:,}, {rep.left_today:,} left",
        f"LLM this month: {rep.month.tokens:,} tokens in {rep.month.calls} call(s) ({cost(rep.month)})",
    ]


def ask(store: Store, cfg: LLMConfig, provider: Any, prompt: Any, schema: Any, task: str) -> Any:
    """One budgeted LLM call with its tokens on the ledger, for the one-shot tasks (identity
    rewrite, change report): the reply, or a string saying why there is none."""
    from memoryd.llm import tokens
    from memoryd.llm.base import LLMError

    spent = tokens_today(store)
    expected = tokens.estimate(prompt.system + prompt.user) + prompt.max_output_tokens
    if spent + expected > cfg.daily_token_budget:
        return f"daily token budget spent ({spent:,} of {cfg.daily_token_budget:,} tokens)"
    try:
        reply = provider.generate_json(prompt, schema)
    except LLMError as exc:
        record(store, cfg, provider=provider.name, model=provider.model, task=task, usage=exc.usage, ok=False)
        return f"the LLM failed: {exc}"
    record(store, cfg, provider=provider.name, model=provider.model, task=task, usage=reply.usage, ok=True)
    return reply
