"""Queueing jobs and settling them: complete, retry later, or fail with exactly one refund."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.billing import service as billing
from sors.events import service as events
from sors.jobs.schemas import job_record
from sors.kit.ids import new_id
from sors.queue import repository as repo
from sors.queue.models import Job, NewJob


async def enqueue(
    session: AsyncSession,
    *,
    type: str,
    account_id: str | None,
    payload: Mapping[str, object],
    credits: int,
    now: datetime,
    max_attempts: int,
    dedupe_key: str | None = None,
    origin: str = "api",
    target: str | None = None,
) -> tuple[Job, bool]:
    """Insert the job (in the caller's transaction), made at `now`, tried at most
    `max_attempts` times (`settings.jobs.max_attempts` unless the kind says otherwise).
    Returns (job, created); with a dedupe key already open, the existing job and False."""
    job_id = new_id("job")
    created = await repo.insert_job(session, NewJob(
        id=job_id, account_id=account_id, type=type, payload=payload, dedupe_key=dedupe_key,
        credits_charged=credits, max_attempts=max_attempts, origin=origin, target=target,
        created_at=now,
    ))
    if created:
        job = await repo.get(session, job_id)
    else:
        job = await repo.open_job_by_dedupe(session, dedupe_key or "")
    assert job is not None
    return job, created


async def complete(
    session: AsyncSession, job: Job, result: Mapping[str, object], now: datetime
) -> None:
    job.status = "completed"
    job.result = dict(result)
    job.error = None
    job.finished_at = now
    await session.flush()
    await _announce(session, job, now)


async def retry_later(
    session: AsyncSession, job: Job, *, delay: timedelta, error: dict[str, str]
) -> None:
    job.status = "pending"
    job.worker_id = None
    job.heartbeat_at = None
    job.error = error  # the last transient error, visible while it waits
    job.run_after = await _db_now(session) + delay
    await session.flush()


async def fail(
    session: AsyncSession, job: Job, *, code: str, message: str, now: datetime
) -> None:
    """Fail for good and refund the charge; the ledger's unique refund reference makes a
    second refund impossible even if this runs twice."""
    job.status = "failed"
    job.error = {"code": code, "message": message}
    job.finished_at = now
    moved = await billing.refund_job(
        session, job.id, reason=f"{job.type} job failed: {code}", now=now)
    if moved is not None and moved.amount:
        job.credits_refunded = (job.credits_refunded or 0) + moved.amount
    await session.flush()
    await _announce(session, job, now)


async def refund_part(
    session: AsyncSession, job_id: str, *, keep: int, reason: str, now: datetime
) -> int:
    """Refund what the job's charge exceeds `keep` by (once; noted on the job, as a failed
    job's refund is). Returns the credits refunded."""
    job = await repo.get(session, job_id, for_update=True)
    moved = await billing.refund_job_part(session, job_id, keep=keep, reason=reason, now=now)
    if job is None or moved is None or not moved.amount:
        return 0
    job.credits_refunded = (job.credits_refunded or 0) + moved.amount
    await session.flush()
    return moved.amount


# Jobs callers see; webhook deliveries are jobs too but never announced.
_ANNOUNCED_JOBS = ("crawl", "refresh", "transcription", "media", "remix", "analysis")


async def _announce(session: AsyncSession, job: Job, at: datetime) -> None:
    """`job.completed` / `job.failed` (at `at`, the job's end) with the job record as GET
    /jobs/{jobRef} shows it."""
    if job.account_id is None or job.type not in _ANNOUNCED_JOBS:
        return
    if job.status not in ("completed", "failed"):
        return
    await events.emit(session, job.account_id, f"job.{job.status}", job_record(job), at=at)


def backoff(attempt: int, *, base: float = 5.0, cap: float = 300.0) -> timedelta:
    return timedelta(seconds=min(cap, base * (2 ** max(0, attempt - 1))))


async def _db_now(session: AsyncSession) -> datetime:
    return (await session.execute(text("SELECT now()"))).scalar_one()
