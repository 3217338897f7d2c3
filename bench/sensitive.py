"""Sensitive scopes: how long marking a 1,000-memory scope takes, and what encryption
costs a read.

Why: marking is the one-off cost a user pays when they decide a project is sensitive
(encrypt every file, rename slugs, rewrite the audit log, compact SQLite), and reads
under a grant are what agents then pay every time. Reported against the same scope read
in plaintext, measured in the same run.

Each mark runs on a fresh copy of a store holding one 1,000-memory scope (synthetic,
bilingual, sessions with raw turns: bench/corpus.py) plus 1,000 memories elsewhere,
with a passphrase key (scrypt n=2^15 included; no keyring needed). Reads: every memory
of the scope through the store (`Store.read`: file read + decrypt + YAML parse), and
through the facade's `get` under a grant (gate, audit and recall bookkeeping included).

    python bench/sensitive.py [--quick] [--runs N] [--json]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import _common as c
import corpus

from memoryd import paths
from memoryd.app import Memoryd
from memoryd.scope import resolve
from memoryd.sensitive import grants
from memoryd.store import Store

PASSPHRASE = "bench passphrase, not a secret"


def build(base: Path, n: int) -> tuple[Path, Path]:
    """A home with one project scope of n memories and n more in another scope."""
    home, proj, other = base / "home", base / "proj", base / "other"
    for d in (proj, other):
        d.mkdir(parents=True)
    h_proj, h_other = resolve(proj).hash, resolve(other).hash
    os.environ["MEMORYD_HOME"] = str(home)
    store = Store.open(paths.layout())
    gen = corpus.Generator(seed=7, n_scopes=2)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    docs = [gen.memory(i, [h_proj, h_other], start) for i in range(4 * n)]
    mine = [d for d in docs if d[0].meta.scope_hash == h_proj][:n]
    rest = [d for d in docs if d[0].meta.scope_hash == h_other][:n]
    store.save_many(mine + rest, actor="bench")
    return home, proj


def timed(fn: Any) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def read_all(app: Memoryd, slugs: list[str], *, facade: bool) -> float:
    def run() -> None:
        for s in slugs:
            if facade:
                app.get(s, actor="bench")
            else:
                app.store.read(s)

    return timed(run)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--runs", type=int, default=1, help="marks on fresh copies (run_all repeats the script)")
    args = ap.parse_args()
    n = 200 if args.quick else 1000
    runs = args.runs
    base = c.temp_dir("sensitive")
    try:
        home, proj = build(base / "src", n)
        marks: list[float] = []
        audit_rewritten = encrypted = 0
        plain_store: list[float] = []
        plain_get: list[float] = []
        enc_store: list[float] = []
        enc_get: list[float] = []
        for r in range(runs):
            work = base / f"run{r}"
            shutil.copytree(home, work / "home")
            os.environ["MEMORYD_HOME"] = str(work / "home")
            os.environ["MEMORYD_CONFIG"] = str(work / "none.toml")
            app = Memoryd()
            h = resolve(proj).hash
            slugs = [row["slug"] for row in app.store.list(scopes=[h])]
            plain_store.append(read_all(app, slugs, facade=False))
            plain_get.append(read_all(app, slugs, facade=True))
            (proj / ".memoryd-sensitive").unlink(missing_ok=True)
            t = timed(lambda app=app: app.mark_sensitive(proj, passphrase=PASSPHRASE, actor="bench"))
            marks.append(t)
            app = Memoryd()
            app.grant(proj, duration="session", passphrase=PASSPHRASE, actor="bench")
            h = resolve(proj).hash
            slugs = [row["slug"] for row in app.store.list(scopes=[h])]
            encrypted = len(slugs)
            assert encrypted == n, encrypted
            enc_store.append(read_all(app, slugs, facade=False))
            enc_get.append(read_all(app, slugs, facade=True))
            grants.revoke(app.layout, h, None)
            audit_rewritten = sum(1 for e in app.store.audit.events() if e.event_type == "audit_redacted")
            (proj / ".memoryd-sensitive").unlink(missing_ok=True)
            shutil.rmtree(work)

        def per_s(times: list[float]) -> float:
            return round(n / statistics.median(times), 1)

        result = {
            "memories_in_scope": n,
            "memories_elsewhere": n,
            "runs": runs,
            "mark_s_median": round(statistics.median(marks), 3),
            "mark_s_all": [round(x, 3) for x in marks],
            "audit_redacted_events": audit_rewritten,
            "read_per_s": {
                "store_plain": per_s(plain_store),
                "store_encrypted": per_s(enc_store),
                "get_plain": per_s(plain_get),
                "get_encrypted_under_grant": per_s(enc_get),
            },
            "read_ms_per_memory": {
                "store_plain": round(1000 * statistics.median(plain_store) / n, 3),
                "store_encrypted": round(1000 * statistics.median(enc_store) / n, 3),
                "get_plain": round(1000 * statistics.median(plain_get) / n, 3),
                "get_encrypted_under_grant": round(1000 * statistics.median(enc_get) / n, 3),
            },
        }
    finally:
        shutil.rmtree(base, ignore_errors=True)

    def text() -> None:
        print(f"mark-sensitive, {n} memories: {result['mark_s_median']} s (median of {runs})")
        for k, v in result["read_per_s"].items():
            print(f"  {k:<28} {v:>8} memories/s  ({result['read_ms_per_memory'][k]} ms each)")

    return c.finish(result, args.json, text)


if __name__ == "__main__":
    raise SystemExit(main())
