"""Bilingual retrieval: does a question in one language find a memory written in the other?

Why: half of what our users write is Chinese, and keyword search cannot match a Chinese
question to an English memory. Two sets written by hand, half English, half Chinese, with
near-neighbour distractors: tests/data/bilingual/set.jsonl (64 memories, split dev and
held_out) and set2.jsonl (48, held_out2, written later by another writer blind to memoryd).
Each set is recorded through the product path, `Memoryd.record`, into one project of its
own throwaway home; the vectors are made as the worker makes them (`Store.embed_vectors`).
Every question is then asked through `Memoryd.search` in that project, in each mode,
against all of its set's memories; only the questions of the split are counted.

Directions: zh->en (a Chinese question, an English memory), en->zh, en->en, zh->zh.
Hit@k: the memory the question was written for is among the first k results.
Targets (issue 20): top-3 across languages >= 90% in hybrid mode, and on same-language
questions hybrid loses nothing against keyword search. They are judged on `untuned`, every
question no choice was tuned on (held_out and held_out2 together), and shown per split.

    python bench/bilingual.py [--split dev|held_out|held_out2|all] [--show] [--json] [--write-docs]
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SET = REPO / "tests" / "data" / "bilingual" / "set.jsonl"
SET2 = SET.with_name("set2.jsonl")
SETS = (SET, SET2)
SPLITS = ("dev", "held_out", "held_out2")
# Every question no choice was tuned on: the target is judged on these together.
UNTUNED = ("held_out", "held_out2")
MODES = ("keyword", "hybrid", "dense")
DIRECTIONS = ("zh->en", "en->zh", "en->en", "zh->zh")
CROSS = ("zh->en", "en->zh")
SAME = ("en->en", "zh->zh")
TARGET_CROSS_TOP3 = 0.90


@dataclass(frozen=True)
class Row:
    id: str
    split: str
    lang: str
    domain: str
    type: str
    title: str
    body: str
    q_cross: str
    q_same: str


@dataclass(frozen=True)
class Ask:
    row: Row
    direction: str
    question: str


def rows(path: Path = SET) -> list[Row]:
    return [Row(**json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def asks(items: list[Row]) -> list[Ask]:
    out = []
    for r in items:
        other = "zh" if r.lang == "en" else "en"
        out.append(Ask(r, f"{other}->{r.lang}", r.q_cross))
        out.append(Ask(r, f"{r.lang}->{r.lang}", r.q_same))
    return out


@contextmanager
def home() -> Iterator[tuple[Any, Path]]:
    """A throwaway memoryd home and one project folder, with no user config read."""
    from memoryd.app import Memoryd
    from memoryd.config import Config
    from memoryd.paths import Layout

    with tempfile.TemporaryDirectory(prefix="memoryd-bilingual-") as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        app = Memoryd(layout=Layout(Path(tmp) / "home"), config=Config())
        try:
            yield app, project
        finally:
            app.store.engine.dispose()


def check_api(app: Any) -> None:
    if "mode" not in inspect.signature(app.search).parameters:
        raise SystemExit("this memoryd has no search modes yet (Memoryd.search takes no mode=)")


def record(app: Any, project: Path, items: list[Row]) -> tuple[dict[str, str], dict[str, Any]]:
    """Each row through `Memoryd.record`, then the vectors `record` left to the worker."""
    from memoryd import embed

    warned: list[str] = []
    embedder = embed.load(app.config, warned.append)
    if embedder is None:
        raise SystemExit(f"no embedding model: {'; '.join(warned) or 'embedding_model is none'}")
    slugs: dict[str, str] = {}
    t0 = time.perf_counter()
    for r in items:
        doc, _ = app.record(r.type, r.title, r.body, scope_path=project, actor="bench")
        slugs[r.id] = doc.meta.slug
    recorded = time.perf_counter() - t0
    vectors = app.store.vectors
    left = vectors.missing(embed.tag(embedder))
    t1 = time.perf_counter()
    done = app.store.embed_vectors(embedder) if left else 0
    return slugs, {
        "model": embed.tag(embedder),
        "record_s": round(recorded, 2),
        "left_to_worker": left,
        "embedded_after": done,
        "embed_after_s": round(time.perf_counter() - t1, 2),
    }


def measure(split: str = "all", limit: int = 3) -> dict[str, Any]:
    """Each set in a home of its own (a set's distractors are its own), results together."""
    results: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    setup: dict[str, Any] = {}
    for path in SETS:
        items = [r for r in rows(path) if split in ("all", r.split)]
        if not items:
            continue
        got, found, setup[path.name] = _measure_set(rows(path), split, limit)
        results += got
        names.update(found)
    return {"setup": setup, "table": table(results), "misses": misses(results, names), "asks": len(results)}


def _measure_set(
    items: list[Row], split: str, limit: int
) -> tuple[list[dict[str, Any]], dict[str, str], dict[str, Any]]:
    """One set's questions of `split`, asked against all of the set's memories."""
    with home() as (app, project):
        check_api(app)
        slugs, setup = record(app, project, items)
        scope = [app.scope(project).hash]
        results: list[dict[str, Any]] = []
        for a in asks(items):
            if split != "all" and a.row.split != split:
                continue
            got = {}
            for mode in MODES:
                hits = app.search(a.question, scopes=scope, limit=limit, count_recall=False, mode=mode)
                got[mode] = [h.slug for h in hits]
            results.append(
                {
                    "id": a.row.id,
                    "split": a.row.split,
                    "direction": a.direction,
                    "question": a.question,
                    "want": slugs[a.row.id],
                    "got": got,
                }
            )
    return results, {v: k for k, v in slugs.items()}, {**setup, "memories": len(items)}


def rate(rs: list[dict[str, Any]], mode: str, k: int) -> float | None:
    if not rs:
        return None
    return sum(r["want"] in r["got"][mode][:k] for r in rs) / len(rs)


def table(
    results: list[dict[str, Any]],
    groups: dict[str, tuple[str, ...]] | None = None,
    *,
    field: str = "direction",
    pooled: dict[str, tuple[str, ...]] | None = None,
) -> dict[str, dict[str, dict[str, Any]]]:
    """split -> group (each direction, 'across', 'same') -> n and per mode top-1 / top-3.
    `groups` name sets of a result's `field` (bench/multilingual.py groups its own);
    `pooled` names sets of splits counted together (default: `untuned`), then 'all'."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    if groups is None:
        groups = {**{d: (d,) for d in DIRECTIONS}, "across": CROSS, "same": SAME}
    seen = set(r["split"] for r in results)
    splits = [s for s in SPLITS if s in seen] + sorted(seen - set(SPLITS))
    pooled = {"untuned": UNTUNED} if pooled is None else pooled
    for split, counted in {**{s: (s,) for s in splits}, **pooled, "all": tuple(splits)}.items():
        part = [r for r in results if r["split"] in counted]
        if not part:
            continue
        out[split] = {}
        for name, members in groups.items():
            rs = [r for r in part if r[field] in members]
            out[split][name] = {"n": len(rs)} | {
                f"{mode}@{k}": rate(rs, mode, k) for mode in MODES for k in (1, 3)
            }
    return out


def misses(
    results: list[dict[str, Any]], names: dict[str, str], *, field: str = "direction"
) -> list[dict[str, Any]]:
    """Hybrid top-3 misses, with what came first instead."""
    return [
        {
            "split": r["split"],
            field: r[field],
            "id": r["id"],
            "question": r["question"],
            "hybrid_top3": [names.get(s, s) for s in r["got"]["hybrid"]],
        }
        for r in results
        if r["want"] not in r["got"]["hybrid"][:3]
    ]


def verdicts(tab: dict[str, dict[str, dict[str, Any]]]) -> dict[str, list[str]]:
    """Per split, and for the untuned splits together, the targets missed (empty: met)."""
    out: dict[str, list[str]] = {}
    for split in (*SPLITS, "untuned"):
        if split not in tab:
            continue
        t, failed = tab[split], []
        if (t["across"]["hybrid@3"] or 0) < TARGET_CROSS_TOP3:
            failed.append(f"across-language hybrid top-3 {t['across']['hybrid@3']:.1%} < 90%")
        for d in SAME:
            for k in (1, 3):
                if t[d][f"hybrid@{k}"] < t[d][f"keyword@{k}"]:
                    failed.append(
                        f"{d} hybrid top-{k} {t[d][f'hybrid@{k}']:.1%} < keyword {t[d][f'keyword@{k}']:.1%}"
                    )
        out[split] = failed
    return out


def pct(x: float | None) -> str:
    return "   -" if x is None else f"{100 * x:4.0f}"


def print_table(tab: dict[str, dict[str, dict[str, Any]]], label: str) -> None:
    """The hit-rate table, a block per split; `label` heads the group column."""
    head = f"{'split':<9}{label:<10}{'n':>3}  " + "  ".join(f"{m:>11}" for m in MODES)
    for split, groups in tab.items():
        print(head)
        for name, v in groups.items():
            cells = "  ".join(f"{pct(v[f'{m}@1'])} / {pct(v[f'{m}@3'])}" for m in MODES)
            print(f"{split:<9}{name:<10}{v['n']:>3}  {cells}")


def print_misses(found: list[dict[str, Any]], field: str) -> None:
    for m in found:
        print(f"  miss {m['split']:<8} {m[field]} {m['id']}: {m['question']!r} -> {m['hybrid_top3']}")


def doc_rows(tab: dict[str, dict[str, dict[str, Any]]], splits: tuple[str, ...]) -> list[str]:
    """The table's markdown rows for docs/benchmarks.md, the summary groups in bold."""
    out = []
    for split in splits:
        for name, v in tab[split].items():
            cells = " | ".join(f"{pct(v[f'{m}@1']).strip()} / {pct(v[f'{m}@3']).strip()}" for m in MODES)
            bold = "**" if name in ("across", "same") else ""
            out.append(f"| {split} | {bold}{name}{bold} | {v['n']} | {cells} |")
    return out


def print_report(r: dict[str, Any], show: bool) -> None:
    for name, s in r["setup"].items():
        print(
            f"{name}: {s['memories']} memories recorded in {s['record_s']} s; model {s['model']}; "
            f"{s['left_to_worker']} texts left to the worker, embedded after in {s['embed_after_s']} s"
        )
    print("hit rate, % (top-1 / top-3), every question against all memories of its set, one project")
    print_table(r["table"], "direction")
    for split, failed in verdicts(r["table"]).items():
        print(f"targets on {split}: {'met' if not failed else 'MISSED: ' + '; '.join(failed)}")
    if show:
        print_misses(r["misses"], "direction")


# What the across-language misses came from and what changed (issue20-lang): prose, kept by
# --write-docs with the figures of the run above it.
WHY = [
    "Where the across-language misses came from, and what changed. At 6ce43b1 hybrid top-3 "
    "across languages was 72% (dev) and 88% (held-out), below dense alone (81% / 88%). A side "
    "measurement with the same model, texts (`embed/texts.py`) and fusion function, outside the "
    "product, told the parts apart: the model alone, every memory ranked by its best window's "
    "cosine with no floor, put the target in the top 3 for 28 of 32 (dev) and 29 of 32 "
    "(held-out) across-language questions. Then `search.DENSE_FLOOR` = 0.2 dropped a dense "
    "candidate below that cosine, and 7 of the 64 across-language targets scored 0.13-0.19 "
    "against their question; and the keyword part (0.3 after min-max, 0 where keyword search "
    "did not match) lifted memories in the question's own language that shared a word with it "
    "(数据库, 支付接口, 日志) above the memory in the other language the question was about, "
    "which keyword search can never match. Two changes, tuned on the dev split only (held-out "
    "measured once, after): (1) `fusion.fuse(..., blind=...)`: a memory written in another "
    "script than the question (`fusion.script`: the writing system most of its title is in) "
    "that keyword search did not match gets its dense part as its keyword part, since keyword "
    "search has no evidence about it either way; when keyword search matched nothing at all, "
    "it has no say for any candidate. (2) Level-1 dense candidates need cosine 0.16 "
    "(`search.MEMORY_FLOOR`) instead of 0.2: eight off-topic questions written for the "
    "measurement (banana bread, the weather in Paris, football, a film, Everest, quantum "
    "computers, guitar, cats; half in Chinese) reached at most 0.10-0.158 against this set, "
    "except 猫为什么喜欢睡觉 (0.33); turns (level 2) keep 0.2, which LoCoMo was measured with. "
    "On the dev split, in the side measurement: (1) alone 88% (the floor still drops the "
    "targets under 0.2), (1) and (2) 91%, (1) with no floor 94%. Weighed and not taken: "
    "centring the cosines per memory language (each minus the mean of its language's 10 best "
    "cosines for the query) lifted dense alone to 91% on both splits, but with (1) it took "
    "dev from 94% to 91% (no floor), and principled means would be per-script means of the "
    "stored vectors, which the store does not keep; a floor relative to the best cosine "
    "(within 0.1) also gave 94% on dev, but a question about nothing stored would then always "
    "find its nearest neighbour."
    " Held-out, measured once after these changes: top-3 across languages 88% (28 of 32) as "
    "before, top-1 59% -> 78%; three of its four misses are questions whose memory the model "
    "itself ranks 9th, 10th and 40th, and the fourth (what did my annual physical show?) is "
    "the model's second at cosine 0.148, under the floor. Nothing was changed after seeing it, "
    "so the held-out target stays missed by one question.",
    "",
    "A second held-out set (2026-11-28). Thirty-two questions judge a rate to about 6 points "
    "either way, and the first held-out half had been read by whoever tuned, through its "
    "misses listed here; so a second writer, shown only the format and the kind of notes "
    "memoryd keeps, wrote 48 more memories (`set2.jsonl`, `held_out2`), and before it was "
    "measured the rule was fixed that the target is judged on every untuned question "
    "together (held_out and held_out2, 80 across-language questions). Measured once, on the "
    "code of d94407b, before anything else changed: held_out2 across-language hybrid top-3 "
    "96% (46 of 48), same-language hybrid at or above keyword search; untuned together 92.5% "
    "(74 of 80). Its two misses are Chinese questions about English memories (the billing "
    "database, the on-call handoff) that rank Chinese memories on neighbouring subjects "
    "first, the kind the first set's misses are. Nothing was tuned on it.",
]


def write_docs(r: dict[str, Any], commit: str) -> Path:
    """The "Bilingual retrieval" section of docs/benchmarks.md, from this run."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import _common as c

    s = r["setup"]["set.jsonl"]
    s2 = r["setup"]["set2.jsonl"]
    lines = [
        "## Bilingual retrieval (issue 20)",
        "",
        f"`python bench/bilingual.py --show` (at {commit}): the hand-written set "
        "`tests/data/bilingual/set.jsonl`, 64 memories (32 English, 32 Simplified Chinese; coding "
        "decisions, preferences, warnings, playbooks and facts, and everyday life: health, travel, "
        "family, finance; several memories on each topic: three database decisions, two allergies, "
        "two fathers' medicines, two tax playbooks...). Each memory has a question in the other "
        "language and one in its own, phrased as people ask, not translated from the title; "
        "the set was written before any model ran on it. Every memory is recorded through "
        f"`Memoryd.record` into one project of a fresh home ({s['record_s']} s for 64, the model "
        f"{s['model']} warm, so `record` embedded inline: {s['left_to_worker']} texts were left "
        "to the worker), and every question is asked through `Memoryd.search(mode=...)` in that "
        "project against all 64. A second set, `tests/data/bilingual/set2.jsonl` (split "
        "`held_out2`), 48 memories (24 English, 24 Chinese, half coding, half everyday life, "
        "with its own near neighbours: two services' databases, two parents' medicines, two "
        "tax how-tos), was written on 2026-11-28 by another writer who saw neither memoryd "
        "nor the first set, and is recorded into a home of its own "
        f"({s2['record_s']} s for 48) and asked against its 48. Hit@k: the memory the "
        "question was written for is among the first k. Cells: top-1 / top-3, %; n questions "
        "per row; `untuned` is held_out and held_out2 together, every question no choice was "
        "tuned on, where the target is judged. `test_bilingual.py` asserts it.",
        "",
        "| split | direction | n | keyword | hybrid | dense |",
        "|---|---|---|---|---|---|",
    ]
    lines += doc_rows(r["table"], (*SPLITS, "untuned"))
    lines.append("")
    for split, failed in verdicts(r["table"]).items():
        verdict = "met." if not failed else "**missed**: " + "; ".join(failed) + "."
        lines.append(
            f"Targets on {split} (hybrid top-3 across languages >= 90%; same-language hybrid "
            f"top-1 and top-3 >= keyword): {verdict}"
        )
        lines.append("")
    lines += [*WHY, "", "Hybrid top-3 misses:", ""]
    for m in r["misses"]:
        lines.append(
            f"- {m['split']} {m['direction']} `{m['id']}`: {m['question']} -> {', '.join(m['hybrid_top3'])}"
        )
    lines.append("")
    return c.write_section("## Bilingual retrieval (issue 20)", lines, before="## LoCoMo")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=(*SPLITS, "all"), default="all")
    ap.add_argument("--show", action="store_true", help="list the hybrid top-3 misses")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--write-docs", action="store_true", help="write the section of docs/benchmarks.md")
    args = ap.parse_args(argv)
    r = measure("all" if args.write_docs else args.split)
    if args.write_docs:
        import subprocess

        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO
        )
        write_docs(r, head.stdout.strip() or "?")
    if args.json:
        print(json.dumps(r, ensure_ascii=False, indent=2))
    else:
        print_report(r, args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
