"""The chart data the console draws next to a profile it already fetched (and paid for)
through the API: the profile's posts (no API call lists them all)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.models import Post
from sors.catalog.records.repository import score_column

SCATTER_LIMIT = 400


@dataclass(frozen=True, slots=True)
class ScatterPoint:
    """A post as the profile's scatter draws it."""

    id: str
    published_at: datetime
    views: int | None  # None: hidden (never drawn)
    score: float | None


async def profile_posts(session: AsyncSession, profile_id: str, window: str) -> list[ScatterPoint]:
    """The profile's most recent posts (at most SCATTER_LIMIT): id, date, views, score."""
    stmt = (
        select(Post.id, Post.published_at, Post.views, score_column(window))
        .where(Post.profile_id == profile_id, Post.published_at.is_not(None))
        .order_by(Post.published_at.desc())
        .limit(SCATTER_LIMIT)
    )
    rows = (await session.execute(stmt)).all()
    return [ScatterPoint(r[0], r[1], None if r[2] is None else int(r[2]), r[3]) for r in rows]
