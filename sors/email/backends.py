"""Where finished emails go: .eml files in the outbox directory, or an SMTP server.

Every backend takes a complete `EmailMessage` (built by `sors.email.messages`) and returns
its Message-ID, so the outbox layer can record what went out. Delivery failures surface as
`EmailDeliveryError`, whose `permanent` flag tells the caller whether retrying can help.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import uuid
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import make_msgid, parseaddr, parsedate_to_datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import aiosmtplib
import structlog

from sors.kit.clock import utcnow

if TYPE_CHECKING:
    from sors.config import Settings

log = structlog.get_logger(__name__)


class EmailDeliveryError(Exception):
    """The message was not accepted. `permanent`: retrying the same message will not help."""

    def __init__(self, message: str, *, permanent: bool = False) -> None:
        super().__init__(message)
        self.permanent = permanent


@runtime_checkable
class EmailBackend(Protocol):
    async def send(self, msg: EmailMessage) -> str:
        """Deliver `msg`; return its Message-ID."""
        ...


def ensure_message_id(msg: EmailMessage) -> str:
    """The message's Message-ID, adding one when the builder did not."""
    existing = msg["Message-ID"]
    if existing:
        return str(existing)
    _, addr = parseaddr(str(msg["From"] or ""))
    domain = addr.rpartition("@")[2] or "sors.local"
    # An explicit domain: make_msgid would otherwise call socket.getfqdn(), which can block.
    msg["Message-ID"] = make_msgid(domain=domain)
    return str(msg["Message-ID"])


def dated(msg: EmailMessage) -> datetime:
    """When the message says it was written: its Date header, which its builder set from the
    caller's clock (`sors.email.messages`, simulated time included); an undated message is
    dated by the wall clock."""
    raw = msg["Date"]
    return parsedate_to_datetime(str(raw)) if raw else utcnow()


class FileBackend:
    """Writes each message to `outbox_dir` as `<UTC timestamp>-<uuid>.eml`, the timestamp
    being the message's date (`dated`).

    The file appears complete or not at all (temporary file + rename in the same directory),
    so a reader polling the outbox never sees half a message. Files are private (0600): some
    messages carry API keys.
    """

    def __init__(self, outbox_dir: Path | str) -> None:
        self.outbox_dir = Path(outbox_dir)

    async def send(self, msg: EmailMessage) -> str:
        message_id = ensure_message_id(msg)
        data = msg.as_bytes()
        path = await asyncio.to_thread(self._write, data, dated(msg))
        log.info("email.written", message_id=message_id, path=str(path), to=str(msg["To"]))
        return message_id

    def _write(self, data: bytes, at: datetime) -> Path:
        self.outbox_dir.mkdir(parents=True, exist_ok=True)
        stamp = at.astimezone(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
        final = self.outbox_dir / f"{stamp}-{uuid.uuid4().hex}.eml"
        fd, tmp = tempfile.mkstemp(dir=self.outbox_dir, prefix=".tmp-", suffix=".eml")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, final)
        except BaseException:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            raise
        return final


class SmtpBackend:
    """Sends through an SMTP server with aiosmtplib, one connection per message.

    `use_tls`: implicit TLS from the first byte (port 465). `starttls`: upgrade a plain
    connection and fail if the server cannot. With neither, the connection stays plain.
    """

    def __init__(
        self,
        host: str,
        port: int,
        username: str | None = None,
        password: str | None = None,
        starttls: bool = False,
        use_tls: bool = False,
        timeout: float = 10.0,
    ) -> None:
        if starttls and use_tls:
            raise ValueError("choose either implicit TLS (use_tls) or STARTTLS, not both")
        self.host = host
        self.port = port
        self.username = username or None
        self._password = password or None
        self.starttls = starttls
        self.use_tls = use_tls
        self.timeout = timeout

    def __repr__(self) -> str:  # never show the password, even in tracebacks
        return (
            f"SmtpBackend(host={self.host!r}, port={self.port}, username={self.username!r}, "
            f"starttls={self.starttls}, use_tls={self.use_tls}, timeout={self.timeout})"
        )

    async def send(self, msg: EmailMessage) -> str:
        message_id = ensure_message_id(msg)
        try:
            await aiosmtplib.send(
                msg,
                hostname=self.host,
                port=self.port,
                username=self.username,
                password=self._password,
                use_tls=self.use_tls,
                start_tls=self.starttls,
                timeout=self.timeout,
            )
        except aiosmtplib.SMTPRecipientsRefused as exc:
            codes = [err.code for err in exc.recipients]
            raise EmailDeliveryError(
                f"recipients refused: {', '.join(str(c) for c in codes)}",
                permanent=all(500 <= c < 600 for c in codes),
            ) from exc
        except aiosmtplib.SMTPAuthenticationError as exc:
            # Wrong credentials stay wrong until an operator fixes the settings; the outbox
            # should keep the message for later rather than drop it.
            raise EmailDeliveryError(f"SMTP authentication failed ({exc.code})") from exc
        except aiosmtplib.SMTPResponseException as exc:
            raise EmailDeliveryError(
                f"SMTP server answered {exc.code}: {exc.message}",
                permanent=500 <= exc.code < 600,
            ) from exc
        except (aiosmtplib.SMTPException, OSError, TimeoutError) as exc:
            raise EmailDeliveryError(
                f"cannot reach SMTP server {self.host}:{self.port}: {type(exc).__name__}"
            ) from exc
        log.info("email.sent", message_id=message_id, to=str(msg["To"]), smtp_host=self.host)
        return message_id


class MemoryBackend:
    """Keeps messages in a list: a seam for tests of code that sends email."""

    def __init__(self) -> None:
        self.sent: list[EmailMessage] = []

    async def send(self, msg: EmailMessage) -> str:
        message_id = ensure_message_id(msg)
        self.sent.append(msg)
        return message_id


def get_backend(settings: Settings) -> EmailBackend:
    if settings.email.backend == "smtp":
        return SmtpBackend(
            host=settings.email.smtp_host,
            port=settings.email.smtp_port,
            username=settings.email.smtp_username,
            password=settings.email.smtp_password,
            starttls=settings.email.smtp_starttls,
            use_tls=settings.email.smtp_use_tls,
            timeout=settings.email.smtp_timeout,
        )
    if settings.email.backend == "file":
        return FileBackend(settings.outbox_dir)
    raise ValueError(f"unknown email backend {settings.email.backend!r}")
