"""The outbox's queries: who is subscribed to an event, the `credits.low` threshold, and the
event and delivery rows."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import ColumnElement, any_, literal, select
from sqlalchemy.ext.asyncio import AsyncSession

from sors.events.models import WebhookDelivery, WebhookEndpoint, WebhookEvent

DEFAULT_CREDITS_LOW = 100


def _subscribed(type_: str) -> ColumnElement[bool]:
    return WebhookEndpoint.enabled & (literal(type_) == any_(WebhookEndpoint.events))


async def subscribed_endpoint_ids(session: AsyncSession, account_id: str, type_: str) -> list[str]:
    stmt = select(WebhookEndpoint.id).where(
        WebhookEndpoint.account_id == account_id, _subscribed(type_)
    )
    return list((await session.execute(stmt)).scalars())


async def accounts_subscribed(
    session: AsyncSession, account_ids: Sequence[str], type_: str
) -> set[str]:
    if not account_ids:
        return set()
    stmt = select(WebhookEndpoint.account_id).where(
        WebhookEndpoint.account_id.in_(set(account_ids)), _subscribed(type_)
    ).distinct()
    return set((await session.execute(stmt)).scalars())


# The account's threshold when one of its enabled endpoints wants `credits.low`, else NULL.
# A scalar subquery on `:a` (the account), so billing's charge statement carries it and a
# charge needs no round trip of its own for it.
CREDITS_LOW_THRESHOLD_SQL = f"""
        SELECT COALESCE(s.credits_low_threshold, {int(DEFAULT_CREDITS_LOW)})
          FROM webhook_endpoints e
          LEFT JOIN webhook_settings s ON s.account_id = e.account_id
         WHERE e.account_id = :a AND e.enabled AND 'credits.low' = ANY(e.events)
         LIMIT 1"""


async def insert_event(session: AsyncSession, event: WebhookEvent) -> None:
    session.add(event)
    await session.flush()


async def insert_delivery(session: AsyncSession, delivery: WebhookDelivery) -> None:
    session.add(delivery)
    await session.flush()
