"""What the scheduler finds due for monitoring: paused entries that can pay again (credits
arrived, or a new UTC day for a key's cap), and refreshes whose time has come.

Each check commits its own short transactions instead of using the tick's session: alert
digests (sors.alerts.schedule) must commit before an email leaves, and work done in the
tick's still-open transaction would hold row locks (account balances, tracking entries)
that those commits wait for. The tick's advisory lock still keeps ticks single, and the
entries are claimed with SKIP LOCKED and moved on in the same transaction as their charge,
so even two schedulers could not refresh an entry twice.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sors.kit.runtime import Runtime
from sors.monitoring import refreshes

BATCH = 200


def _sessions(session: AsyncSession) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(session.bind, expire_on_commit=False, autoflush=False)


async def resume_funded(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    """Entries paused for credits whose account can pay a refresh again: due at once."""
    async with _sessions(session)() as s, s.begin():
        return await refreshes.resume_funded(s, now)


async def resume_next_day(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    """Entries their key's daily cap paused on an earlier UTC day: due at once."""
    async with _sessions(session)() as s, s.begin():
        return await refreshes.resume_next_day(s, now)


async def refresh_due(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    """Charge and queue every due refresh (or pause it); returns how many were queued."""
    maker = _sessions(session)
    started = 0
    while True:
        async with maker() as s, s.begin():
            out = await refreshes.refresh_due(s, now, rt.settings, limit=BATCH)
        started += out.started
        if out.seen < BATCH:
            return started


# This domain's scheduled checks, in the order a tick runs them (named in sors.wiring).
CHECKS = (
    ("monitoring.resume", resume_funded),
    ("monitoring.resume_next_day", resume_next_day),
    ("monitoring.refresh", refresh_due),
)
