"""The scheduler's paid refreshes of tracking entries: each one charged through the key that
saved the entry (so that key's daily spend cap applies), or the entry paused — with the
reason on the entry and a `tracking.paused` event — when the charge cannot happen; and the
resumptions that undo those pauses."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from sors.billing import service as billing
from sors.billing.errors import InsufficientCredits, SpendCapReached
from sors.billing.models import ChargeRequest
from sors.config import Settings
from sors.events import service as events
from sors.jobs import service as jobs
from sors.kit.clock import isoformat
from sors.monitoring import repository as repo
from sors.monitoring.models import PausedReason
from sors.monitoring.service import CADENCE, REFRESH_SKILL, refresh_cost

PAUSED_EVENT = "tracking.paused"


@dataclass
class RefreshOutcome:
    seen: int = 0
    started: int = 0
    paused: int = 0


@dataclass(frozen=True)
class _Due:
    account_id: str
    profile_id: str
    platform: str
    handle: str
    frequency: str
    key_id: str | None  # None: an entry saved before keys were recorded (no cap)
    key_revoked: bool


def next_utc_day(now: datetime) -> datetime:
    """00:00 UTC after `now`: when every key's daily cap starts again."""
    return datetime.combine(now.astimezone(UTC).date() + timedelta(days=1), time(0), tzinfo=UTC)


async def refresh_due(
    session: AsyncSession, now: datetime, settings: Settings, *, limit: int
) -> RefreshOutcome:
    """Start the due refreshes of up to `limit` entries, in the caller's transaction: each
    one charged through the entry's key (job_ref = its job, so a failed crawl refunds
    exactly once) and queued, or paused: the balance cannot cover it, the key's daily cap
    refuses it, or the key was revoked (nothing is charged through a revoked key). The
    entries stay locked until the caller commits, with their next refresh already moved
    on."""
    out = RefreshOutcome()
    due = [
        _Due(e.account_id, p.id, p.platform, p.handle, e.frequency, e.key_id, revoked)
        for e, p, revoked in await repo.due_entries(session, now, limit=limit)
    ]
    out.seen = len(due)
    for d in due:
        if d.key_revoked:
            await _pause(session, d, PausedReason.KEY_REVOKED, now)
            out.paused += 1
            continue
        started = await _start(session, d, now, settings)
        if isinstance(started, PausedReason):
            await _pause(session, d, started, now)
            out.paused += 1
        else:
            out.started += int(started)
    return out


async def _start(
    session: AsyncSession, d: _Due, now: datetime, settings: Settings
) -> bool | PausedReason:
    """Queue and charge one refresh: whether a new job started (an open one is not paid for
    twice), or why it could not be paid (nothing of it kept)."""
    cost = refresh_cost()
    savepoint = await session.begin_nested()
    try:
        job, created = await jobs.enqueue(
            session,
            type="refresh",
            account_id=d.account_id,
            payload={"platform": d.platform, "handle": d.handle, "profileId": d.profile_id},
            credits=cost,
            now=now,
            max_attempts=settings.jobs.max_attempts,
            dedupe_key=f"refresh:{d.account_id}:{d.profile_id}",
            origin="monitoring",
            target=f"{d.platform}:{d.handle}",
        )
        if created:
            await billing.charge(session, ChargeRequest(
                d.account_id, cost, REFRESH_SKILL, at=now,
                reason=f"refresh of {d.platform} @{d.handle}", job_ref=job.id, key_id=d.key_id,
            ))
    except SpendCapReached:
        await savepoint.rollback()
        return PausedReason.SPEND_CAP
    except InsufficientCredits:
        await savepoint.rollback()
        return PausedReason.NO_CREDITS
    await savepoint.commit()
    await repo.update_entry(
        session, d.account_id, d.profile_id,
        last_job_id=job.id, next_crawl_at=now + CADENCE[d.frequency], updated_at=now,
    )
    return created


async def _pause(session: AsyncSession, d: _Due, reason: PausedReason, now: datetime) -> None:
    await repo.update_entry(
        session, d.account_id, d.profile_id, paused_reason=reason, paused_at=now, updated_at=now
    )
    resumes = next_utc_day(now) if reason is PausedReason.SPEND_CAP else None
    await events.emit(session, d.account_id, PAUSED_EVENT, {
        "profileId": d.profile_id, "platform": d.platform, "handle": d.handle,
        "reason": reason.value, "keyId": d.key_id, "pausedAt": isoformat(now),
        "resumesAt": isoformat(resumes),
    }, at=now)


async def resume_funded(session: AsyncSession, now: datetime) -> int:
    """Entries paused for credits whose account can pay a refresh again: due at once."""
    return await repo.resume_funded(session, now, refresh_cost())


async def resume_next_day(session: AsyncSession, now: datetime) -> int:
    """Entries their key's cap paused on an earlier UTC day (the cap has started again):
    due at once."""
    day_start = datetime.combine(now.astimezone(UTC).date(), time(0), tzinfo=UTC)
    return await repo.resume_next_day(session, now, day_start)
