"""A fuzzed transcript through the real hook and worker into a real data dir: the session is
captured (or its payload set aside with a reason), nothing raises, and doctor, the audit
chain and the memories that were there are as clean as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memoryd.app import Memoryd
from memoryd.capture import hook
from memoryd.testing import stop_payload
from tests.core.capture.test_fuzz_transcripts import CLAUDE, CODEX
from tests.core.undamaged import assert_undamaged, seeded
from tests.fuzzing import deep_json, jsonl_bytes

E2E = settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))


@E2E
@given(data=st.one_of(jsonl_bytes(CLAUDE), jsonl_bytes(CODEX)), sid=st.sampled_from(["s1", "s2"]))
@example(data=b'{"type": "user", "message": {"role": "user", "content": "fix \\ud800"}}\n', sid="s1")
@example(data=deep_json(5000).encode() + b"\n", sid="s2")
def test_fuzzed_transcript_through_the_worker(
    project: Path, tmp_path_factory: Any, data: bytes, sid: str
) -> None:
    app, before = seeded(project)
    transcript = tmp_path_factory.mktemp("t") / "t.jsonl"
    transcript.write_bytes(data)
    hook.capture("claude-code", stop_payload(sid, transcript, project), spawn=False)
    report = app.drain_spool(wait=True)
    assert not report.deferred and not report.busy
    assert not list(app.layout.spool.glob("*.json"))
    # Set aside only for having nothing to capture (no prompt, no answer, no message of
    # its own), never for an error met on the way.
    reasons = [p.read_text() for p in app.layout.spool_rejected.glob("*.reason.txt")]
    assert all(r.startswith("nothing to capture") for r in reasons), reasons
    assert_undamaged(app, before)
    app.store.engine.dispose()


def test_unusable_cwd_does_not_stop_the_worker(project: Path, tmp_path: Path) -> None:
    """Found by fuzzing the MCP scope argument: a path too long to stat raised OSError from
    scope resolution. The worker resolves the payload's cwd the same way, so one such payload
    stopped every drain (it stayed first in the spool) until removed by hand."""
    app = Memoryd()
    transcript = tmp_path / "t.jsonl"
    transcript.write_bytes(b'{"type": "user", "message": {"role": "user", "content": "hello"}}\n')
    hook.capture("claude-code", stop_payload("long", transcript, "/tmp/" + "a" * 5000), spawn=False)
    hook.capture("claude-code", stop_payload("next", transcript, project), spawn=False)
    report = app.drain_spool(wait=True)
    assert len(report.captured) == 2 and not list(app.layout.spool.glob("*.json"))
    assert app.doctor().ok


def test_a_spool_file_with_a_surrogate_escape_is_captured(project: Path, tmp_path: Path) -> None:
    """Found with the red team's lone surrogate: spool.put cleans a payload, but the worker
    read the spool file with plain json.loads, so a file that escapes one ("\\ud800"; an
    older memoryd or another writer) was set aside as an internal error
    (UnicodeEncodeError) and the session lost. It is read as transcripts are: U+FFFD."""
    app = Memoryd()
    transcript = tmp_path / "t.jsonl"
    transcript.write_bytes(b'{"type": "user", "message": {"role": "user", "content": "Use pnpm \\ud800."}}\n')
    payload = json.loads(stop_payload("sur", transcript, project))
    record = {"payload_id": "0" * 32, "source": "claude-code", "received_at": "2026-11-27T00:00:00Z"}
    text = json.dumps({**record, "payload": {**payload, "last_assistant_message": "Done \ud800 now."}})
    assert "\\ud800" in text
    app.layout.spool.mkdir(parents=True, exist_ok=True)
    (app.layout.spool / "00000000000000000001-1-00000000.json").write_text(text)
    report = app.drain_spool(wait=True)
    assert len(report.captured) == 1 and not report.rejected
    (slug,) = report.captured
    body = app.store.read(slug)[0].body
    assert "Done \ufffd now." in body and "Use pnpm \ufffd." in body
    app.store.engine.dispose()
