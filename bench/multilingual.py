"""Multilingual retrieval: with memories in nine languages in one store, does a question in
one language find the memory written in another?

Why: the bilingual set (bench/bilingual.py) holds English and Chinese, which differ in
writing system; users also write German, Spanish, Japanese, Korean... and a German memory
shares its alphabet with an English question but not its words. The set
(tests/data/multilingual/set.jsonl: 64 memories written by hand, blind to memoryd, 6 each in
German, French, Spanish, Portuguese, Italian, Russian, Japanese and Korean and 16 in
English, topics repeated across languages as near neighbours) is recorded through
`Memoryd.record` into one project of a throwaway home, as bench/bilingual.py does, and every
question is asked through `Memoryd.search` in each mode against all 64.

Groups of questions (the question's language -> the memory's):
  en->latin   an English question, a German, French, Spanish, Portuguese or Italian memory
  en->other   an English question, a Russian, Japanese or Korean memory
  zh->xx      a Chinese question, a memory in one of the eight languages
  xx->en      a question in one of the eight languages, an English memory
  across      all of the above
  same        a question in the memory's own language
Hit@k: the memory the question was written for is among the first k results. No target of
its own: issue 20's is the bilingual set's; this one shows whether what holds for Chinese and
English holds for other languages.

    python bench/multilingual.py [--split dev|held_out|all] [--show] [--json] [--write-docs]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "core"), str(REPO)]

from bench import bilingual  # noqa: E402

SET = REPO / "tests" / "data" / "multilingual" / "set.jsonl"
SPLITS = ("dev", "held_out")
MODES = bilingual.MODES
LATIN = ("de", "fr", "es", "pt", "it")
GROUPS = ("en->latin", "en->other", "zh->xx", "xx->en")
TITLE = "## Multilingual retrieval (issue 20)"


@dataclass(frozen=True)
class Row:
    id: str
    split: str
    lang: str
    domain: str
    type: str
    title: str
    body: str
    q_en: str
    q_same: str
    q_other: str
    q_other_lang: str


def rows(path: Path = SET) -> list[Row]:
    return [Row(**json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def asks(items: list[Row]) -> list[tuple[Row, str, str]]:
    """(memory, group, question) for every question of the set."""
    out = []
    for r in items:
        if r.lang == "en":
            out += [(r, "same", r.q_en), (r, "same", r.q_same), (r, "xx->en", r.q_other)]
        else:
            out += [
                (r, "en->latin" if r.lang in LATIN else "en->other", r.q_en),
                (r, "zh->xx", r.q_other),
                (r, "same", r.q_same),
            ]
    return out


def measure(split: str = "all", limit: int = 3) -> dict[str, Any]:
    items = rows()
    with bilingual.home() as (app, project):
        bilingual.check_api(app)
        slugs, setup = bilingual.record(app, project, items)  # type: ignore[arg-type]
        scope = [app.scope(project).hash]
        results = []
        for row, group, question in asks(items):
            if split != "all" and row.split != split:
                continue
            got = {
                mode: [
                    h.slug
                    for h in app.search(question, scopes=scope, limit=limit, count_recall=False, mode=mode)
                ]
                for mode in MODES
            }
            results.append(
                {
                    "id": row.id,
                    "split": row.split,
                    "group": group,
                    "question": question,
                    "want": slugs[row.id],
                    "got": got,
                }
            )
    names = {v: k for k, v in slugs.items()}
    return {"setup": setup, "table": table(results), "misses": misses(results, names), "asks": len(results)}


def table(results: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """split -> group -> n and per mode top-1 / top-3."""
    groups = {**{g: (g,) for g in GROUPS}, "across": GROUPS, "same": ("same",)}
    return bilingual.table(results, groups, field="group", pooled={})


def misses(results: list[dict[str, Any]], names: dict[str, str]) -> list[dict[str, Any]]:
    """Hybrid top-3 misses, with what came first instead."""
    return bilingual.misses(results, names, field="group")


def print_report(r: dict[str, Any], show: bool) -> None:
    s = r["setup"]
    print(f"multilingual set: {len(rows())} memories recorded in {s['record_s']} s; model {s['model']}")
    print("hit rate, % (top-1 / top-3), every question against all 64 memories of one project")
    bilingual.print_table(r["table"], "group")
    if show:
        bilingual.print_misses(r["misses"], "group")


def write_docs(r: dict[str, Any], commit: str, prose: list[str]) -> Path:
    """The "Multilingual retrieval" section of docs/benchmarks.md: this run's figures, then
    the paragraphs already there after the table (written by hand, kept)."""
    from bench import _common as c

    lines = [
        TITLE,
        "",
        f"`python bench/multilingual.py --show` (at {commit}): the hand-written set "
        "`tests/data/multilingual/set.jsonl`, 64 memories written blind to memoryd (6 each in "
        "German, French, Spanish, Portuguese, Italian, Russian, Japanese and Korean, 16 in "
        "English; coding and everyday life, topics repeated across languages: ten services' "
        "databases, eight allergies, five cars, five tax returns...), each with a question in "
        "English, one in its own language and one in a third (Chinese for the eight, one of the "
        "eight for English memories). Recorded and asked as in the bilingual section "
        f"(model {r['setup']['model']}); cells: top-1 / top-3, %.",
        "",
        "| split | group | n | keyword | hybrid | dense |",
        "|---|---|---|---|---|---|",
    ]
    lines += bilingual.doc_rows(r["table"], (*SPLITS, "all"))
    while prose and not prose[-1].strip():
        prose = prose[:-1]
    lines += ["", *prose, ""]
    return c.write_section(TITLE, lines, before="## LoCoMo")


def kept_prose() -> list[str]:
    """The hand-written paragraphs after this section's table, to keep across runs."""
    docs = REPO / "docs" / "benchmarks.md"
    text = docs.read_text(encoding="utf-8") if docs.exists() else ""
    if TITLE not in text:
        return []
    body = text.split(TITLE, 1)[1].split("\n## ", 1)[0].splitlines()
    after = [i for i, line in enumerate(body) if line.startswith("|")]
    return [line for line in body[after[-1] + 2 :]] if after else []


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--split", choices=(*SPLITS, "all"), default="all")
    ap.add_argument("--show", action="store_true", help="list the hybrid top-3 misses")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--write-docs", action="store_true", help="write the section of docs/benchmarks.md")
    args = ap.parse_args(argv)
    r = measure("all" if args.write_docs else args.split)
    if args.write_docs:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO
        )
        write_docs(r, head.stdout.strip() or "?", kept_prose())
    if args.json:
        print(json.dumps(r, ensure_ascii=False, indent=2))
    else:
        print_report(r, args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
