"""The digest mail against a real SMTP server on loopback: plain, STARTTLS, implicit TLS, AUTH, failures."""

from __future__ import annotations

import datetime as dt
import ipaddress
import socket
import ssl
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import keyring
import keyring.errors
import pytest
from aiosmtpd.smtp import AuthResult, LoginPassword
from keyring.backend import KeyringBackend

from memoryd.config import EmailConfig
from memoryd.errors import DeliveryError, MemorydError
from memoryd.mailer import KEYRING_SERVICE, build_message, send, smtp_password
from tests.delivery import closed_port, free_port

PASSWORD = "s3cret-Pässword!"  # non-ASCII on purpose: smtplib.login() alone cannot send it
ASCII_PASSWORD = "plain-ascii-pw"
TEXT = (
    "memoryd digest — 本周新增 3 条记忆\n"
    "\n"
    "* 用户偏好使用中文回复\n"
    "* " + "a long line that must survive unwrapped " * 8 + "end\n"
    "trailing line without a newline"
)


def _authenticator(server: Any, session: Any, envelope: Any, mechanism: str, auth_data: Any) -> AuthResult:
    ok = isinstance(auth_data, LoginPassword) and (auth_data.login, auth_data.password) in {
        (b"alice", PASSWORD.encode()),
        (b"bob", ASCII_PASSWORD.encode()),
    }
    return AuthResult(success=ok, handled=False)


no_tls_auth_warning = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")


@dataclass(frozen=True)
class Cert:
    server: ssl.SSLContext
    client: ssl.SSLContext


@pytest.fixture(scope="module")
def cert(tmp_path_factory: pytest.TempPathFactory) -> Cert:
    """A self-signed certificate for 127.0.0.1, and a client context that trusts exactly it."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "memoryd test smtp")])
    now = dt.datetime.now(dt.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
            ),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    folder: Path = tmp_path_factory.mktemp("cert")
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(cert_file, key_file)
    return Cert(server=server, client=ssl.create_default_context(cafile=str(cert_file)))


def _cfg(port: int, **overrides: Any) -> EmailConfig:
    values: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": port,
        "security": "none",
        "user": None,
        "from_addr": "memoryd@example.org",
        "to": ("me@example.org", "other@example.org"),
        "timeout_seconds": 5.0,
        **overrides,
    }
    return EmailConfig(**values)


def _assert_one_line(exc: pytest.ExceptionInfo[DeliveryError]) -> str:
    message = str(exc.value)
    assert message and "\n" not in message
    assert PASSWORD not in message
    return message


class MemoryKeyring(KeyringBackend):
    """An in-memory keyring, so the tests never touch the machine's real one."""

    priority = 1  # type: ignore[assignment]

    def __init__(self, fail_with: Exception | None = None) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}
        self.fail_with = fail_with

    def get_password(self, service: str, username: str) -> str | None:
        if self.fail_with:
            raise self.fail_with
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.store.pop((service, username), None)


@pytest.fixture
def memory_keyring() -> Iterator[Any]:
    old = keyring.get_keyring()

    def use(fail_with: Exception | None = None) -> MemoryKeyring:
        ring = MemoryKeyring(fail_with)
        keyring.set_keyring(ring)
        return ring

    use()
    yield use
    keyring.set_keyring(old)


# -- delivery -------------------------------------------------------------------------------------


def test_plain_smtp_delivers_the_exact_text(smtp_server: Any) -> None:
    server = smtp_server()
    subject = "memoryd digest: 3 条新记忆"

    report = send(_cfg(server.port), subject, TEXT)

    assert report == f"sent to 2 recipients via 127.0.0.1:{server.port}"
    [(mail_from, rcpt_tos, msg)] = server.box.received
    assert mail_from == "memoryd@example.org"
    assert rcpt_tos == ["me@example.org", "other@example.org"]
    assert msg["Subject"] == subject
    assert msg["From"] == "memoryd@example.org"
    assert [a.addr_spec for a in msg["To"].addresses] == ["me@example.org", "other@example.org"]
    assert msg["Date"] and msg["Message-ID"].endswith("@example.org>")
    body = msg.get_body(("plain",))
    assert body is not None and body.get_content_charset() == "utf-8"
    assert body.get_content() == TEXT


def test_from_defaults_to_user_and_subject_cannot_inject_headers() -> None:
    msg = build_message(_cfg(25, from_addr=None, user="alice@example.org"), "two\nlines\r\nBcc: x@y", "t")
    assert msg["From"] == "alice@example.org"
    assert msg["Subject"] == "two lines Bcc: x@y"
    assert msg["Bcc"] is None


def test_starttls_with_a_trusted_certificate(smtp_server: Any, cert: Cert) -> None:
    server = smtp_server(tls_context=cert.server, require_starttls=True)

    report = send(
        _cfg(server.port, security="starttls", to=("me@example.org",)), "s", TEXT, ssl_context=cert.client
    )

    assert report == f"sent to 1 recipient via 127.0.0.1:{server.port}"
    assert server.box.received[0][2].get_body(("plain",)).get_content() == TEXT  # type: ignore[union-attr]


def test_starttls_refuses_an_untrusted_certificate(smtp_server: Any, cert: Cert) -> None:
    server = smtp_server(tls_context=cert.server)

    with pytest.raises(DeliveryError) as exc:
        send(_cfg(server.port, security="starttls"), "s", TEXT)  # the system CAs do not know our cert

    assert "TLS certificate not trusted" in _assert_one_line(exc)
    assert server.box.received == []


def test_starttls_not_offered_never_falls_back_to_plain_text(smtp_server: Any) -> None:
    server = smtp_server()

    with pytest.raises(DeliveryError) as exc:
        send(_cfg(server.port, security="starttls"), "s", TEXT)

    assert "STARTTLS" in _assert_one_line(exc)
    assert server.box.received == []


def test_implicit_tls(smtp_server: Any, cert: Cert) -> None:
    server = smtp_server(ssl_context=cert.server)

    report = send(_cfg(server.port, security="ssl"), "s", TEXT, ssl_context=cert.client)

    assert report.startswith("sent to 2 recipients")
    assert len(server.box.received) == 1


# -- authentication -------------------------------------------------------------------------------


@no_tls_auth_warning
def test_auth_with_the_password_from_the_env_var(smtp_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    server = smtp_server(authenticator=_authenticator, auth_require_tls=False, auth_required=True)
    monkeypatch.setenv("MEMORYD_SMTP_PASSWORD", PASSWORD)

    report = send(_cfg(server.port, user="alice"), "s", TEXT)

    assert report.startswith("sent to 2 recipients")
    assert len(server.box.received) == 1


def test_auth_over_starttls(smtp_server: Any, cert: Cert, monkeypatch: pytest.MonkeyPatch) -> None:
    server = smtp_server(tls_context=cert.server, authenticator=_authenticator, auth_required=True)
    monkeypatch.setenv("MY_SMTP_PW", PASSWORD)

    send(
        _cfg(server.port, security="starttls", user="alice", password_env="MY_SMTP_PW"),
        "s",
        TEXT,
        ssl_context=cert.client,
    )

    assert len(server.box.received) == 1


@no_tls_auth_warning
def test_ascii_password_uses_smtplib_login(smtp_server: Any) -> None:
    server = smtp_server(authenticator=_authenticator, auth_require_tls=False, auth_required=True)

    send(_cfg(server.port, user="bob"), "s", TEXT, password=ASCII_PASSWORD)

    assert len(server.box.received) == 1


@no_tls_auth_warning
@pytest.mark.parametrize(("user", "wrong"), [("alice", PASSWORD + "-wrong"), ("bob", "wrong-ascii")])
def test_wrong_password_is_one_line_without_the_password(smtp_server: Any, user: str, wrong: str) -> None:
    server = smtp_server(authenticator=_authenticator, auth_require_tls=False, auth_required=True)

    with pytest.raises(DeliveryError) as exc:
        send(_cfg(server.port, user=user), "s", TEXT, password=wrong)

    message = _assert_one_line(exc)
    assert f"login as {user} rejected" in message and "535" in message
    assert "wrong" not in message
    assert server.box.received == []


@no_tls_auth_warning
def test_password_from_the_keyring(smtp_server: Any, memory_keyring: Any) -> None:
    server = smtp_server(authenticator=_authenticator, auth_require_tls=False, auth_required=True)
    keyring.set_password(KEYRING_SERVICE, "alice", PASSWORD)

    send(_cfg(server.port, user="alice"), "s", TEXT)

    assert len(server.box.received) == 1


def test_password_lookup_order(memory_keyring: Any) -> None:
    keyring.set_password(KEYRING_SERVICE, "alice", "from-keyring")
    cfg = _cfg(25, user="alice")
    assert smtp_password(cfg, env={"MEMORYD_SMTP_PASSWORD": "from-env"}) == "from-env"
    assert smtp_password(cfg, env={"MEMORYD_SMTP_PASSWORD": ""}) == "from-keyring"
    assert smtp_password(_cfg(25, user="alice", password_env=None), env={}) == "from-keyring"
    assert smtp_password(_cfg(25, user="bob"), env={}) is None
    assert smtp_password(_cfg(25, user=None), env={"MEMORYD_SMTP_PASSWORD": "x"}) is None


def test_no_usable_keyring_means_no_password(memory_keyring: Any) -> None:
    memory_keyring(keyring.errors.NoKeyringError("No recommended backend was available"))
    assert smtp_password(_cfg(25, user="alice"), env={}) is None

    memory_keyring(RuntimeError("backend exploded\nwith detail"))
    with pytest.raises(DeliveryError) as exc:
        smtp_password(_cfg(25, user="alice"), env={})
    assert "keyring" in _assert_one_line(exc)


def test_user_without_any_password_fails_before_connecting(
    memory_keyring: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMORYD_SMTP_PASSWORD", raising=False)
    with pytest.raises(DeliveryError) as exc:
        send(_cfg(free_port(), user="alice"), "s", TEXT)
    message = _assert_one_line(exc)
    assert "no SMTP password for alice" in message and "MEMORYD_SMTP_PASSWORD" in message


# -- failures -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "overrides",
    [{"host": None}, {"to": ()}, {"host": ""}],
)
def test_not_configured(overrides: dict[str, Any]) -> None:
    with pytest.raises(DeliveryError) as exc:
        send(_cfg(25, **overrides), "s", TEXT)
    assert "not configured" in _assert_one_line(exc)
    assert isinstance(exc.value, MemorydError)


def test_connection_refused() -> None:
    with closed_port() as port, pytest.raises(DeliveryError) as exc:  # nothing listens there
        send(_cfg(port), "s", TEXT)

    assert _assert_one_line(exc) == f"could not mail the digest via 127.0.0.1:{port}: connection refused"


def test_silent_server_times_out() -> None:
    with socket.socket() as listener:  # accepts connections (backlog) but never greets
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        with pytest.raises(DeliveryError) as exc:
            send(_cfg(port, timeout_seconds=0.5), "s", TEXT)
    assert "no answer within 0.5 s" in _assert_one_line(exc)


def test_refused_recipients(smtp_server: Any) -> None:
    server = smtp_server()

    with pytest.raises(DeliveryError) as exc:
        send(_cfg(server.port, to=("nobody@example.org",)), "s", TEXT)
    assert "all recipients refused: nobody@example.org (550 5.1.1 no such user here)" in _assert_one_line(exc)

    with pytest.raises(DeliveryError) as exc:
        send(_cfg(server.port, to=("me@example.org", "nobody@example.org")), "s", TEXT)
    assert "sent to only 1 of 2 recipients" in _assert_one_line(exc)
    assert [rcpt for _, rcpt, _ in server.box.received] == [["me@example.org"]]
