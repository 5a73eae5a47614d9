"""Email backends: .eml files on disk, and real SMTP delivery to an aiosmtpd server on loopback."""

from __future__ import annotations

import email
import email.policy
import socket
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from sors.config import Settings
from sors.email.backends import (
    EmailBackend,
    EmailDeliveryError,
    FileBackend,
    MemoryBackend,
    SmtpBackend,
    get_backend,
)
from sors.email.messages import DigestItem, alert_digest

NOW = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
SMTP_USER = "mailer"
SMTP_PASSWORD = "s3cret-pw"


def _settings(tmp_path: Path, **overrides: object) -> Settings:
    return Settings(data_dir=tmp_path, email_from="sors <alerts@sors.test>", **overrides)


def _digest(settings: Settings, to: str = "ana@example.com"):
    items = [
        DigestItem(
            post_url="https://www.tiktok.com/@fit.anna/video/7301234567890",
            handle="fit.anna",
            platform="tiktok",
            views=1_830_000,
            outlier_score=4.1,
            score_window="three_months",
            caption_excerpt="Morning yoga flow ✨",
            alert_id="alr_1",
        )
    ]
    return alert_digest(
        to,
        items,
        {"alr_1": "https://sors.test/alerts/stop/tok1"},
        "https://sors.test/alerts/unsubscribe/tok2",
        settings=settings,
        now=NOW,
        idempotency_key="digest:ana@example.com:2026-11-02",
    )


def _parts(msg: email.message.EmailMessage) -> tuple[str, str]:
    text = msg.get_body(("plain",))
    html = msg.get_body(("html",))
    assert text is not None and html is not None
    return text.get_content(), html.get_content()


# --- file backend ------------------------------------------------------------------------


async def test_file_backend_writes_a_parseable_eml_with_both_parts(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    backend = get_backend(settings)
    assert isinstance(backend, FileBackend)
    assert isinstance(backend, EmailBackend)

    msg = _digest(settings)
    message_id = await backend.send(msg)

    files = list(settings.outbox_dir.iterdir())
    assert len(files) == 1, "no temporary file may be left behind"
    path = files[0]
    assert path.suffix == ".eml" and not path.name.startswith(".")
    stamp, _, rest = path.stem.partition("-")
    datetime.strptime(stamp, "%Y%m%dT%H%M%S.%fZ")
    assert len(rest) == 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600

    parsed = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
    assert parsed["Message-ID"] == message_id
    assert parsed["To"] == "ana@example.com"
    assert parsed["X-Sors-Idempotency-Key"] == "digest:ana@example.com:2026-11-02"
    assert parsed.get_content_type() == "multipart/alternative"
    text, html = _parts(parsed)
    assert "1,830,000" in text and "4.1×" in text
    assert 'href="https://www.tiktok.com/@fit.anna/video/7301234567890"' in html


async def test_file_backend_names_sort_by_time_and_never_collide(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    backend = FileBackend(settings.outbox_dir)
    ids = [await backend.send(_digest(settings)) for _ in range(5)]
    assert len(set(ids)) == 5
    names = sorted(p.name for p in settings.outbox_dir.iterdir())
    assert len(names) == 5


async def test_backend_adds_a_message_id_when_missing(tmp_path: Path) -> None:
    msg = email.message.EmailMessage()
    msg["From"] = "sors <alerts@sors.test>"
    msg["To"] = "x@example.com"
    msg["Subject"] = "hi"
    msg.set_content("hello")
    memory = MemoryBackend()
    message_id = await memory.send(msg)
    assert message_id.endswith("@sors.test>")
    assert memory.sent == [msg]


# --- SMTP backend against a real SMTP server ------------------------------------------


@dataclass
class Inbox:
    handler_messages: list = field(default_factory=list)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.endswith("@refused.test"):
            return "550 5.1.1 no such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.handler_messages.append(
            {
                "mail_from": envelope.mail_from,
                "rcpt_tos": list(envelope.rcpt_tos),
                "content": bytes(envelope.original_content or envelope.content),
                "authenticated": session.authenticated,
            }
        )
        return "250 Message accepted for delivery"


def _authenticate(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and auth_data == (
        SMTP_USER.encode(),
        SMTP_PASSWORD.encode(),
    )
    # handled=False: the server itself answers 535 on failure.
    return AuthResult(success=ok, handled=False)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def smtp_server() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    port = _free_port()
    controller = Controller(
        inbox,
        hostname="127.0.0.1",
        port=port,
        authenticator=_authenticate,
        auth_require_tls=False,  # loopback test server without a certificate
    )
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


async def test_smtp_backend_delivers_to_a_real_server(tmp_path: Path, smtp_server) -> None:
    inbox, port = smtp_server
    settings = _settings(
        tmp_path,
        email_backend="smtp",
        smtp_host="127.0.0.1",
        smtp_port=port,
        smtp_username=SMTP_USER,
        smtp_password=SMTP_PASSWORD,
        smtp_timeout=5.0,
    )
    backend = get_backend(settings)
    assert isinstance(backend, SmtpBackend)

    msg = _digest(settings)
    message_id = await backend.send(msg)

    assert len(inbox.handler_messages) == 1
    got = inbox.handler_messages[0]
    assert got["authenticated"] is True
    assert got["mail_from"] == "alerts@sors.test"
    assert got["rcpt_tos"] == ["ana@example.com"]
    received = email.message_from_bytes(got["content"], policy=email.policy.default)
    assert received["Message-ID"] == message_id
    assert received["Subject"] == msg["Subject"]
    assert received["From"] == "sors <alerts@sors.test>"
    assert received["List-Unsubscribe"] == "<https://sors.test/alerts/unsubscribe/tok2>"
    assert received["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert received["X-Sors-Idempotency-Key"] == "digest:ana@example.com:2026-11-02"
    text, html = _parts(received)
    assert "https://www.tiktok.com/@fit.anna/video/7301234567890" in text
    assert "Morning yoga flow ✨" in text and "Morning yoga flow ✨" in html
    assert "4.1×" in html and "1,830,000" in html


async def test_smtp_wrong_password_is_a_delivery_error_without_the_password(smtp_server) -> None:
    _, port = smtp_server
    backend = SmtpBackend("127.0.0.1", port, SMTP_USER, "wrong-password", timeout=5.0)
    with pytest.raises(EmailDeliveryError) as info:
        await backend.send(_digest(Settings(email_from="sors <alerts@sors.test>")))
    assert not info.value.permanent
    assert "wrong-password" not in str(info.value)
    assert "wrong-password" not in repr(backend) and SMTP_USER in repr(backend)


async def test_smtp_refused_recipient_is_permanent(smtp_server) -> None:
    inbox, port = smtp_server
    backend = SmtpBackend("127.0.0.1", port, SMTP_USER, SMTP_PASSWORD, timeout=5.0)
    msg = _digest(Settings(email_from="sors <alerts@sors.test>"), to="nobody@refused.test")
    with pytest.raises(EmailDeliveryError) as info:
        await backend.send(msg)
    assert info.value.permanent
    assert inbox.handler_messages == []


async def test_smtp_unreachable_server_is_a_temporary_error() -> None:
    backend = SmtpBackend("127.0.0.1", _free_port(), timeout=2.0)
    with pytest.raises(EmailDeliveryError) as info:
        await backend.send(_digest(Settings(email_from="sors <alerts@sors.test>")))
    assert not info.value.permanent


def test_smtp_refuses_both_tls_modes() -> None:
    with pytest.raises(ValueError):
        SmtpBackend("127.0.0.1", 25, starttls=True, use_tls=True)
