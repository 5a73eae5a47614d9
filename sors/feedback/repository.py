from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sors.feedback.models import Feedback


async def add(session: AsyncSession, f: Feedback) -> None:
    session.add(f)
    await session.flush()


async def get_for_update(session: AsyncSession, feedback_id: str) -> Feedback | None:
    stmt = select(Feedback).where(Feedback.id == feedback_id).with_for_update()
    return (await session.execute(stmt)).scalars().first()


async def list_all(session: AsyncSession, status: str | None, limit: int) -> list[Feedback]:
    stmt = select(Feedback).order_by(Feedback.id.desc()).limit(limit)
    if status:
        stmt = stmt.where(Feedback.status == status)
    return list((await session.execute(stmt)).scalars())
