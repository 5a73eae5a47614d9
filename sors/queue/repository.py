"""Every query of the job engine."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, text, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from sors.queue.models import Job, NewJob

NOTIFY_CHANNEL = "sors_jobs"

# The kinds of job the worker takes (NULL: every kind).
_OF_TYPES = "(CAST(:types AS text[]) IS NULL OR type = ANY(CAST(:types AS text[])))"
_CLAIM = text(f"""
UPDATE jobs SET status = 'processing', attempts = attempts + 1, worker_id = :worker,
       heartbeat_at = now(), started_at = COALESCE(started_at, CAST(:at AS timestamptz))
 WHERE id = (
    SELECT id FROM jobs
     WHERE status = 'pending' AND run_after <= now() AND {_OF_TYPES}
     ORDER BY (origin = 'catalog'), run_after, id
     FOR UPDATE SKIP LOCKED
     LIMIT 1)
RETURNING id
""")


_HAND_BACK = text("""
UPDATE jobs SET status = 'pending', attempts = attempts - 1, worker_id = NULL,
       heartbeat_at = NULL, run_after = now()
 WHERE id = :id AND worker_id = :worker AND status = 'processing'
""")


async def hand_back(session: AsyncSession, job_id: str, worker: str) -> None:
    """Return a job this worker claimed but will not finish (it is shutting down): due at
    once for another worker, and the interrupted attempt does not count."""
    await session.execute(_HAND_BACK, {"id": job_id, "worker": worker})


async def insert_job(session: AsyncSession, values: NewJob) -> bool:
    """Insert the job unless one with its dedupe key is still open; whether it did."""
    stmt = (
        insert(Job).values(**values)
        .on_conflict_do_nothing(
            index_elements=[Job.dedupe_key],
            index_where=text("status IN ('pending','processing') AND dedupe_key IS NOT NULL"),
        )
        .returning(Job.id)
    )
    inserted = (await session.execute(stmt)).first() is not None
    if inserted:
        # Delivered by PostgreSQL only when the transaction commits: the job goes out with
        # the request's commit, never before.
        await session.execute(
            text("SELECT pg_notify(:c, :id)"), {"c": NOTIFY_CHANNEL, "id": values["id"]})
    return inserted


async def open_job_by_dedupe(session: AsyncSession, dedupe_key: str) -> Job | None:
    stmt = select(Job).where(
        Job.dedupe_key == dedupe_key, Job.status.in_(("pending", "processing")))
    return (await session.execute(stmt)).scalars().first()


async def get(session: AsyncSession, job_id: str, *, for_update: bool = False) -> Job | None:
    stmt = select(Job).where(Job.id == job_id)
    if for_update:
        stmt = stmt.with_for_update()
    return (await session.execute(stmt)).scalars().first()


async def claim(
    session: AsyncSession, worker: str, types: list[str] | None, *, at: datetime
) -> str | None:
    """Claim a due job (due and stalled by the database's time, the engine's own); `at`,
    the service clock's now, is the job's `started_at` as callers see it."""
    row = (await session.execute(_CLAIM, {"worker": worker, "types": types, "at": at})).first()
    return None if row is None else row[0]


async def heartbeat(session: AsyncSession, job_id: str, worker: str) -> bool:
    stmt = (
        update(Job)
        .where(Job.id == job_id, Job.worker_id == worker, Job.status == "processing")
        .values(heartbeat_at=text("now()"))
        .returning(Job.id)
    )
    return (await session.execute(stmt)).first() is not None


async def stalled(session: AsyncSession, stall_seconds: int) -> list[Job]:
    stmt = (
        select(Job)
        .where(
            Job.status == "processing",
            Job.heartbeat_at
            < text("now() - make_interval(secs => :s)").bindparams(s=stall_seconds),
        )
        .with_for_update(skip_locked=True)
    )
    return list((await session.execute(stmt)).scalars())
