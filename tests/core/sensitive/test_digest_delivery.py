"""The digest that leaves the machine (mail through a real aiosmtpd on loopback, a desktop
notification through a real dunst, whose history other programs can read) never carries a
sensitive project's words, even while a grant opens them: a grant lets the person read at
this machine, it does not send the project's proposals to a mail server. The digest printed
in the terminal under the same grant still opens them."""

from __future__ import annotations

import json
from pathlib import Path

from memoryd.governance.promotions import SEALED_TITLE
from tests.delivery import shown

from ..governance.sessions import capture
from .support import CANARY, PIN, grant_tty, record, set_pin

REMEMBER = (
    f"Remember: in this repo always file invoices under {CANARY}, never under misc. This is important.",
    f"Understood: invoices go under {CANARY} only; I moved the old ones.",
)


def _email_config(tmp_path: Path, port: int) -> None:
    (tmp_path / "config.toml").write_text(
        f'[email]\nhost = "127.0.0.1"\nport = {port}\nsecurity = "none"\n'
        'from_addr = "memoryd@localhost"\nto = ["me@example.org"]\n'
    )


def test_a_grant_opens_the_terminal_digest_but_not_the_mail_or_the_notification(
    cli, secret_service: str, project: Path, tmp_path: Path, smtp_server, dunst
):
    bus, shown_record = dunst
    server = smtp_server()
    _email_config(tmp_path, server.port)
    record(cli, project, f"Invoice folder {CANARY}", f"Put invoices under {CANARY}/2026.", CANARY)
    record(cli, project, f"{CANARY} account", f"The account is named {CANARY}.", "bank")  # a duplicate group
    session = capture(cli, project, tmp_path, "digest-session-1", [REMEMBER])
    assert json.loads(cli("analyze-session", session, "--json").stdout)["promotion_id"]
    set_pin(cli)
    assert cli("mark-sensitive", str(project), stdin=PIN + "\n").returncode == 0
    grant_tty(project, "session")

    local = cli("digest")
    assert local.returncode == 0, local.stderr
    assert CANARY in local.stdout  # the person at the terminal, under the grant, reads it

    out = cli("digest", "--notify", env={"DBUS_SESSION_BUS_ADDRESS": bus})
    assert out.returncode == 0, out.stderr
    assert "email: sent" in out.stderr, out.stderr
    ((_from, _to, msg),) = server.box.received
    mail = msg.get_content()
    assert CANARY.lower() not in mail.lower() and CANARY.lower() not in str(msg["Subject"]).lower(), mail
    assert SEALED_TITLE in mail and "Pending promotions (1" in mail  # still counted
    ((_app, title, body),) = shown(shown_record)
    assert CANARY.lower() not in (title + body).lower(), body
    assert f"[{project.name}]" not in mail  # the project's folder name is withheld too

    # The terminal's copy is unchanged by the delivery.
    assert CANARY in cli("digest").stdout
