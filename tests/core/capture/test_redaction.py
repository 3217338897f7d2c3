"""Secrets in a transcript never reach disk: not the memory file, the index (and its WAL),
the turns, the audit log or the spool."""

from __future__ import annotations

import json
from pathlib import Path

from memoryd.redact import Redactor
from memoryd.testing import claude_exchange, stop_payload, write_jsonl

ANTHROPIC = "sk-ant-api03-" + "Q" * 40 + "-a1B2c3D4AA"
GITHUB = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2
AWS_ID = "AKIAIOSFODNN7EXAMPLQ"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEQ"
PRIVATE = "my home address is 12 Canary Lane"
SECRETS = [ANTHROPIC, GITHUB, AWS_ID, AWS_SECRET, PRIVATE, "12 Canary Lane"]


def test_secrets_are_redacted_everywhere(cli, project: Path, isolated_home: Path, tmp_path: Path):
    prompt = (
        f"Deploy with ANTHROPIC_API_KEY={ANTHROPIC} and token {GITHUB}. "
        f"<private>{PRIVATE}</private> Then check the queue."
    )
    lines = claude_exchange(
        prompt,
        f"I exported aws_secret_access_key = {AWS_SECRET} as asked.",
        tool="Bash",
        tool_input={"command": f"export AWS_ACCESS_KEY_ID={AWS_ID}"},
        tool_output=f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}",
        session_id="sec-1",
        cwd=str(project),
    )
    t = write_jsonl(tmp_path / "t.jsonl", lines)
    payload = stop_payload("sec-1", t, project, last_assistant_message=f"done, used {GITHUB}")
    assert cli("capture", "--source=claude-code", stdin=payload).returncode == 0
    assert cli("worker", "--wait").returncode == 0
    mems = json.loads(cli("list", "--all-scopes", "--json").stdout)
    assert len(mems) == 1
    body = json.loads(cli("get", mems[0]["slug"], "--json").stdout)["body"]
    assert "[REDACTED:anthropic_key]" in body or "[REDACTED:env_secret]" in body
    assert "Then check the queue" in body  # the rest of the text survives

    for path in isolated_home.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for secret in SECRETS:
                assert secret.encode() not in data, (
                    f"{secret[:12]}… leaked into {path.relative_to(isolated_home)}"
                )
    event = json.loads(cli("audit", "--event-type", "capture", "--json").stdout)[0]
    counts = json.loads(event["details"])["redactions"]
    assert sum(counts.values()) >= 5


def test_each_secret_shape_is_replaced_by_a_typed_placeholder():
    r = Redactor()
    cases = {
        "anthropic_key": ANTHROPIC,
        "openai_key": "sk-proj-" + "x" * 40,
        "github_token": GITHUB,
        "aws_access_key": AWS_ID,
        "slack_token": "xoxb-123456789012-abcdefghijkl",
        "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    }
    for kind, secret in cases.items():
        out = r(f"value: {secret} end")
        assert secret not in out and f"[REDACTED:{kind}]" in out, kind
    pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----"
    assert r(pem) == "[REDACTED:private_key]"
    assert r("password=hunter2 ok") == "password=[REDACTED:secret_assignment] ok"
    assert r("DB_PASSWORD=s3cr3t") == "DB_PASSWORD=[REDACTED:env_secret]"
    assert r("<PRIVATE>x</PRIVATE>") == "[REDACTED:private]"
    assert r("no secrets here, just a token of thanks") == "no secrets here, just a token of thanks"
    assert r(r("password=hunter2")) == "password=[REDACTED:secret_assignment]"  # idempotent
