"""Catalog reads: searches, single records, URL resolution, comparisons, trends, trending.

No HTTP types here: functions take validated request models and return the response bodies
as plain dicts; failures are `ApiError`s.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.records import growth
from sors.catalog.records import repository as repo
from sors.catalog.records.analysis_schemas import analysis_shape
from sors.catalog.records.build import flat_post, post_record, profile_record
from sors.catalog.records.schemas import transcript_record, visual_analysis_record
from sors.kit import clock
from sors.kit.clock import isoformat
from sors.kit.db import RidesAlong
from sors.kit.errors import (
    PostNotFound,
    ProfileNotFound,
    ShortLinkNotSupported,
    UnsupportedUrl,
)
from sors.platforms import urls

RECENT_POSTS = 12


# ---- searches -------------------------------------------------------------------------


async def profile_records(session: AsyncSession, rows: Sequence[repo.Row]) -> list[dict[str, Any]]:
    cats = await repo.category_ids(session, [r["id"] for r in rows])
    return [profile_record(r, cats.get(r["id"], ())) for r in rows]


# ---- single records -------------------------------------------------------------------


async def transcript_for(session: AsyncSession, post_id: str) -> dict[str, Any] | None:
    """The post's transcript in the contract's shape (GET /posts/{id}), or None."""
    t = await repo.get_transcript(session, post_id)
    return None if t is None else transcript_record(t)


async def visual_analysis_for(session: AsyncSession, post_id: str) -> dict[str, Any] | None:
    """The post's visual analysis in the contract's shape (GET /posts/{id}), or None."""
    v = await repo.get_visual_analysis(session, post_id)
    return None if v is None else visual_analysis_record(v)


async def analysis_for(session: AsyncSession, post_id: str) -> dict[str, Any] | None:
    """The post's kept breakdown (sors.analyses) in the API's shape, or None."""
    a = await repo.get_analysis(session, post_id)
    if a is None or a.analysis is None:
        return None
    return analysis_shape(
        {**a.analysis, "engine": a.engine, "analysedAt": isoformat(a.analysed_at)}
    )


async def get_post(
    session: AsyncSession, post_id: str, *, include_transcript: bool,
    include_visual_analysis: bool, include_analysis: bool = True,
    ride_along: RidesAlong | None = None,
) -> dict[str, Any]:
    """The post record; `ride_along`: a paid read's charge, carried by the first read."""
    row = await repo.get_post(session, post_id, ride_along=ride_along)
    if row is None:
        raise PostNotFound(f"No post with id {post_id!r}.")
    out = post_record(row)
    out["growth"] = growth.growth_block(
        row, int(row["snapshot_count"]), clock.now()
    )
    # The flags are kept with the post (the breakdown's read with it), so a post without
    # any costs no further query.
    if (
        include_transcript and row["has_transcript"]
        and (t := await transcript_for(session, post_id)) is not None
    ):
        out["transcript"] = t
    if (
        include_visual_analysis and row["has_visual_analysis"]
        and (v := await visual_analysis_for(session, post_id)) is not None
    ):
        out["visual_analysis"] = v
    if (
        include_analysis and row["has_analysis"]
        and (a := await analysis_for(session, post_id)) is not None
    ):
        out["analysis"] = a
    return out


async def post_history(
    session: AsyncSession, post_id: str, *, ride_along: RidesAlong | None = None
) -> dict[str, Any]:
    row = await repo.get_post(session, post_id, ride_along=ride_along)
    if row is None:
        raise PostNotFound(f"No post with id {post_id!r}.")
    stats = await repo.post_stats(session, post_id)
    out = growth.history(row, stats, clock.now())
    out["changes"] = growth.change_effects(
        row["published_at"], stats, await repo.post_changes(session, post_id))
    return out


async def posts_first_seen(
    session: AsyncSession, profile_id: str, seen_at: datetime
) -> list[dict[str, Any]]:
    """The posts a crawl of `profile_id` stored first at `seen_at`, in the flattened shape
    of tracking updates, oldest first."""
    return [flat_post(r) for r in await repo.posts_first_seen(session, profile_id, seen_at)]


async def get_profile(session: AsyncSession, profile_id: str) -> dict[str, Any]:
    row = await repo.get_profile(session, profile_id)
    if row is None:
        raise ProfileNotFound(
            f"No profile with id {profile_id!r}. Unknown creators can be added with "
            "POST /api/v1/crawls."
        )
    out = (await profile_records(session, [row]))[0]
    recent = await repo.recent_posts(session, profile_id, limit=RECENT_POSTS)
    out["recent_posts"] = [flat_post(r) for r in recent]
    return out


# ---- URL resolution -------------------------------------------------------------------


async def resolve_post_url(session: AsyncSession, url: str) -> dict[str, Any]:
    try:
        parsed = urls.parse_post_url(url)
    except urls.ShortLinkNotSupported as exc:
        raise ShortLinkNotSupported(str(exc)) from exc
    except urls.UrlError as exc:
        raise UnsupportedUrl(str(exc)) from exc
    post = await repo.find_post(session, parsed.platform, parsed.platform_post_id)
    if post is not None:
        return {
            "found": True,
            "postId": post["id"],
            "platform": post["platform"],
            "platformPostId": post["platform_post_id"],
            "profileId": post["profile_id"],
        }
    if parsed.handle is None:
        tracked: bool | None = None
        reason = "unknown_owner"
    else:
        tracked = await repo.active_profile_exists(session, parsed.platform, parsed.handle)
        reason = "post_not_tracked" if tracked else "profile_not_tracked"
    return {
        "found": False,
        "platform": parsed.platform,
        "platformPostId": parsed.platform_post_id,
        "handle": parsed.handle,
        "profileTracked": tracked,
        "reason": reason,
    }
