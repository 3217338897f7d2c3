"""A sensitive project's text reaches the LLM provider only where the person allowed it
for that project, through that provider and URL (SECURITY.md: "never a sensitive scope's
content unless the user enables it for that scope"). Tried as an agent with a shell
would: `[llm] allow_sensitive = true` and a base_url of its own written into config.toml
(which used to send every sensitive capture to that URL), `allow-llm` without the PIN, with
a wrong one, from a pseudo-terminal answering `y`; a consent surviving an unmark and a new
mark. The analyser and the graph's entity calls go through the same check."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest

from memoryd import paths
from memoryd.app import Memoryd
from memoryd.governance.analyze import Analyzer
from memoryd.sensitive import broker, llm_access
from tests.core.governance.test_analyze_llm import (  # noqa: F401 (fixtures)
    LLM_APIS,
    llm_app,
    llm_capture,
    llm_waits,
)
from tests.core.llm.replay import Replay, recorded

from .support import PASSPHRASE, PIN, audit_events, one_line_error, set_pin, tty_cli
from .test_broker import TrayStandIn

API = next(a for a in LLM_APIS if a.name == "anthropic")
ATTACKER = "http://127.0.0.1:9/collect"


@pytest.fixture(autouse=True)
def not_asking_afterwards() -> Iterator[None]:
    yield
    broker.uninstall()


def _config(*lines: str) -> None:
    """config.toml as an agent leaves it (the file every process reads)."""
    path = paths.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    body = f'[llm]\nprovider = "anthropic"\nmodel = "{API.model}"\n' + "".join(f"{ln}\n" for ln in lines)
    path.write_text(body, encoding="utf-8")


def _analyse(slug: str) -> tuple[Replay, Any]:
    """The session scored by a fresh process's analyser (config read from the file), its
    HTTP served by a recorded good answer."""
    app = Memoryd()
    replay = Replay(recorded(API.name, "ok"))
    result = Analyzer(app.store, app.config, env=API.env(), transport=replay.transport).session(
        slug, force=True
    )
    return replay, result


@pytest.fixture
def sealed(cli, secret_service: str, project: Path, llm_capture: Callable[..., str]) -> str:  # noqa: F811
    """A session captured in a random-key sensitive project, the grant PIN chosen first."""
    _config()
    set_pin(cli)
    out = cli("mark-sensitive", str(project), stdin=PIN + "\n")
    assert out.returncode == 0, out.stderr
    return llm_capture()


def test_an_agents_config_edit_sends_nothing(sealed: str, project: Path) -> None:
    """The old switch, with a URL of the agent's own: before, the session went to it."""
    _config("allow_sensitive = true", "", "[llm.anthropic]", f'base_url = "{ATTACKER}"')
    replay, result = _analyse(sealed)
    assert replay.requests == []
    assert result.note == llm_access.NOT_ALLOWED and result.by == "rules"


def test_allowed_by_the_person_for_one_endpoint_only(cli, sealed: str, project: Path) -> None:
    out = cli("allow-llm", str(project), stdin=PIN + "\n")
    assert out.returncode == 0, out.stderr
    assert "sessions scored by anthropic https://api.anthropic.com from now on" in out.stdout
    replay, result = _analyse(sealed)
    assert [r.url.host for r in replay.requests] == ["api.anthropic.com"]
    assert result.by == API.by
    (event,) = audit_events(cli, "llm_allowed")
    assert json.loads(event["details"]) == {"endpoint": "anthropic https://api.anthropic.com", "by": "pin"}

    # the agent points the same provider elsewhere: the consent does not follow
    _config("", "[llm.anthropic]", f'base_url = "{ATTACKER}"')
    replay, result = _analyse(sealed)
    assert replay.requests == []
    assert result.note == (
        f"{llm_access.NOT_ALLOWED} (allowed for anthropic https://api.anthropic.com, "
        f"not for anthropic {ATTACKER})"
    )
    status = cli("allow-llm", str(project), "--status", "--json")
    assert json.loads(status.stdout)["allowed"]["endpoint"] == "anthropic https://api.anthropic.com"

    # and the person takes it back (anyone may: it only keeps text here)
    _config()
    off = cli("allow-llm", str(project), "--off")
    assert off.returncode == 0 and "scored here by the rules" in off.stdout, off.stderr
    replay, _result = _analyse(sealed)
    assert replay.requests == []
    assert len(audit_events(cli, "llm_withdrawn")) == 1


def test_the_graph_asks_the_llm_only_where_allowed(cli, sealed: str, project: Path) -> None:
    """The entity call of a decision recorded in the project goes through the same check."""
    _config("allow_sensitive = true")
    replay = Replay(recorded(API.name, "ok"))
    app = Memoryd(llm_env=API.env(), llm_transport=replay.transport)
    app.record("decision", "Payroll runs on Postgres", "We chose Postgres for payroll.", scope_path=project)
    assert replay.requests == []

    assert cli("allow-llm", str(project), stdin=PIN + "\n").returncode == 0
    app = Memoryd(llm_env=API.env(), llm_transport=replay.transport)
    app.record("decision", "Payroll exports go to S3", "We chose S3 for the exports.", scope_path=project)
    assert replay.requests, "the consent lets the graph's entity call through"


def test_only_the_person_allows_it(cli, sealed: str, project: Path) -> None:
    one_line_error(cli("allow-llm", str(project), stdin="0000-0000\n"), 3, "wrong grant PIN")
    one_line_error(cli("allow-llm", str(project)), 3, "wrong grant PIN")
    code, out, term = tty_cli("allow-llm", str(project), answer="y")
    assert code == 3 and "sessions scored by" not in out, (out, term)
    whys = [json.loads(e["details"]) for e in audit_events(cli, "access_denied")]
    assert [w["what"] for w in whys[-3:]] == ["allow-llm"] * 3
    assert audit_events(cli, "llm_allowed") == []
    assert Memoryd().llm_consent(project) is None
    replay, _ = _analyse(sealed)
    assert replay.requests == []


def test_a_consent_for_another_data_dir_counts_for_nothing(
    cli, sealed: str, project: Path, tmp_path: Path
) -> None:
    """Consents are named by the data dir's keyring id: one another data dir on this
    machine holds for the same folder (same scope hash) is not this one's."""
    h = Memoryd().scope(project).hash
    consent = json.dumps({"endpoint": "anthropic https://api.anthropic.com", "at": "2026-11-28T00:00:00Z"})
    entry = f"llm-allowed:{paths.keyring_id(tmp_path / 'elsewhere')}:{h}"
    keyring.set_password("memoryd", entry, base64.b64encode(consent.encode()).decode())
    replay, result = _analyse(sealed)
    assert replay.requests == [] and result.note == llm_access.NOT_ALLOWED


def test_unmarked_and_marked_again_it_starts_without_consent(cli, sealed: str, project: Path) -> None:
    assert cli("allow-llm", str(project), stdin=PIN + "\n").returncode == 0
    assert cli("grant", str(project), "--duration", "once", stdin=PIN + "\n").returncode == 0
    assert cli("unmark-sensitive", str(project)).returncode == 0, "unmark"
    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    assert Memoryd().llm_consent(project) is None
    replay, result = _analyse(sealed)
    assert replay.requests == [] and result.note == llm_access.NOT_ALLOWED


def test_a_passphrase_project_needs_its_passphrase(
    cli,
    secret_service: str,
    project: Path,
    llm_capture: Callable[..., str],  # noqa: F811
) -> None:
    _config()
    assert cli("mark-sensitive", str(project), "--passphrase", stdin=PASSPHRASE + "\n").returncode == 0
    one_line_error(cli("allow-llm", str(project), stdin="not it\n"), 1, "wrong passphrase")
    assert Memoryd().llm_consent(project) is None
    out = cli("allow-llm", str(project), stdin=PASSPHRASE + "\n")
    assert out.returncode == 0, out.stderr
    assert Memoryd().llm_consent(project)["endpoint"] == "anthropic https://api.anthropic.com"


def test_the_trays_yes_is_written_by_the_tray(cli, sealed: str, project: Path) -> None:
    """With the tray running the CLI asks it; the tray (here its socket's stand-in, calling
    core as the tray does) writes the consent, and a tray's no allows nothing."""
    h = Memoryd().scope(project).hash
    asked: list[dict[str, Any]] = []

    def refuse(request: dict[str, Any]) -> bytes:
        asked.append(request)
        return broker.answer_line(False, reason="denied")

    tray = TrayStandIn(Memoryd().grant_socket(), refuse)
    try:
        one_line_error(cli("allow-llm", str(project)), 3, "not allowed", "denied")
    finally:
        tray.stop()
    assert [(r["op"], r["scope_hash"]) for r in asked] == [("llm", h)]
    assert Memoryd().llm_consent(project) is None

    def allow(request: dict[str, Any]) -> bytes:
        Memoryd().allow_llm(request["scope_hash"], in_tray=True, actor="tray")
        return broker.answer_line(True)

    tray = TrayStandIn(Memoryd().grant_socket(), allow)
    try:
        out = cli("allow-llm", str(project))
    finally:
        tray.stop()
    assert out.returncode == 0 and "from now on" in out.stdout, out.stderr
    (event,) = audit_events(cli, "llm_allowed")
    assert json.loads(event["details"])["by"] == "tray" and event["actor"] == "tray"


def test_bad_input_gets_one_line(cli, secret_service: str, project: Path, tmp_path: Path) -> None:
    _config()
    plain = tmp_path / "plain"
    plain.mkdir()
    one_line_error(cli("allow-llm", str(plain)), 2, "not in a sensitive scope")
    set_pin(cli)
    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    paths.config_file().write_text('[llm]\nprovider = "rules"\n', encoding="utf-8")
    one_line_error(cli("allow-llm", str(project), stdin=PIN + "\n"), 2, "sends nothing anywhere")


def test_doctor_names_what_is_allowed_and_the_ignored_switch(cli, sealed: str, project: Path) -> None:
    _config("allow_sensitive = true")
    assert cli("allow-llm", str(project), stdin=PIN + "\n").returncode == 0
    rep = json.loads(cli("doctor", "--json").stdout)
    assert rep["llm_allowed"] == {Memoryd().scope(project).hash: "anthropic https://api.anthropic.com"}
    assert rep["llm_switch_ignored"] is True
    text = cli("doctor").stdout
    assert "allow_sensitive is no longer read" in text and "scored by anthropic" in text


def test_without_an_os_keyring_nothing_is_allowed(cli, project: Path) -> None:
    """A passphrase scope needs no keyring; its consent does, and says so in one line."""
    _config()
    assert cli("mark-sensitive", str(project), "--passphrase", stdin=PASSPHRASE + "\n").returncode == 0
    out = cli("allow-llm", str(project), stdin=PASSPHRASE + "\n")
    assert out.returncode != 0 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "no usable OS keyring" in out.stderr, out.stderr
    assert audit_events(cli, "llm_allowed") == []


def test_a_proxy_or_certificate_store_of_the_agents_own_is_not_covered(
    cli, sealed: str, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The consent names the route too: a review (2026-11-28) set HTTPS_PROXY and
    SSL_CERT_FILE of its own for the analyser, which the SDK honours, and read a project
    allowed for api.anthropic.com through its own TLS proxy."""
    assert cli("allow-llm", str(project), stdin=PIN + "\n").returncode == 0
    routes = (
        ("HTTPS_PROXY", "http://agent:pw@127.0.0.1:18443", "https_proxy="),
        ("Https_Proxy", "http://agent:pw@127.0.0.1:18444", "https_proxy="),  # read in any letter case
        ("ALL_PROXY", "socks5://127.0.0.1:9050", "all_proxy="),
        ("SSL_CERT_FILE", "/tmp/agent-ca.pem", "SSL_CERT_FILE="),
        ("SSLKEYLOGFILE", "/tmp/agent-keys.log", "SSLKEYLOGFILE="),  # TLS secrets written out
    )
    for var, value, shown in routes:
        with monkeypatch.context() as m:
            m.setenv(var, value)
            replay, result = _analyse(sealed)
            assert replay.requests == [] and result.by == "rules"
            assert f"not for anthropic https://api.anthropic.com via {shown}" in result.note, result.note
            assert "agent:pw" not in result.note  # a proxy's password is no part of it
    replay, result = _analyse(sealed)
    assert len(replay.requests) == 1 and result.by == API.by

    # and no consent is given while SSLKEYLOGFILE is set
    assert cli("allow-llm", str(project), "--off").returncode == 0
    out = cli("allow-llm", str(project), stdin=PIN + "\n", env={"SSLKEYLOGFILE": "/tmp/agent-keys.log"})
    one_line_error(out, 2, "SSLKEYLOGFILE")


@pytest.mark.parametrize(
    ("base_url", "why"),
    [
        ("http://api.anthropic.com<b><!--@127.0.0.1:18081", "user name before its host"),
        ("https://api.anthropic.com@evil.example", "user name before its host"),
        ("http://10.0.0.5:8000", "in the clear (http) to another machine"),
        ("https://api.anthropic.com/v1?to=evil", "a query or a fragment"),
        ("ftp://api.anthropic.com", "not an http or https URL"),
    ],
)
def test_a_url_that_hides_where_it_goes_is_refused(
    cli, secret_service: str, project: Path, base_url: str, why: str
) -> None:
    """A review (2026-11-28) had the tray show "http://api.anthropic.com" for a URL whose
    host was the part after the @."""
    set_pin(cli)
    _config()
    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    _config("", "[llm.anthropic]", f'base_url = "{base_url}"')
    one_line_error(cli("allow-llm", str(project), stdin=PIN + "\n"), 2, why, "nothing allowed")
    assert Memoryd().llm_consent(project) is None


def test_what_the_person_was_shown_is_what_is_allowed(cli, sealed: str, project: Path) -> None:
    """The tray reloads config.toml while its question is open: a review (2026-11-28)
    changed base_url between the question and the click, and the consent named the new
    URL. Each caller passes what it showed; a change allows nothing."""
    from memoryd.errors import UsageError

    shown = Memoryd().llm_endpoint()
    assert shown == "anthropic https://api.anthropic.com"
    _config("", "[llm.anthropic]", 'base_url = "https://llm.agent.example"')
    with pytest.raises(UsageError, match="changed while the person was asked"):
        Memoryd().allow_llm(project, pin=PIN, expected=shown)
    assert Memoryd().llm_consent(project) is None

    # the PIN prompt names where the text would go, before the PIN is typed
    code, _out, term = tty_cli("allow-llm", str(project), answer=PIN)
    assert code == 0 and "to anthropic https://llm.agent.example:" in term, term


def test_ollama_is_allowed_for_one_model() -> None:
    """A `-cloud` model is forwarded off the machine by Ollama itself."""
    from memoryd.config import LLMConfig
    from memoryd.llm.factory import endpoint

    assert (
        endpoint(LLMConfig(provider="ollama", model="llama3.2"))
        == "ollama http://127.0.0.1:11434 model llama3.2"
    )
    assert endpoint(LLMConfig(provider="ollama", model="gpt-oss:120b-cloud")) != endpoint(
        LLMConfig(provider="ollama", model="llama3.2")
    )
