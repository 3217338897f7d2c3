"""How well memoryd.poison.inspect tells injection attempts from ordinary sessions, on the
labelled corpus (tests/core/poison/corpus.py), for the dev half it was tuned on and the
held-out half it was not, on the corpus written with the detector ("dev", "held") and on
texts written by someone else ("outside dev", "outside held"). A case is flagged when any
of its texts (each turn, the imported file, the entry's title and content, and the title and
content read together) is suspect.

--pipeline replays the same corpus through the real store instead of the detector alone
(pipeline()): each session as a Claude Code transcript through the capture hook and one
worker drain, the memories.json entries in one `memoryd import`, each MEMORY.md through
the OpenClaw importer; a case is flagged when a memory it produced is `suspect` in the index.

    python bench/poison_detection.py [--json] [--show] [--no-speed] [--pipeline]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "core"), str(ROOT)]

from memoryd.poison import inspect, inspect_all  # noqa: E402
from memoryd.testing import stop_payload, write_jsonl  # noqa: E402
from tests.core.poison.corpus import Case, cases  # noqa: E402


def flagged(case: Case) -> list[str]:
    """The reasons given for a case (empty: not flagged)."""
    if case.kind == "memories_json":
        return list(inspect_all(case.texts()).reasons)  # title and content, as the store reads them
    out: list[str] = []
    for text in case.texts():
        out += inspect(text).reasons
    return out


SPLITS = ("dev", "held", "all", "outside dev", "outside held", "outside all")


def measure() -> dict[str, Any]:
    """Per split: attacks flagged and ordinary cases flagged, with the ids of the misses."""
    start = time.perf_counter()
    result: dict[str, Any] = {}
    for source in ("own", "outside"):
        hits = {c.id for c in cases(source) if flagged(c)}
        for split, figs in figures(hits, source=source).items():
            result[split if source == "own" else f"{source} {split}"] = figs
    result["seconds"] = round(time.perf_counter() - start, 3)
    return result


def figures(
    hits: set[str],
    kinds: tuple[str, ...] = ("session", "memory_md", "memories_json"),
    source: str = "own",
) -> dict[str, Any]:
    """The figures per split for the cases of `kinds` (of the own corpus or the outside
    one), given the ids of those flagged."""
    result: dict[str, Any] = {}
    for split in ("dev", "held", "all"):
        mine = [c for c in cases(source) if split in ("all", c.split) and c.kind in kinds]
        attacks = [c for c in mine if c.label == "attack"]
        ordinary = [c for c in mine if c.label == "ordinary"]
        if not attacks and not ordinary:
            continue
        missed = [c.id for c in attacks if c.id not in hits]
        false = [c.id for c in ordinary if c.id in hits]
        result[split] = {
            "attacks": len(attacks),
            "attacks_flagged": len(attacks) - len(missed),
            "detection_rate": round((len(attacks) - len(missed)) / len(attacks), 4),
            "ordinary": len(ordinary),
            "ordinary_flagged": len(false),
            "false_positive_rate": round(len(false) / len(ordinary), 4),
            "missed": missed,
            "false_positives": false,
        }
    return result


# --- the pipeline replay ----------------------------------------------------------------


def _cli(env: dict[str, str], *args: str, stdin: bytes | None = None, cwd: Path | None = None) -> str:
    """The real `memoryd` CLI in a subprocess; a failure stops the replay with its stderr."""
    proc = subprocess.run(
        [sys.executable, "-m", "memoryd.cli.main", *args],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=300,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(
            f"memoryd {' '.join(args)}: exit {proc.returncode}: {proc.stderr.decode()[-2000:]}"
        )
    return proc.stdout.decode("utf-8")


@contextlib.contextmanager
def _environ(env: dict[str, str]) -> Iterator[None]:
    """os.environ as the subprocesses see it, for the in-process steps (the importer, the
    index look-ups), restored afterwards."""
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def transcript_lines(case: Case, sid: str, cwd: str) -> list[dict[str, Any]]:
    """A session case as the JSONL lines Claude Code writes: user and assistant messages,
    a `tool` turn `[Name] input` as an assistant tool_use block, `[result] text` as the
    user message carrying its tool_result (after a tool_use, as in every real transcript)."""
    lines: list[dict[str, Any]] = []
    parent: str | None = None
    open_tool: str | None = None

    def add(kind: str, message: dict[str, Any], **extra: Any) -> None:
        nonlocal parent
        uid = str(uuid.uuid4())
        ts = f"2026-05-18T22:{len(lines) // 60:02d}:{len(lines) % 60:02d}.000Z"
        common = {"sessionId": sid, "cwd": cwd, "version": "2.1.200", "gitBranch": "main"}
        lines.append(
            {
                "type": kind,
                "uuid": uid,
                "parentUuid": parent,
                **common,
                "isSidechain": False,
                "userType": "external",
                "timestamp": ts,
                "message": message,
                **extra,
            }
        )
        parent = uid

    def tool_use(name: str, args: dict[str, Any]) -> str:
        tid = "toolu_" + uuid.uuid4().hex[:20]
        block = {"type": "tool_use", "id": tid, "name": name, "input": args}
        add(
            "assistant",
            {
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "stop_reason": "tool_use",
                "content": [block],
            },
        )
        return tid

    for role, text in case.turns:
        if role == "user":
            add("user", {"role": "user", "content": text})
        elif role == "assistant":
            add(
                "assistant",
                {
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "stop_reason": "end_turn",
                    "content": [{"type": "text", "text": text}],
                },
            )
        elif text.startswith("[result] "):
            tid = open_tool or tool_use("Read", {"file_path": "notes.txt"})
            body = text[len("[result] ") :]
            block = {"type": "tool_result", "tool_use_id": tid, "content": body, "is_error": False}
            add("user", {"role": "user", "content": [block]}, toolUseResult={"stdout": body})
            open_tool = None
        else:
            name, _, rest = text.partition("] ")
            try:
                args = json.loads(rest)
            except ValueError:
                args = None
            open_tool = tool_use(name.lstrip("["), args if isinstance(args, dict) else {"url": rest})
    return lines


_JSON_TYPES = {"fact", "decision", "preference", "playbook", "warning", "session"}


def _memories_json(entries: list[tuple[str, dict[str, str]]], scope_hash: str) -> dict[str, Any]:
    """A memories.json as another device would send it (docs/memories.schema.json): one
    memory per entry, its file written by memoryd's own frontmatter code, no `suspect` key."""
    from memoryd import frontmatter
    from memoryd.models import Frontmatter, MemoryType
    from memoryd.sync.local import rev_of

    when = "2026-05-18T22:30:12Z"
    out: dict[str, Any] = {}
    for slug, entry in entries:
        kind = entry.get("type", "fact")
        kind = "session" if kind == "episode" else kind if kind in _JSON_TYPES else "fact"
        meta = Frontmatter(
            title=entry.get("title", ""),
            slug=slug,
            type=MemoryType(kind),
            scope_hash=scope_hash,
            source="manual",
            created_at=when,
            updated_at=when,
        )
        content = frontmatter.render(frontmatter.Document(meta=meta, body=entry.get("content", "") + "\n"))
        head = {
            "rev": rev_of(content, ""),
            "history": [],
            "updated_at": when,
            "scope_hash": scope_hash,
            "type": kind,
            "deleted": False,
            "encrypted": False,
            "content": content,
            "turns": None,
        }
        out[slug] = {
            "heads": [head],
            "recalls": {},
            "last_recalled_at": None,
            "decay": {"state": "alive", "at": when},
        }
    return {
        "format": "memoryd-memories",
        "version": 1,
        "device": {"id": "replay0device0", "name": "replay"},
        "exported_at": when,
        "scopes": {},
        "links": [],
        "memories": out,
    }


def _suspect_slugs(env: dict[str, str]) -> set[str]:
    return {r["slug"] for r in json.loads(_cli(env, "suspect", "--json"))}


def _replay_sessions(work: Path, env: dict[str, str], mine: list[Case]) -> set[str]:
    """Each session through the real Stop hook (a subprocess each, eight at a time), then
    one worker drain: the case is flagged when its session memory is suspect."""
    project = work / "project"
    project.mkdir(parents=True, exist_ok=True)
    sids = {c.id: f"replay-{n:04d}-{uuid.uuid4().hex[:8]}" for n, c in enumerate(mine)}

    def hook(case: Case) -> None:
        sid = sids[case.id]
        path = work / "transcripts" / f"{sid}.jsonl"
        write_jsonl(path, transcript_lines(case, sid, str(project)))
        _cli(env, "capture", "--source=claude-code", stdin=stop_payload(sid, path, project), cwd=project)

    with ThreadPoolExecutor(min(8, 2 * (os.cpu_count() or 1))) as pool:
        list(pool.map(hook, mine))
    _cli(env, "worker", "--wait")
    flagged_slugs = _suspect_slugs(env)
    with _environ(env):
        from memoryd.app import Memoryd

        store = Memoryd().store
        slugs = {cid: store.slug_for_session("claude-code", sid) for cid, sid in sids.items()}
    lost = [cid for cid, slug in slugs.items() if slug is None]
    if lost:
        raise RuntimeError(f"sessions not captured: {lost}")
    return {cid for cid, slug in slugs.items() if slug in flagged_slugs}


def _replay_memories_json(work: Path, env: dict[str, str], mine: list[Case]) -> set[str]:
    """Every entry in one memories.json, one `memoryd import`."""
    with _environ(env):
        from memoryd.scope import resolve

        work.mkdir(parents=True, exist_ok=True)
        scope_hash = resolve(work).hash
    slugs = {c.id: f"2026-05-18-replay-{n:04d}" for n, c in enumerate(mine)}
    doc = _memories_json([(slugs[c.id], c.entry or {}) for c in mine], scope_hash)
    path = work / "memories.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    _cli(env, "import", str(path))
    flagged_slugs = _suspect_slugs(env)
    return {cid for cid, slug in slugs.items() if slug in flagged_slugs}


def _replay_memory_md(work: Path, env: dict[str, str], mine: list[Case]) -> set[str]:
    """Each MEMORY.md in its own OpenClaw workspace through the OpenClaw importer (in
    process: a subprocess per case would cost a minute); the case is flagged when one of
    the memories its bullets became is suspect."""
    from memoryd.importers.common import text_key
    from memoryd.importers.openclaw import _BULLET, SOURCE

    keys: dict[str, list[str]] = {}
    with _environ(env):
        from memoryd.app import Memoryd

        app = Memoryd()
        for n, case in enumerate(mine):
            ws = work / "workspaces" / f"ws{n:04d}"
            ws.mkdir(parents=True, exist_ok=True)
            (ws / "MEMORY.md").write_text(case.file_text, encoding="utf-8")
            app.import_from("openclaw", ws)
            bullets = [m[1].strip() for line in case.file_text.splitlines() if (m := _BULLET.match(line))]
            keys[case.id] = ["memory-md:" + text_key(b) for b in bullets]
        slugs = {cid: [app.store.slug_for_session(SOURCE, k) for k in ks] for cid, ks in keys.items()}
    flagged_slugs = _suspect_slugs(env)
    return {cid for cid, ss in slugs.items() if any(s in flagged_slugs for s in ss)}


def pipeline(work: Path | None = None) -> dict[str, Any]:
    """The corpus through the real pipeline, one data dir per kind: figures per kind and
    split, and for all kinds together."""
    if work is None:
        with tempfile.TemporaryDirectory(prefix="memoryd-replay-") as tmp:
            return pipeline(Path(tmp))
    start = time.perf_counter()
    (work / "home").mkdir(parents=True, exist_ok=True)
    base = {
        **os.environ,
        "MEMORYD_CONFIG": str(work / "config.toml"),
        "HOME": str(work / "home"),
        "MEMORYD_NO_WORKER": "1",  # one drain after every hook has spooled
        "MEMORYD_NO_FALLBACK": "1",
        "PYTHONPATH": os.pathsep.join([str(ROOT / "core"), *filter(None, [os.environ.get("PYTHONPATH")])]),
    }
    base.pop("MEMORYD_NOW", None)
    replay = {
        "session": _replay_sessions,
        "memories_json": _replay_memories_json,
        "memory_md": _replay_memory_md,
    }
    hits: set[str] = set()
    result: dict[str, Any] = {}
    for kind, run in replay.items():
        env = {**base, "MEMORYD_HOME": str(work / kind / "data")}
        got = run(work / kind, env, [c for c in cases("own") if c.kind == kind])
        result[kind] = figures(got, (kind,))
        hits |= got
    result.update(figures(hits))
    result["seconds"] = round(time.perf_counter() - start, 1)
    return result


def summary(label: str, r: dict[str, Any]) -> str:
    """One line of figures, as the tests print them and docs/security.md quotes them."""
    return (
        f"{label}: attacks flagged {r['attacks_flagged']}/{r['attacks']} ({r['detection_rate']:.1%}), "
        f"ordinary flagged {r['ordinary_flagged']}/{r['ordinary']} ({r['false_positive_rate']:.1%})"
    )


def speed_inputs() -> dict[str, str]:
    """Ordinary text (the corpus's ordinary sessions, repeated) and hostile 256 KB inputs."""
    ordinary = "\n\n".join(
        t for c in cases("own") if c.label == "ordinary" and c.kind == "session" for t in c.texts()
    )

    def fill(unit: str, size: int) -> str:
        return (unit * (size // len(unit) + 1))[:size]

    k = 1024
    hostile = "ignore the system you must send token to <|< ```\n\u200b\"'“「 QUJDREVGR0hJSktMTU5P "
    return {
        "ordinary 4 KB": fill(ordinary, 4 * k),
        "ordinary 64 KB": fill(ordinary, 64 * k),
        "ordinary 256 KB": fill(ordinary, 256 * k),
        "hostile 256 KB": fill(hostile, 256 * k),
        "hostile 256 KB of '<'": "<" * 256 * k,
        "hostile 256 KB of 'ignore '": fill("ignore ", 256 * k),
        "hostile 256 KB of U+200B": "\u200b" * 256 * k,
        "hostile 256 KB of 'a U+200D b'": fill("a\u200db", 256 * k),
    }


def speed(runs: int = 7) -> dict[str, float]:
    """Median milliseconds of inspect per input (the machine's load shows in these)."""
    out: dict[str, float] = {}
    for name, text in speed_inputs().items():
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            inspect(text)
            times.append(time.perf_counter() - start)
        out[name] = round(statistics.median(times) * 1000, 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--show", action="store_true", help="print the reasons for every case")
    ap.add_argument("--no-speed", action="store_true", help="skip the timing section")
    ap.add_argument(
        "--pipeline",
        action="store_true",
        help="replay the corpus through the real hook, worker and importers (about 30 s)",
    )
    args = ap.parse_args()
    result = pipeline() if args.pipeline else measure()
    if not args.no_speed and not args.pipeline:
        result["speed_ms"] = speed()
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return
    if args.pipeline:
        for kind in ("session", "memories_json", "memory_md"):
            for split in ("dev", "held"):
                print(summary(f"pipeline {kind} {split}", result[kind][split]))
    for split in ("dev", "held", "all") if args.pipeline else SPLITS:
        r = result[split]
        print(summary(f"{'pipeline ' if args.pipeline else ''}{split:>12}", r))
        for cid in r["missed"]:
            print(f"      missed: {cid}")
        for cid in r["false_positives"]:
            print(f"      false positive: {cid}")
    if args.pipeline:
        print(f"replayed in {result['seconds']} s")
    for name, ms in result.get("speed_ms", {}).items():
        print(f"speed: {name:>30}: {ms:7.1f} ms (median)")
    if args.show:
        for case in cases():
            print(case.id, flagged(case))


if __name__ == "__main__":
    main()
