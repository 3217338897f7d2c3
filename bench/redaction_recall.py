"""Recall and false positives of the redaction rules (memoryd.redact) on the test corpus
(tests/core/redaction/corpus.py: well-formed fake secrets in the lines they are written in,
and ordinary text), and of Yelp's detect-secrets beside them and as a second pass after them,
so whether that package earns a place in the capture worker is a matter of figures.

    python bench/redaction_recall.py [--json]

detect-secrets is not a dependency: install it (`pip install detect-secrets`) to measure it.
On 2026-11-26 (detect-secrets 1.5.0, its plugins and default filters): alone 45 of 83 secrets
(54%) and 32 of 260 ordinary snippets flagged (12.3%); after memoryd's rules it caught nothing
more and added those 32 false positives, at about 40 ms a snippet."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "core"), str(ROOT)]

from memoryd.redact import Redactor  # noqa: E402
from tests.core.redaction.corpus import ordinary_snippets, secrets_corpus  # noqa: E402


def _ds_scanner() -> Any:
    """detect-secrets as its own `scan` runs it: every plugin and the default filters (its
    ad hoc `scan_line` reports every entropy candidate, words included)."""
    try:
        from detect_secrets import SecretsCollection
        from detect_secrets.settings import default_settings
    except ImportError:
        return None
    folder = Path(tempfile.mkdtemp(prefix="ds-"))

    def found(text: str) -> list[str]:
        path = folder / "snippet.txt"
        path.write_text(text + "\n", encoding="utf-8")
        with default_settings():
            collection = SecretsCollection()
            collection.scan_file(str(path))
            return [s.secret_value or "" for secrets in collection.data.values() for s in secrets]

    return found


# About 100 KB on one line of what makes a rule look far ahead (the command rules scan to a
# flag, the sentence rule to a verb) or match often: each must stay linear in the input. A
# review on 2026-11-28 found `fly secrets set` with 9,000 pairs at 18 s, `mysql ` repeated at
# 7.5 s, an XML tag of 10,000 `value=` at 10.9 s and a truncated double-encoded JSON line at
# 16.8 s before the rules were bounded.
WORST_CASES = {
    "fly secrets set + 9,000 pairs": "fly secrets set " + "A=b1234567 " * 9000,
    "vault kv put, repeated": "vault kv put " * 8000,
    "gh secret set X, repeated": "gh secret set X " * 6000,
    "mysql, repeated": "mysql " * 16000,
    "api key is, repeated": "api key is " * 9000,
    "password is, repeated": "password is " * 8000,
    "eyJ segments": "eyJabcdefgh." * 8000,
    "ordinary prose mentioning vault kv put": "use vault kv put for that. " * 3700,
    "XML attributes, value= repeated": "<a " + 'value="x" ' * 10000,
    "env entries, name with no value": "- name: DB_PASSWORD\n  a: b\n" * 4000,
    "JSON name fields, no value": '"name": "API_TOKEN", "a": "b", "c": "d", ' * 2500,
    "heredocs with no end": "gh secret set X <<EOF\n" * 5000,
    "keytool -storepass, repeated": "keytool -storepass x " * 5000,
    "double-encoded JSON cut short": json.dumps({"output": json.dumps({"k": "v\n" * 20000})})[:100_000]
    + "… [truncated]",
}


def worst_cases(runs: int = 3) -> dict[str, float]:
    out = {}
    for label, text in WORST_CASES.items():
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            Redactor()(text)
            times.append(time.perf_counter() - t0)
        out[label] = round(sorted(times)[len(times) // 2] * 1000, 1)
    return out


def measure() -> dict[str, Any]:
    secrets, ordinary = secrets_corpus(), ordinary_snippets()
    result: dict[str, Any] = {"secrets": len(secrets), "ordinary": len(ordinary)}

    t0 = time.perf_counter()
    ours_missed = [s.kind for s in secrets if any(n in Redactor()(s.line) for n in s.needles)]
    ours_fp = [o for o in ordinary if Redactor()(o) != o]
    result["memoryd"] = {
        "recall": round(1 - len(ours_missed) / len(secrets), 4),
        "missed": ours_missed,
        "false_positives": len(ours_fp),
        "fp_rate": round(len(ours_fp) / len(ordinary), 4),
        "ms": round((time.perf_counter() - t0) * 1000, 1),
    }
    result["worst_cases_ms"] = worst_cases()
    ds = _ds_scanner()
    if ds is None:
        result["detect_secrets"] = "not installed"
        return result
    t0 = time.perf_counter()
    ds_missed = [
        s.kind for s in secrets if not any(any(n in v or v in n for v in ds(s.line) if v) for n in s.needles)
    ]
    ds_fp = [o for o in ordinary if ds(o)]
    result["detect_secrets_alone"] = {
        "recall": round(1 - len(ds_missed) / len(secrets), 4),
        "missed": len(ds_missed),
        "false_positives": len(ds_fp),
        "fp_rate": round(len(ds_fp) / len(ordinary), 4),
        "fp_examples": [o[:80] for o in ds_fp[:8]],
        "ms": round((time.perf_counter() - t0) * 1000, 1),
    }
    # As a second pass in the worker: what it would add after memoryd's rules.
    extra_catch = [s.kind for s in secrets if s.kind in ours_missed and ds(Redactor()(s.line))]
    extra_fp = [o for o in ordinary if Redactor()(o) == o and ds(o)]
    result["second_pass"] = {
        "secrets_caught_that_memoryd_missed": extra_catch,
        "added_false_positives": len(extra_fp),
        "fp_rate_combined": round((len(ours_fp) + len(extra_fp)) / len(ordinary), 4),
    }
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    r = measure()
    if args.json:
        print(json.dumps(r, indent=2))
        return 0
    print(f"corpus: {r['secrets']} secrets, {r['ordinary']} ordinary snippets")
    m = r["memoryd"]
    print(
        f"memoryd.redact: recall {m['recall']:.1%}, "
        f"false positives {m['false_positives']} ({m['fp_rate']:.1%})"
    )
    print("worst cases (about 100 KB on one line, median of 3, ms):")
    for label, ms in r["worst_cases_ms"].items():
        print(f"  {label}: {ms}")
    if isinstance(r.get("detect_secrets_alone"), dict):
        d, s = r["detect_secrets_alone"], r["second_pass"]
        print(
            f"detect-secrets alone: recall {d['recall']:.1%}, "
            f"false positives {d['false_positives']} ({d['fp_rate']:.1%})"
        )
        print(
            f"detect-secrets after memoryd: catches {len(s['secrets_caught_that_memoryd_missed'])} more, "
            f"adds {s['added_false_positives']} false positives (combined rate {s['fp_rate_combined']:.1%})"
        )
    else:
        print("detect-secrets: not installed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
