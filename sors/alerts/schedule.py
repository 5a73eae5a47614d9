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
from sors.kit.runtime import Runtime
from sors.kit.security import Signer

BATCH = 500


def _sessions(session: AsyncSession) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(session.bind, expire_on_commit=False, autoflush=False)


def _signer(rt: Runtime) -> Signer:
    return Signer(rt.settings.resolved_secret_key)


async def end_due(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    maker = _sessions(session)
    total = 0
    while True:
        async with maker() as s, s.begin():
            ended = await service.expire_due(s, now, limit=BATCH)
        total += ended
        if ended < BATCH:
            return total


async def young_posts(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    """Refreshes pulled forward for young posts of creators under a rising alert (their
    next look at 1, 3, 6, 12 or 24 hours of age), within the operator's budget."""
    # Committed at once, so monitoring's refresh check in this same tick sees them due.
    async with _sessions(session)() as s, s.begin():
        return await young.pull_forward(s, now, limit=rt.settings.keeper.rising_refreshes_per_tick)


async def detect(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    """Hits for every active alert whose profile completed a crawl since its last check."""
    maker = _sessions(session)
    hits = 0
    while True:
        async with maker() as s, s.begin():
            new_hits, checked = await service.detect(
                s, now, limit=BATCH, min_age_hours=rt.settings.jobs.baseline_min_age_hours)
        hits += new_hits
        if checked < BATCH:
            return hits


async def confirmations(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    """(Re)send confirmation emails that did not go out when the alert was created."""
    maker = _sessions(session)
    async with maker() as s:
        due = await addresses.confirmations_due(s, now, limit=BATCH)
    settings, signer = rt.settings, _signer(rt)
    sent = 0
    for r in due:
        outcome = await emails.send_confirmation(
            maker, settings, signer, r["account_id"], r["email"], now
        )
        sent += outcome is emails.Confirmation.SENT
    return sent


async def digests(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    maker = _sessions(session)
    async with maker() as s:
        due = await emails.digests_due(s, now)
    settings, signer = rt.settings, _signer(rt)
    sent = 0
    for account_id, email in due:
        outcome = await emails.send_digest(maker, settings, signer, account_id, email, now)
        sent += outcome is emails.Digest.SENT
    return sent


# This domain's scheduled checks, in the order a tick runs them (named in sors.wiring).
CHECKS = (
    ("alerts.end", end_due),
    ("alerts.young_posts", young_posts),
    ("alerts.detect", detect),
    ("alerts.confirmations", confirmations),
    ("alerts.digests", digests),
)
