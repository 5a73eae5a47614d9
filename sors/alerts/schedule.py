"""What the scheduler finds due for alerts, in this order: endings (expiry, exhausted),
detection after crawls, confirmation emails, digests.

Like sors.monitoring.schedule, each step commits its own short transactions rather than
using the tick's session: a digest must be committed (reserved, charged, its hits taken)
before the email leaves, so a crash can never send it twice.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sors.alerts import address_repository as addresses
from sors.alerts import digests as emails
from sors.alerts import service, young
from sors.config import get_settings
from sors.jobs.scheduler import register
from sors.kit.security import Signer

BATCH = 500


def _sessions(session: AsyncSession) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(session.bind, expire_on_commit=False, autoflush=False)


def _signer() -> Signer:
    return Signer(get_settings().resolved_secret_key)


@register("alerts.end")
async def end_due(session: AsyncSession, now: datetime) -> int:
    maker = _sessions(session)
    total = 0
    while True:
        async with maker() as s, s.begin():
            ended = await service.expire_due(s, now, limit=BATCH)
        total += ended
        if ended < BATCH:
            return total


@register("alerts.young_posts")
async def young_posts(session: AsyncSession, now: datetime) -> int:
    """Refreshes pulled forward for young posts of creators under a rising alert (their
    next look at 1, 3, 6, 12 or 24 hours of age), within the operator's budget."""
    # Committed at once, so monitoring's refresh check in this same tick sees them due.
    async with _sessions(session)() as s, s.begin():
        return await young.pull_forward(s, now, limit=get_settings().rising_refreshes_per_tick)


@register("alerts.detect")
async def detect(session: AsyncSession, now: datetime) -> int:
    """Hits for every active alert whose profile completed a crawl since its last check."""
    maker = _sessions(session)
    hits = 0
    while True:
        async with maker() as s, s.begin():
            new_hits, checked = await service.detect(s, now, limit=BATCH)
        hits += new_hits
        if checked < BATCH:
            return hits


@register("alerts.confirmations")
async def confirmations(session: AsyncSession, now: datetime) -> int:
    """(Re)send confirmation emails that did not go out when the alert was created."""
    maker = _sessions(session)
    async with maker() as s:
        due = await addresses.confirmations_due(s, now, limit=BATCH)
    settings, signer = get_settings(), _signer()
    sent = 0
    for r in due:
        outcome = await emails.send_confirmation(
            maker, settings, signer, r["account_id"], r["email"], now
        )
        sent += outcome == "sent"
    return sent


@register("alerts.digests")
async def digests(session: AsyncSession, now: datetime) -> int:
    maker = _sessions(session)
    async with maker() as s:
        due = await emails.digests_due(s, now)
    settings, signer = get_settings(), _signer()
    sent = 0
    for account_id, email in due:
        sent += await emails.send_digest(maker, settings, signer, account_id, email, now)
    return sent
