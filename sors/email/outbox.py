"""Sending an email at most once per logical message, through the `email_outbox` table.

`reserve` claims the message's idempotency key (INSERT … ON CONFLICT DO NOTHING); the caller
commits that before handing the message to the backend, then records the outcome with
`mark_sent` or `release`. `release` is only for failures known to have delivered nothing
(the backend raised `EmailDeliveryError`): it frees the key so a later attempt may send.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from enum import StrEnum

import structlog
from sqlalchemy import update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sors.config import Settings
from sors.email import backends
from sors.email.messages import IDEMPOTENCY_HEADER
from sors.email.models import OutboxEmail
from sors.kit.ids import new_id

log = structlog.get_logger("sors.email")


def sessions_like(session: AsyncSession) -> async_sessionmaker[AsyncSession]:
    """Fresh sessions on the same engine as `session` (work that must commit on its own)."""
    return async_sessionmaker(session.bind, expire_on_commit=False, autoflush=False)


async def reserve(
    session: AsyncSession,
    *,
    key: str,
    kind: str,
    to: str,
    account_id: str | None = None,
    charge_entry_id: str | None = None,
) -> str | None:
    """The new outbox id, or None when this key was already claimed."""
    email_id = new_id("eml")
    stmt = (
        insert(OutboxEmail)
        .values(
            id=email_id,
            idempotency_key=key,
            kind=kind,
            to_address=to,
            account_id=account_id,
            charge_entry_id=charge_entry_id,
            status="reserved",
        )
        .on_conflict_do_nothing(index_elements=[OutboxEmail.idempotency_key])
        .returning(OutboxEmail.id)
    )
    return (await session.execute(stmt)).scalar()


async def set_charge(session: AsyncSession, email_id: str, entry_id: str | None) -> None:
    await session.execute(
        update(OutboxEmail).where(OutboxEmail.id == email_id).values(charge_entry_id=entry_id)
    )


async def mark_sent(
    session: AsyncSession, email_id: str, message_id: str, sent_at: datetime
) -> None:
    await session.execute(
        update(OutboxEmail)
        .where(OutboxEmail.id == email_id)
        .values(status="sent", message_id=message_id, sent_at=sent_at)
    )


async def release(session: AsyncSession, email_id: str, error: str) -> None:
    """Record a delivery that certainly failed and free its key for a retry."""
    await session.execute(
        update(OutboxEmail)
        .where(OutboxEmail.id == email_id)
        .values(
            status="failed",
            error=error[:2000],
            idempotency_key=OutboxEmail.idempotency_key + ":failed:" + email_id,
        )
    )


async def deliver(settings: Settings, msg: EmailMessage) -> str:
    """Hand a message to the configured backend; raises EmailDeliveryError."""
    return await backends.get_backend(settings).send(msg)


class SendStatus(StrEnum):
    SENT = "sent"
    DUPLICATE = "duplicate"  # the key was already taken (sent, or left by a crash)
    FAILED = "failed"  # nothing was delivered; the key is free again


@dataclass(frozen=True, slots=True)
class SendResult:
    status: SendStatus
    email_id: str | None = None
    permanent: bool = False  # a failure that retrying the same message will not fix


async def send_once(
    maker: async_sessionmaker[AsyncSession],
    settings: Settings,
    *,
    key: str,
    kind: str,
    to: str,
    account_id: str | None,
    build: Callable[[str], EmailMessage],
) -> SendResult:
    """Reserve, send, record (see `SendStatus`). `build` gets the idempotency key and
    returns the message."""
    async with maker() as s, s.begin():
        email_id = await reserve(s, key=key, kind=kind, to=to, account_id=account_id)
    if email_id is None:
        return SendResult(SendStatus.DUPLICATE)
    msg = build(key)
    if msg[IDEMPOTENCY_HEADER] is None:
        msg[IDEMPOTENCY_HEADER] = key
    try:
        message_id = await deliver(settings, msg)
    except backends.EmailDeliveryError as exc:
        log.warning("email.failed", kind=kind, key=key, error=str(exc), permanent=exc.permanent)
        async with maker() as s, s.begin():
            await release(s, email_id, str(exc))
        return SendResult(SendStatus.FAILED, email_id, exc.permanent)
    async with maker() as s, s.begin():
        await mark_sent(s, email_id, message_id, backends.dated(msg))
    return SendResult(SendStatus.SENT, email_id)


def utc_day(at: datetime) -> str:
    return at.astimezone(UTC).date().isoformat()
