"""Catalog reads of single records: a post (with its history), a profile, a post URL.

No HTTP types here: functions take what the request asked for and return the response
models; failures are `ApiError`s. A record depends on when it is read (`now`, the request's
one reading of the clock) and on the baseline's minimum age
(`settings.jobs.baseline_min_age_hours`): both are handed in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.records import growth
from sors.catalog.records import repository as repo
from sors.catalog.records.analysis_schemas import Analysis
from sors.catalog.records.build import (
    flat_post,
    post_record,
    profile_fields,
    transcript_record,
    visual_analysis_record,
)
from sors.catalog.records.errors import (
    PostNotFound,
    ProfileNotFound,
    ShortLinkNotSupported,
    UnsupportedUrl,
)
from sors.catalog.records.history_schemas import PostHistoryOut
from sors.catalog.records.schemas import (
    FlatPost,
    PostRecord,
    ProfileDetail,
    ProfileRecord,
    ResolvedPost,
    TranscriptOut,
    UnresolvedPost,
    VisualAnalysisOut,
)
from sors.kit.clock import isoformat
from sors.kit.db import RidesAlong
from sors.kit.responses import assemble
from sors.platforms import urls

RECENT_POSTS = 12

R = TypeVar("R", bound=ProfileRecord)


async def profile_records(
    session: AsyncSession, rows: Sequence[Mapping[Any, Any]]
) -> list[ProfileRecord]:
    """The rows' profile records, their categories read in one statement."""
    return await profile_records_as(session, rows, ProfileRecord)


async def profile_records_as(
    session: AsyncSession, rows: Sequence[Mapping[Any, Any]], model: type[R],
    **extra: Sequence[object],
) -> list[R]:
    """The rows' records as `model`, a shape that extends the profile record; `extra`: its
    fields beyond the record, one value per row."""
    cats = await repo.category_ids(session, [r["id"] for r in rows])
    return [
        assemble(model, {
            **profile_fields(r, cats.get(r["id"], ())),
            **{name: values[i] for name, values in extra.items()},
        })
        for i, r in enumerate(rows)
    ]


# ---- single records -------------------------------------------------------------------


async def transcript_for(session: AsyncSession, post_id: str) -> TranscriptOut | None:
    """The post's transcript in the contract's shape (GET /posts/{id}), or None."""
    t = await repo.get_transcript(session, post_id)
    return None if t is None else transcript_record(t)


async def visual_analysis_for(session: AsyncSession, post_id: str) -> VisualAnalysisOut | None:
    """The post's visual analysis in the contract's shape (GET /posts/{id}), or None."""
    v = await repo.get_visual_analysis(session, post_id)
    return None if v is None else visual_analysis_record(v)


async def analysis_for(session: AsyncSession, post_id: str) -> Analysis | None:
    """The post's kept breakdown (sors.analyses) in the API's shape, or None."""
    a = await repo.get_analysis(session, post_id)
    if a is None or a.analysis is None:
        return None
    return Analysis.model_validate(
        {**a.analysis, "engine": a.engine, "analysedAt": isoformat(a.analysed_at)}
    )


async def get_post(
    session: AsyncSession, post_id: str, *, now: datetime, min_age_hours: float,
    include_transcript: bool, include_visual_analysis: bool, include_analysis: bool = True,
    ride_along: RidesAlong | None = None,
) -> PostRecord:
    """The post record as of `now`; `ride_along`: a paid read's charge, carried by the first
    read."""
    row = await repo.get_post(session, post_id, ride_along=ride_along)
    if row is None:
        raise PostNotFound(f"No post with id {post_id!r}.")
    # The flags are kept with the post (the breakdown's read with it), so a post without
    # any costs no further query.
    return post_record(
        row, now, min_age_hours,
        growth=growth.growth_block(row, int(row["snapshot_count"]), now),
        transcript=(await transcript_for(session, post_id)
                    if include_transcript and row["has_transcript"] else None),
        visual_analysis=(await visual_analysis_for(session, post_id)
                         if include_visual_analysis and row["has_visual_analysis"] else None),
        analysis=(await analysis_for(session, post_id)
                  if include_analysis and row["has_analysis"] else None),
    )


async def post_history(
    session: AsyncSession, post_id: str, *, now: datetime, ride_along: RidesAlong | None = None
) -> PostHistoryOut:
    row = await repo.get_post(session, post_id, ride_along=ride_along)
    if row is None:
        raise PostNotFound(f"No post with id {post_id!r}.")
    stats = await repo.post_stats(session, post_id)
    return growth.history(row, stats, await repo.post_changes(session, post_id), now)


async def posts_first_seen(
    session: AsyncSession, profile_id: str, seen_at: datetime, min_age_hours: float
) -> list[FlatPost]:
    """The posts a crawl of `profile_id` stored first at `seen_at`, in the flattened shape
    of tracking updates (as of that crawl), oldest first."""
    return [
        flat_post(r, seen_at, min_age_hours)
        for r in await repo.posts_first_seen(session, profile_id, seen_at)
    ]


async def get_profile(
    session: AsyncSession, profile_id: str, *, now: datetime, min_age_hours: float
) -> ProfileDetail:
    row = await repo.get_profile(session, profile_id)
    if row is None:
        raise ProfileNotFound(
            f"No profile with id {profile_id!r}. Unknown creators can be added with "
            "POST /api/v1/crawls."
        )
    recent = await repo.recent_posts(session, profile_id, limit=RECENT_POSTS)
    [out] = await profile_records_as(
        session, [row], ProfileDetail,
        recent_posts=[[flat_post(r, now, min_age_hours) for r in recent]],
    )
    return out


# ---- URL resolution -------------------------------------------------------------------


async def resolve_post_url(session: AsyncSession, url: str) -> ResolvedPost | UnresolvedPost:
    try:
        parsed = urls.parse_post_url(url)
    except urls.ShortLinkNotSupported as exc:
        raise ShortLinkNotSupported(str(exc)) from exc
    except urls.UrlError as exc:
        raise UnsupportedUrl(str(exc)) from exc
    post = await repo.find_post(session, parsed.platform, parsed.platform_post_id)
    if post is not None:
        return ResolvedPost(
            found=True,
            postId=post["id"],
            platform=post["platform"],
            platformPostId=post["platform_post_id"],
            profileId=post["profile_id"],
        )
    if parsed.handle is None:
        tracked: bool | None = None
        reason = "unknown_owner"
    else:
        tracked = await repo.active_profile_exists(session, parsed.platform, parsed.handle)
        reason = "post_not_tracked" if tracked else "profile_not_tracked"
    return UnresolvedPost(
        found=False,
        platform=parsed.platform,
        platformPostId=parsed.platform_post_id,
        handle=parsed.handle,
        profileTracked=tracked,
        reason=reason,
    )
