"""The queries of niche trends and of the public trending list."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.models import OUTLIER_MIN_SCORE, Post, PostAnalysisRecord, Profile
from sors.catalog.records.repository import (
    Row,
    below_floor,
    from_floor,
    ilike_pattern,
    posts_with_owner,
    read_in_two_parts,
    score_column,
    text_match,
)


@dataclass(frozen=True, slots=True)
class TrendFilter:
    published_since: datetime | None
    query: str | None = None
    platforms: Sequence[str] | None = None


def trend_conditions(f: TrendFilter) -> list[ColumnElement[bool]]:
    # "Trending" is about what works now: deleted posts and inactive profiles stay out.
    conds: list[ColumnElement[bool]] = [Post.deleted_at.is_(None), Profile.is_active.is_(True)]
    if f.published_since is not None:
        conds.append(Post.published_at >= f.published_since)
    if f.platforms:
        conds.append(Post.platform.in_(list(f.platforms)))
    if f.query:
        handle_fragment = f.query.removeprefix("@").lower()
        conds.append(
            or_(
                text_match(f.query),
                Profile.handle.ilike(ilike_pattern(handle_fragment), escape="\\"),
            )
        )
    return conds


async def trend_posts(
    session: AsyncSession, f: TrendFilter, *, score_window: str, limit: int
) -> list[Row]:
    """The best-scoring posts: from the score's index (at or above the baseline) first,
    then, when they are too few, the posts below it in the same order."""
    col = score_column(score_window)
    stmt = posts_with_owner().where(*trend_conditions(f)).order_by(col.desc().nulls_last(),
                                                                   Post.id)

    async def read(part: str, n: int, skip: int) -> list[Row]:
        side = from_floor(col) if part == "head" else below_floor(col)
        return [r._mapping for r in (await session.execute(stmt.where(side).limit(n))).all()]

    return await read_in_two_parts(read, limit=limit)


async def trend_content_types(
    session: AsyncSession, f: TrendFilter, *, score_window: str
) -> list[Row]:
    col = score_column(score_window)
    stmt = (
        select(
            Post.platform,
            Post.content_type,
            func.count().label("count"),
            func.avg(col).label("avg_score"),
        )
        .join(Profile, Profile.id == Post.profile_id)
        .where(*trend_conditions(f))
        .group_by(Post.platform, Post.content_type)
    )
    return [r._mapping for r in (await session.execute(stmt)).all()]


async def trend_hook_types(
    session: AsyncSession, f: TrendFilter, *, score_window: str
) -> list[Row]:
    """Analysed posts per hook type: how many are outliers, how many ordinary."""
    col = score_column(score_window)
    outlier = col >= OUTLIER_MIN_SCORE
    stmt = (
        select(
            PostAnalysisRecord.hook_type,
            func.count().filter(outlier).label("outliers"),
            func.count().filter(~outlier | col.is_(None)).label("ordinary"),
        )
        .join(Post, Post.id == PostAnalysisRecord.post_id)
        .join(Profile, Profile.id == Post.profile_id)
        .where(*trend_conditions(f), PostAnalysisRecord.hook_type.is_not(None))
        .group_by(PostAnalysisRecord.hook_type)
    )
    return [r._mapping for r in (await session.execute(stmt)).all()]


async def trend_creators(
    session: AsyncSession, f: TrendFilter, *, score_window: str, profile_ids: Sequence[str]
) -> dict[str, Row]:
    if not profile_ids:
        return {}
    col = score_column(score_window)
    stmt = (
        select(
            Post.profile_id,
            func.count().label("post_count"),
            func.max(col).label("best_score"),
        )
        .join(Profile, Profile.id == Post.profile_id)
        .where(*trend_conditions(f), Post.profile_id.in_(list(profile_ids)))
        .group_by(Post.profile_id)
    )
    return {r.profile_id: r._mapping for r in (await session.execute(stmt)).all()}


async def trending_posts(session: AsyncSession, *, since: datetime, limit: int) -> list[Row]:
    """Each active creator's best live post published since `since` (by the three-month
    score), best first."""
    col = score_column("three_months")
    best = (
        posts_with_owner()
        .where(
            Post.published_at >= since,
            Post.deleted_at.is_(None),
            Profile.is_active,
            col.is_not(None),
        )
        .order_by(Post.profile_id, col.desc(), Post.id)
        .distinct(Post.profile_id)
        .subquery()
    )
    stmt = select(best).order_by(best.c.score_three_months.desc(), best.c.id).limit(limit)
    return [r._mapping for r in (await session.execute(stmt)).all()]


