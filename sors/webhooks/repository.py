"""Every query of the webhooks domain."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from sors.events.models import (
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
    WebhookSettings,
)
from sors.webhooks.schemas import DeliveryStatus

# ---- endpoints ----------------------------------------------------------------------------


async def count_endpoints(session: AsyncSession, account_id: str) -> int:
    stmt = select(func.count()).where(WebhookEndpoint.account_id == account_id)
    return int((await session.execute(stmt)).scalar_one())


async def lock_account(session: AsyncSession, account_id: str) -> None:
    # Serialises creations per account so two parallel requests cannot both be the 10th.
    await session.execute(
        text("SELECT pg_advisory_xact_lock(hashtext('webhooks:' || :a))"), {"a": account_id}
    )


async def get_endpoint(
    session: AsyncSession, account_id: str, endpoint_id: str, *, for_update: bool = False
) -> WebhookEndpoint | None:
    stmt = select(WebhookEndpoint).where(
        WebhookEndpoint.id == endpoint_id, WebhookEndpoint.account_id == account_id
    )
    if for_update:
        stmt = stmt.with_for_update()
    return (await session.execute(stmt)).scalars().first()


async def list_endpoints(session: AsyncSession, account_id: str) -> list[WebhookEndpoint]:
    stmt = (
        select(WebhookEndpoint)
        .where(WebhookEndpoint.account_id == account_id)
        .order_by(WebhookEndpoint.id)
    )
    return list((await session.execute(stmt)).scalars())


async def delete_endpoint(session: AsyncSession, endpoint_id: str) -> None:
    await session.execute(delete(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id))


async def settings_row(session: AsyncSession, account_id: str) -> WebhookSettings | None:
    return await session.get(WebhookSettings, account_id)


# ---- events and deliveries ------------------------------------------------------------------


async def delivery_for_attempt(
    session: AsyncSession, delivery_id: str
) -> tuple[WebhookDelivery, WebhookEndpoint, WebhookEvent] | None:
    stmt = (
        select(WebhookDelivery, WebhookEndpoint, WebhookEvent)
        .join(WebhookEndpoint, WebhookEndpoint.id == WebhookDelivery.endpoint_id)
        .join(WebhookEvent, WebhookEvent.id == WebhookDelivery.event_id)
        .where(WebhookDelivery.id == delivery_id)
    )
    row = (await session.execute(stmt)).first()
    return None if row is None else (row[0], row[1], row[2])


async def lock_delivery(session: AsyncSession, delivery_id: str) -> WebhookDelivery | None:
    stmt = select(WebhookDelivery).where(WebhookDelivery.id == delivery_id).with_for_update()
    return (await session.execute(stmt)).scalars().first()


async def get_delivery(
    session: AsyncSession, endpoint_id: str, delivery_id: str
) -> tuple[WebhookDelivery, WebhookEvent] | None:
    stmt = (
        select(WebhookDelivery, WebhookEvent)
        .join(WebhookEvent, WebhookEvent.id == WebhookDelivery.event_id)
        .where(WebhookDelivery.id == delivery_id, WebhookDelivery.endpoint_id == endpoint_id)
    )
    row = (await session.execute(stmt)).first()
    return None if row is None else (row[0], row[1])


async def list_deliveries(
    session: AsyncSession, endpoint_id: str, *, limit: int, before: str | None,
    status: DeliveryStatus | None,
) -> list[tuple[WebhookDelivery, WebhookEvent]]:
    stmt = (
        select(WebhookDelivery, WebhookEvent)
        .join(WebhookEvent, WebhookEvent.id == WebhookDelivery.event_id)
        .where(WebhookDelivery.endpoint_id == endpoint_id)
        .order_by(WebhookDelivery.id.desc())
        .limit(limit)
    )
    if before:
        stmt = stmt.where(WebhookDelivery.id < before)
    if status:
        stmt = stmt.where(WebhookDelivery.status == status)
    return [(d, e) for d, e in (await session.execute(stmt)).all()]


async def attempts_of(
    session: AsyncSession, delivery_ids: Sequence[str]
) -> dict[str, list[WebhookAttempt]]:
    out: dict[str, list[WebhookAttempt]] = {i: [] for i in delivery_ids}
    if not delivery_ids:
        return out
    stmt = (
        select(WebhookAttempt)
        .where(WebhookAttempt.delivery_id.in_(delivery_ids))
        .order_by(WebhookAttempt.id)
    )
    for a in (await session.execute(stmt)).scalars():
        out[a.delivery_id].append(a)
    return out


async def add_attempt(session: AsyncSession, attempt: WebhookAttempt) -> None:
    session.add(attempt)
    await session.flush()


async def fail_pending(session: AsyncSession, endpoint_id: str, now: datetime, error: str) -> int:
    stmt = (
        update(WebhookDelivery)
        .where(WebhookDelivery.endpoint_id == endpoint_id,
               WebhookDelivery.status == DeliveryStatus.PENDING)
        .values(status=DeliveryStatus.FAILED, next_attempt_at=None, finished_at=now, error=error)
        .returning(WebhookDelivery.id)
    )
    return len((await session.execute(stmt)).all())


async def due_deliveries(
    session: AsyncSession, now: datetime, *, limit: int
) -> list[tuple[str, int]]:
    """(id, attempts so far) of pending deliveries whose time has come and that no open
    job is attempting."""
    stmt = text("""
        SELECT d.id, d.attempts FROM webhook_deliveries d
         WHERE d.status = 'pending' AND d.next_attempt_at <= :now
           AND NOT EXISTS (SELECT 1 FROM jobs j
                            WHERE j.dedupe_key = 'webhook:' || d.id
                              AND j.status IN ('pending', 'processing'))
         ORDER BY d.next_attempt_at, d.id
         LIMIT :limit""")
    due = (await session.execute(stmt, {"now": now, "limit": limit})).all()
    return [(i, int(n)) for i, n in due]


async def account_email(session: AsyncSession, account_id: str) -> str | None:
    stmt = text("SELECT email FROM accounts WHERE id = :a")
    return (await session.execute(stmt, {"a": account_id})).scalar()
