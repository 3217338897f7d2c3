"""Mail the digest over SMTP with the stdlib, for `memoryd digest --notify`.

Every failure becomes one DeliveryError line that names the server but never the password:
the CLI prints it as is, and it may end up in logs or cron mail.
"""

from __future__ import annotations

import base64
import os
import smtplib
import ssl
from collections.abc import Mapping
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from memoryd import oskeyring
from memoryd.config import EmailConfig
from memoryd.errors import DeliveryError

KEYRING_SERVICE = "memoryd-smtp"


def smtp_password(cfg: EmailConfig, env: Mapping[str, str] = os.environ) -> str | None:
    """The env var named by `password_env` wins, so CI and cron need no keyring; else the OS keyring."""
    if not cfg.user:
        return None
    if cfg.password_env and env.get(cfg.password_env):
        return env[cfg.password_env]
    import keyring
    from keyring.errors import KeyringError

    try:
        return oskeyring.call(lambda: keyring.get_password(KEYRING_SERVICE, cfg.user)) or None
    except KeyringError:  # incl. NoKeyringError on a headless machine: simply no password stored
        return None
    except Exception as exc:  # a third-party backend failing its own way must not be a traceback
        raise DeliveryError(f"OS keyring lookup for SMTP user {cfg.user} failed: {_first_line(exc)}") from exc


def build_message(cfg: EmailConfig, subject: str, text: str) -> EmailMessage:
    """Base64 UTF-8 keeps the body byte-exact (set_content would normalise line ends and add one)."""
    from_addr = cfg.from_addr or cfg.user or ""
    domain = from_addr.rpartition("@")[2] or "memoryd.invalid"
    msg = EmailMessage()
    msg["Subject"] = " ".join(subject.split())  # a newline here would be header injection
    msg["From"] = from_addr
    msg["To"] = ", ".join(cfg.to)
    msg["Date"] = formatdate(localtime=True)
    msg["Message-ID"] = make_msgid(domain=domain)  # not socket.getfqdn(): slow, and leaks the host name
    msg.set_content(text.encode("utf-8"), "text", "plain", cte="base64", params={"charset": "utf-8"})
    return msg


def send(
    cfg: EmailConfig,
    subject: str,
    text: str,
    *,
    password: str | None = None,
    ssl_context: ssl.SSLContext | None = None,
) -> str:
    """Send `text` as a plain-text mail to `cfg.to`; returns a one-line summary or raises DeliveryError."""
    if not cfg.configured:
        raise DeliveryError("email is not configured: set host and to in the [email] section of config.toml")
    if cfg.security not in ("starttls", "ssl", "none"):
        raise DeliveryError(f"[email] security must be starttls, ssl or none, not {cfg.security!r}")
    if not (cfg.from_addr or cfg.user):
        raise DeliveryError("no sender address: set from_addr or user in the [email] section of config.toml")
    if cfg.user and password is None:
        password = smtp_password(cfg)
        if password is None:
            where = f"${cfg.password_env} or " if cfg.password_env else ""
            raise DeliveryError(
                f"no SMTP password for {cfg.user}: set {where}the OS keyring "
                f"(keyring set {KEYRING_SERVICE} {cfg.user})"
            )
    msg = build_message(cfg, subject, text)
    server = f"{cfg.host}:{cfg.port}"
    recipients = list(cfg.to)
    try:
        refused = _deliver(cfg, msg, recipients, password, ssl_context)
    except smtplib.SMTPAuthenticationError as exc:
        problem = f"login as {cfg.user} rejected: {_reply(exc.smtp_code, exc.smtp_error)}"
    except smtplib.SMTPRecipientsRefused as exc:
        problem = "all recipients refused: " + _refusals(exc.recipients)
    except smtplib.SMTPSenderRefused as exc:
        problem = f"sender {exc.sender} refused: {_reply(exc.smtp_code, exc.smtp_error)}"
    except smtplib.SMTPResponseException as exc:
        problem = _reply(exc.smtp_code, exc.smtp_error)
    except smtplib.SMTPServerDisconnected as exc:
        if isinstance(exc.__context__, TimeoutError):  # smtplib wraps a read timeout in this
            problem = f"no answer within {cfg.timeout_seconds:g} s"
        else:
            problem = f"server closed the connection ({_first_line(exc) or 'no reason given'})"
    except smtplib.SMTPException as exc:  # e.g. STARTTLS or AUTH not offered
        problem = _first_line(exc)
    except ssl.SSLCertVerificationError as exc:
        problem = f"TLS certificate not trusted: {exc.verify_message}"
    except ssl.SSLError as exc:
        problem = f"TLS failed: {exc.reason or _first_line(exc)}"
    except TimeoutError:
        problem = f"no answer within {cfg.timeout_seconds:g} s"
    except ConnectionRefusedError:
        problem = "connection refused"
    except OSError as exc:  # DNS failure, unreachable network, reset connection
        problem = exc.strerror or _first_line(exc) or type(exc).__name__
    else:
        n = len(recipients)
        if not refused:
            return f"sent to {n} recipient{'' if n == 1 else 's'} via {server}"
        # Some got it: still a failure, so the caller does not report success to the user.
        problem = f"sent to only {n - len(refused)} of {n} recipients; refused: {_refusals(refused)}"
    raise DeliveryError(_scrub(f"could not mail the digest via {server}: {problem}", password))


def _deliver(
    cfg: EmailConfig,
    msg: EmailMessage,
    recipients: list[str],
    password: str | None,
    ssl_context: ssl.SSLContext | None,
) -> dict[str, tuple[int, bytes]]:
    host, port, timeout = cfg.host or "", cfg.port, cfg.timeout_seconds
    if cfg.security == "ssl":
        context = ssl_context or ssl.create_default_context()
        smtp: smtplib.SMTP = smtplib.SMTP_SSL(host, port, timeout=timeout, context=context)
    else:
        smtp = smtplib.SMTP(host, port, timeout=timeout)
    with smtp:
        smtp.ehlo()
        if cfg.security == "starttls":
            # starttls() raises SMTPNotSupportedError when not offered: never fall back to plain text.
            smtp.starttls(context=ssl_context or ssl.create_default_context())
            smtp.ehlo()
        if cfg.user:
            _login(smtp, cfg.user, password or "")
        from_addr = cfg.from_addr or cfg.user or ""
        return smtp.send_message(msg, from_addr=from_addr, to_addrs=recipients)


def _login(smtp: smtplib.SMTP, user: str, password: str) -> None:
    """smtplib sends credentials as ASCII only; RFC 4616 PLAIN carries UTF-8, so do that one ourselves."""
    if (user + password).isascii():
        smtp.login(user, password)
        return
    if not smtp.has_extn("auth"):
        raise smtplib.SMTPNotSupportedError("SMTP AUTH extension not supported by server.")
    if "PLAIN" not in smtp.esmtp_features["auth"].upper().split():
        raise smtplib.SMTPException("the server offers no AUTH PLAIN, needed for a non-ASCII password")
    token = base64.b64encode(b"\0" + user.encode() + b"\0" + password.encode()).decode("ascii")
    code, reply = smtp.docmd("AUTH", "PLAIN " + token)
    if code != 235:
        raise smtplib.SMTPAuthenticationError(code, reply)


def _reply(code: int, text: bytes | str) -> str:
    message = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    return f"{code} {' '.join(message.split())}".strip()


def _refusals(refused: Mapping[str, tuple[int, bytes]]) -> str:
    return ", ".join(f"{addr} ({_reply(code, text)})" for addr, (code, text) in refused.items())


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else ""


def _scrub(line: str, password: str | None) -> str:
    """Servers should never echo a password back, but a misbehaving one must not leak it through us."""
    line = " ".join(line.split())
    return line.replace(password, "***") if password else line
