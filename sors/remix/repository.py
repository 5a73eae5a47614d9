"""Every query of the remix domain."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from sors.queue.models import Job
from sors.remix.models import RemixRecord


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


async def save_result(
    session: AsyncSession, job_id: str, remix: dict[str, Any], engine: str
) -> None:
    await session.execute(
        update(RemixRecord)
        .where(RemixRecord.job_id == job_id)
        .values(remix=remix, engine=engine, completed_at=text("now()"))
    )
