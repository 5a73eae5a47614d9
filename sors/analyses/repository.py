"""Every query of the analyses domain: a creator's posts with what enrichment found, the
stored features and breakdowns (`catalog.models.PostAnalysisRecord`), the hook library."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import ColumnElement, Select, func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.models import (
    Post,
    PostAnalysisRecord,
    Profile,
    ProfileCategory,
    TranscriptRecord,
    VisualAnalysisRecord,
)
from sors.catalog.records.analysis_schemas import Analysis
from sors.queue.models import Job

# A hook of the library with its post, its creator and the post's score.
HookRow = tuple[PostAnalysisRecord, Post, Profile, float | None]

# The score a post is compared by: its creator's three-month baseline, else all-time.
SCORE = func.coalesce(Post.score_three_months, Post.score_all_time)


# A post with what enrichment found for it.
PostRow = tuple[Post, TranscriptRecord | None, VisualAnalysisRecord | None]


def _with_media() -> Select[Post, TranscriptRecord, VisualAnalysisRecord]:
    return (
        select(Post, TranscriptRecord, VisualAnalysisRecord)
        .outerjoin(TranscriptRecord, TranscriptRecord.post_id == Post.id)
        .outerjoin(VisualAnalysisRecord, VisualAnalysisRecord.post_id == Post.id)
    )


async def creator_posts(session: AsyncSession, profile_id: str) -> list[PostRow]:
    """Every live post of the creator with its transcript and visual analysis, if any."""
    stmt = (
        _with_media()
        .where(Post.profile_id == profile_id, Post.deleted_at.is_(None))
        .order_by(Post.published_at.desc(), Post.id)
    )
    return [(r[0], r[1], r[2]) for r in (await session.execute(stmt)).all()]


async def post_with_media(session: AsyncSession, post_id: str) -> PostRow | None:
    """The post (deleted or not) with its transcript and visual analysis."""
    row = (await session.execute(_with_media().where(Post.id == post_id))).first()
    return None if row is None else (row[0], row[1], row[2])


async def posts_with_media(session: AsyncSession, post_ids: Sequence[str]) -> list[PostRow]:
    stmt = _with_media().where(Post.id.in_(list(post_ids))).order_by(Post.id)
    return [(r[0], r[1], r[2]) for r in (await session.execute(stmt)).all()]


async def first_category(session: AsyncSession, profile_id: str) -> str | None:
    """The creator's first niche (the classifier's best)."""
    stmt = (
        select(ProfileCategory.category_id)
        .where(ProfileCategory.profile_id == profile_id)
        .order_by(ProfileCategory.rank, ProfileCategory.category_id)
        .limit(1)
    )
    return (await session.execute(stmt)).scalar_one_or_none()


async def follower_count(session: AsyncSession, profile_id: str) -> int | None:
    stmt = select(Profile.follower_count).where(Profile.id == profile_id)
    return (await session.execute(stmt)).scalar_one_or_none()


async def niche_posts(
    session: AsyncSession, *, platform: str, category_ids: Sequence[str], exclude_profile: str,
    followers: tuple[int, int] | None, published: tuple[datetime, datetime], limit: int,
) -> list[PostRow]:
    """Live posts of active creators in the niche (any of `category_ids`), other than
    `exclude_profile`, published within `published`, with their follower count in
    `followers`: a stable sample of at most `limit` (by a hash of the post id)."""
    conds: list[ColumnElement[bool]] = [
        Post.platform == platform,
        Post.profile_id != exclude_profile,
        Post.deleted_at.is_(None),
        Post.engagement_anomaly.is_(False),  # likely bought views: no idea to learn from
        Post.published_at >= published[0],
        Post.published_at <= published[1],
        Profile.is_active.is_(True),
        select(ProfileCategory.profile_id)
        .where(ProfileCategory.profile_id == Post.profile_id,
               ProfileCategory.category_id.in_(list(category_ids)))
        .exists(),
    ]
    if followers is not None:
        conds.append(Profile.follower_count.between(*followers))
    stmt = (
        _with_media()
        .join(Profile, Profile.id == Post.profile_id)
        .where(*conds)
        .order_by(func.md5(Post.id))
        .limit(limit)
    )
    return [(r[0], r[1], r[2]) for r in (await session.execute(stmt)).all()]


# Features of many posts in one constant statement (the catalog's set-based writes).
_SAVE_FEATURES = text("""
INSERT INTO post_analyses (post_id, features, hook_type, hook_text)
SELECT u.post_id, u.features::jsonb, u.hook_type, u.hook_text
  FROM unnest(CAST(:post_id AS text[]), CAST(:features AS text[]),
              CAST(:hook_type AS text[]), CAST(:hook_text AS text[]))
       AS u(post_id, features, hook_type, hook_text)
ON CONFLICT (post_id) DO UPDATE
   SET features = EXCLUDED.features, hook_type = EXCLUDED.hook_type,
       hook_text = EXCLUDED.hook_text, features_at = now()
""")


async def peers_without_media(
    session: AsyncSession, post: Post, *, outliers: int, ordinary: int, min_score: float,
    content_types: Sequence[str],
) -> list[str]:
    """Ids of the creator's other live posts lacking a transcript or a visual analysis:
    their best outliers first, then their most recent ordinary posts."""
    base = select(Post.id).where(
        Post.profile_id == post.profile_id,
        Post.id != post.id,
        Post.deleted_at.is_(None),
        Post.content_type.in_(list(content_types)),
        ~(Post.has_transcript & Post.has_visual_analysis),
    )
    top = base.where(SCORE >= min_score).order_by(SCORE.desc(), Post.id).limit(outliers)
    rest = (
        base.where(func.coalesce(SCORE, 0) < min_score)
        .order_by(Post.published_at.desc(), Post.id)
        .limit(ordinary)
    )
    ids = list((await session.execute(top)).scalars())
    return ids + list((await session.execute(rest)).scalars())


async def peers_with_media(
    session: AsyncSession, post: Post, *, content_types: Sequence[str]
) -> int:
    """How many of the creator's other live posts of these types have a transcript and a
    visual analysis."""
    stmt = select(func.count()).where(
        Post.profile_id == post.profile_id,
        Post.id != post.id,
        Post.deleted_at.is_(None),
        Post.content_type.in_(list(content_types)),
        Post.has_transcript & Post.has_visual_analysis,
    )
    return int((await session.execute(stmt)).scalar_one())


@dataclass(frozen=True)
class FeaturesRow:
    post_id: str
    features: dict[str, object]  # the post's features as JSON (analyses.features)
    hook_type: str | None
    hook_text: str | None


async def save_features(session: AsyncSession, rows: Sequence[FeaturesRow]) -> None:
    """Upsert features (post_id, features, hook_type, hook_text), keeping any breakdown."""
    if not rows:
        return
    await session.execute(
        _SAVE_FEATURES,
        {
            "post_id": [r.post_id for r in rows],
            "features": [json.dumps(r.features) for r in rows],
            "hook_type": [r.hook_type for r in rows],
            "hook_text": [r.hook_text for r in rows],
        },
    )


_OUTLIERS_WITHOUT_HOOKS = text("""
SELECT p.id
  FROM posts p
  LEFT JOIN post_analyses pa ON pa.post_id = p.id
 WHERE p.deleted_at IS NULL
   AND coalesce(p.score_three_months, p.score_all_time) >= :min_score
   AND (pa.post_id IS NULL
        OR coalesce((pa.features->>'version')::int, 1) < :version
        OR (p.has_transcript AND p.has_visual_analysis
            AND pa.features->'measured'->>'hookType' IS DISTINCT FROM 'media'))
 ORDER BY coalesce(p.score_three_months, p.score_all_time) DESC, p.id
 LIMIT :limit
""")


async def outliers_without_hooks(
    session: AsyncSession, *, min_score: float, version: int, limit: int
) -> list[str]:
    """Live outliers whose features are missing, older than `version`, or made before their
    media were (the hook library's background pass), best first."""
    found = await session.execute(
        _OUTLIERS_WITHOUT_HOOKS, {"min_score": min_score, "version": version, "limit": limit})
    return list(found.scalars())


# Kept beside the breakdown in its own columns (`engine`, `analysed_at`), not in its JSON.
_OWN_COLUMNS = {"engine", "analysedAt"}


async def save_analysis(
    session: AsyncSession, post_id: str, analysis: Analysis, engine: str
) -> None:
    data = analysis.model_dump(mode="json", exclude=_OWN_COLUMNS, exclude_unset=True)
    await session.execute(
        update(PostAnalysisRecord)
        .where(PostAnalysisRecord.post_id == post_id)
        .values(analysis=data, engine=engine, analysed_at=text("now()"))
    )


async def get(session: AsyncSession, post_id: str) -> PostAnalysisRecord | None:
    return await session.get(PostAnalysisRecord, post_id)


async def analysis_job(session: AsyncSession, job_id: str) -> Job | None:
    stmt = select(Job).where(Job.id == job_id, Job.type == "analysis")
    return (await session.execute(stmt)).scalars().first()


async def search_hooks(
    session: AsyncSession,
    *,
    query: str | None,
    hook_types: Sequence[str] | None,
    platforms: Sequence[str] | None,
    category_ids: Sequence[str] | None,
    min_score: float | None,
    since: datetime | None,
    sort_by: Literal["score", "recency"],
    limit: int,
    offset: int,
) -> tuple[list[HookRow], int]:
    """(one page of hooks with their post and creator, how many match in all)."""
    conds: list[ColumnElement[bool]] = [
        PostAnalysisRecord.hook_type.is_not(None), Post.deleted_at.is_(None),
    ]
    if query:
        conds.append(
            func.to_tsvector("simple", PostAnalysisRecord.hook_text).op("@@")(
                func.plainto_tsquery("simple", query)
            )
        )
    if hook_types:
        conds.append(PostAnalysisRecord.hook_type.in_(list(hook_types)))
    if platforms:
        conds.append(Post.platform.in_(list(platforms)))
    if min_score is not None:
        conds.append(SCORE >= min_score)
    if since is not None:
        conds.append(Post.published_at >= since)
    if category_ids is not None:
        conds.append(
            select(ProfileCategory.profile_id)
            .where(
                ProfileCategory.profile_id == Post.profile_id,
                ProfileCategory.category_id.in_(list(category_ids)),
            )
            .exists()
        )
    base = (
        select(PostAnalysisRecord, Post, Profile, SCORE.label("score"))
        .join(Post, Post.id == PostAnalysisRecord.post_id)
        .join(Profile, Profile.id == Post.profile_id)
        .where(*conds)
    )
    order = (
        [Post.published_at.desc(), Post.id]
        if sort_by == "recency"
        else [SCORE.desc().nulls_last(), Post.id]
    )
    found = (await session.execute(base.order_by(*order).limit(limit).offset(offset))).all()
    rows: list[HookRow] = [(r[0], r[1], r[2], r[3]) for r in found]
    count_stmt = (
        select(func.count())
        .select_from(PostAnalysisRecord)
        .join(Post, Post.id == PostAnalysisRecord.post_id)
        .where(*conds)
    )
    total = (await session.execute(count_stmt)).scalar_one()
    return rows, int(total)
