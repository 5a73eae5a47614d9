"""What the scheduler finds due for subscriptions: the local provider's renewals (each a
paid invoice with its credits), the trial-ending and failed-payment emails, and the daily
re-check of the limits that API spend earns.

Each check commits its own short transactions (as sors.monitoring.schedule explains); rows
are claimed with SKIP LOCKED and an invoice is unique by the period it bills, so even two
schedulers cannot bill a period twice.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sors.kit.runtime import Runtime
from sors.subscriptions import invoices, limits, notices, state
from sors.subscriptions import repository as repo

BATCH = 200


def _sessions(session: AsyncSession) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(session.bind, expire_on_commit=False, autoflush=False)


async def renew_due(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    maker = _sessions(session)
    done = 0
    while True:
        async with maker() as s, s.begin():
            n = await invoices.renew_due(s, now, rt, limit=BATCH)
        done += n
        if n < BATCH:
            return done


async def send_notices(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    """Trial-ending and failed-payment emails (sors.subscriptions.notices)."""
    return await notices.send_due(_sessions(session), rt.settings, now, limit=BATCH)


async def recheck_limits(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    """Once per UTC day: limits earned by spend appear or go, and what exists follows them
    (monitoring pauses or resumes entries)."""
    async with _sessions(session)() as s, s.begin():
        if not await repo.claim_limit_check(s, now):
            return 0
        accounts = await repo.accounts_with_plan_or_spend(s, now - 2 * limits.SPEND_WINDOW)
    for account_id in accounts:
        async with _sessions(session)() as s, s.begin():
            await state.limits_may_have_changed(s, account_id, now, rt)
    return len(accounts)


# This domain's scheduled checks, in the order a tick runs them (named in sors.wiring).
CHECKS = (
    ("subscriptions.renew", renew_due),
    ("subscriptions.notices", send_notices),
    ("subscriptions.limits", recheck_limits),
)
