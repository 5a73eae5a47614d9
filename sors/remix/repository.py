"""Every query of the remix domain."""

from __future__ import annotations

from sqlalchemy import select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from sors.queue.models import Job
from sors.remix.models import RemixRecord
from sors.remix.schemas import Remix


async def add(
    session: AsyncSession, *, job_id: str, post_id: str, target_niche: str, tone: str | None
) -> None:
    session.add(RemixRecord(job_id=job_id, post_id=post_id, target_niche=target_niche, tone=tone))
    await session.flush()


async def get(session: AsyncSession, job_id: str) -> RemixRecord | None:
    return await session.get(RemixRecord, job_id)


async def with_job(session: AsyncSession, job_id: str) -> tuple[Job, RemixRecord] | None:
    stmt = (
        select(Job, RemixRecord)
        .join(RemixRecord, RemixRecord.job_id == Job.id)
        .where(Job.id == job_id, Job.type == "remix")
    )
    row = (await session.execute(stmt)).first()
    return None if row is None else (row[0], row[1])


async def save_result(session: AsyncSession, job_id: str, remix: Remix, engine: str) -> None:
    await session.execute(
        update(RemixRecord)
        .where(RemixRecord.job_id == job_id)
        .values(remix=remix.model_dump(mode="json"), engine=engine, completed_at=text("now()"))
    )
