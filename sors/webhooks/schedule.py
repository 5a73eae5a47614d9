"""What the scheduler finds due for webhooks: deliveries whose retry time has come (on the
service clock, so simulated time drives the three-day schedule in tests and demos)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sors.events import service as events
from sors.kit.runtime import Runtime
from sors.webhooks import repository as repo

BATCH = 500


async def retries_due(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    maker = async_sessionmaker(session.bind, expire_on_commit=False, autoflush=False)
    queued = 0
    while True:
        async with maker() as s, s.begin():
            due = await repo.due_deliveries(s, now, limit=BATCH)
            for delivery_id, attempts in due:
                await events.enqueue_attempt(s, delivery_id, attempts)
        queued += len(due)
        if len(due) < BATCH:
            return queued


# This domain's scheduled checks, in the order a tick runs them (named in sors.wiring).
CHECKS = (
    ("webhooks.retry", retries_due),
)
