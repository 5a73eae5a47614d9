"""The queries of rising posts: each creator's most rising young post, and what a chart of
it needs (its snapshots, its creator's curve)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.models import Post, Profile, ProfileCategory
from sors.catalog.records.repository import Row, posts_with_owner
from sors.catalog.trends.repository import TrendFilter, trend_conditions


async def rising_posts(
    session: AsyncSession, f: TrendFilter, *, category_ids: Sequence[str] | None, limit: int
) -> list[Row]:
    """Posts flagged rising at their last crawl (above their creator's p90 and 3× its median
    at their age, and accelerating), published since `f.published_since`: each creator's
    furthest above its median curve, furthest first. Reads the partial index of rising posts."""
    conds = [*trend_conditions(f), Post.rising]  # `WHERE rising`: the partial index's own predicate
    if category_ids is not None:
        conds.append(
            select(ProfileCategory.profile_id)
            .where(ProfileCategory.profile_id == Post.profile_id,
                   ProfileCategory.category_id.in_(list(category_ids)))
            .exists()
        )
    # Each creator's best, picked from narrow rows; the page's full rows read after.
    best = (
        select(Post.id, Post.profile_id, Post.rising_score)
        .join(Profile, Profile.id == Post.profile_id)
        .where(*conds)
        .order_by(Post.profile_id, Post.rising_score.desc(), Post.id)
        .distinct(Post.profile_id)
        .subquery()
    )
    page = (
        select(best.c.id, best.c.rising_score)
        .order_by(best.c.rising_score.desc(), best.c.id)
        .limit(limit)
        .subquery()
    )
    stmt = (
        posts_with_owner()
        .add_columns(func.sors_format_group(Post.platform, Post.content_type).label("fmt"))
        .join(page, page.c.id == Post.id)
        .order_by(page.c.rising_score.desc(), page.c.id)
    )
    return [r._mapping for r in (await session.execute(stmt)).all()]


async def snapshots(
    session: AsyncSession, post_ids: Sequence[str], *, until: datetime | None = None
) -> dict[str, list[tuple[datetime, int | None]]]:
    """Each post's stat snapshots, oldest first."""
    if not post_ids:
        return {}
    rows = await session.execute(
        text("""SELECT post_id, crawled_at, views FROM post_stats
                 WHERE post_id = ANY(CAST(:ids AS text[]))
                   AND (CAST(:until AS timestamptz) IS NULL OR crawled_at <= :until)
                 ORDER BY post_id, crawled_at"""),
        {"ids": list(post_ids), "until": until},
    )
    out: dict[str, list[tuple[datetime, int | None]]] = {}
    for pid, at, views in rows:
        out.setdefault(pid, []).append((at, views))
    return out
