"""Catalog reads: searches, single records, URL resolution, comparisons, trends, trending.

No HTTP types here: functions take validated request models and return the response bodies
as plain dicts; failures are `ApiError`s.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog import growth
from sors.catalog import repository as repo
from sors.catalog.models import WINDOWS
from sors.catalog.schemas import (
    RESULT_WINDOW,
    CompareIn,
    HandleRef,
    SearchContentIn,
    SearchProfilesIn,
    TrendsIn,
    flat_post,
    page_envelope,
    post_record,
    profile_record,
)
from sors.kit import clock
from sors.kit.db import RidesAlong
from sors.kit.errors import (
    PostNotFound,
    ProfileNotFound,
    ShortLinkNotSupported,
    UnsupportedUrl,
    ValidationFailed,
)
from sors.platforms import taxonomy, urls

DEFAULT_SCORE_WINDOW = "three_months"
DEFAULT_SCORE_METHOD = "mean"
RECENT_POSTS = 12
TRENDS_DEFAULT_LIMIT = 20
TRENDS_DEFAULT_TIME_FRAME = "one_week"
TRENDING_LIMIT = 50
TRENDING_DAYS = 7
TRENDING_TTL = timedelta(hours=2)


def since(time_frame: str | None) -> datetime | None:
    """The start of the last `time_frame` (None: no limit)."""
    days = WINDOWS[time_frame] if time_frame else None
    return None if days is None else clock.now() - timedelta(days=days)


@dataclass(frozen=True, slots=True)
class _Page:
    offset: int
    limit: int


def _page(page: int, page_size: int) -> _Page:
    offset = (page - 1) * page_size
    if offset >= RESULT_WINDOW:
        raise ValidationFailed.single(
            "page",
            f"Only the first {RESULT_WINDOW:,} matches can be paged through "
            f"(page {page} of {page_size} starts past them); narrow the search.",
        )
    # A page never reaches past the result window.
    return _Page(offset, min(page_size, RESULT_WINDOW - offset))


async def _paged(rows: list[Any], p: _Page, count: Any) -> tuple[list[Any], int, bool, bool]:
    """(page rows, total, totalCapped, hasMore) from `limit + 1` fetched rows."""
    more = len(rows) > p.limit
    rows = rows[: p.limit]
    if not more and (rows or p.offset == 0):
        total = p.offset + len(rows)  # the last page: no count needed
    else:
        total = await count()
    capped = total > RESULT_WINDOW
    has_more = more and p.offset + p.limit < RESULT_WINDOW
    return rows, min(total, RESULT_WINDOW), capped, has_more


# ---- searches -------------------------------------------------------------------------


def content_filter(body: SearchContentIn) -> repo.PostFilter:
    return repo.PostFilter(
        query=body.query,
        platforms=body.platforms,
        content_types=body.contentTypes,
        score_window=body.scoreWindow or DEFAULT_SCORE_WINDOW,
        score_method=body.scoreMethod or DEFAULT_SCORE_METHOD,
        min_score=body.minOutlierScore,
        min_views=body.minViews,
        max_followers=body.maxFollowers,
        published_since=since(body.timeFrame),
    )


async def search_content(session: AsyncSession, body: SearchContentIn) -> dict[str, Any]:
    f = content_filter(body)
    page, size = body.page_number, body.page_size
    p = _page(page, size)
    rows = await repo.search_posts(
        session, f, sort_by=body.sortBy or "outlier_score", limit=p.limit + 1, offset=p.offset
    )
    rows, total, capped, more = await _paged(
        rows, p, lambda: repo.count_posts(session, f, cap=RESULT_WINDOW)
    )
    results = []
    for r in rows:
        out = flat_post(r)
        out["score"] = scored_value(out, f.score_window, f.score_method)
        results.append(out)
    envelope = page_envelope(
        results, page=page, page_size=size, total=total, capped=capped, has_more=more
    )
    envelope["scoreMethod"] = f.score_method
    envelope["scoreWindow"] = f.score_window
    return envelope


def scored_value(record: dict[str, Any], window: str, method: str) -> float | None:
    """The score a search filtered and sorted by, read from the record."""
    if method == "age_adjusted":
        return record["age_adjusted_score"]["score"]
    if method == "median":
        return record["robust_scores"][window]["score"]
    return record["outlier_scores"][window]


async def _profile_records(session: AsyncSession, rows: Sequence[repo.Row]) -> list[dict[str, Any]]:
    cats = await repo.category_ids(session, [r["id"] for r in rows])
    return [profile_record(r, cats.get(r["id"], ())) for r in rows]


def profiles_filter(body: SearchProfilesIn) -> repo.ProfileFilter:
    query = body.query.removeprefix("@") if body.query else None
    return repo.ProfileFilter(
        query=query or None,
        platforms=body.platforms,
        category_ids=taxonomy.descendants(body.categoryId) if body.categoryId else None,
    )


async def search_profiles(session: AsyncSession, body: SearchProfilesIn) -> dict[str, Any]:
    f = profiles_filter(body)
    page, size = body.page_number, body.page_size
    p = _page(page, size)
    rows = await repo.search_profiles(session, f, limit=p.limit + 1, offset=p.offset)
    rows, total, capped, more = await _paged(
        rows, p, lambda: repo.count_profiles(session, f, cap=RESULT_WINDOW)
    )
    return page_envelope(
        await _profile_records(session, rows),
        page=page,
        page_size=size,
        total=total,
        capped=capped,
        has_more=more,
    )


async def list_categories(session: AsyncSession) -> list[dict[str, Any]]:
    """The taxonomy, flat, parents before their children; `profileCount` counts the distinct
    profiles in the category's subtree (what search_profiles with that categoryId finds)."""
    subtrees = {c.id: taxonomy.descendants(c.id) for c in taxonomy.CATEGORIES}
    counts = await repo.category_profile_counts(session, subtrees)
    return [
        {"id": c.id, "name": c.name, "parentId": c.parent_id, "profileCount": counts[c.id]}
        for c in sorted(taxonomy.CATEGORIES, key=lambda c: c.id)
    ]


# ---- single records -------------------------------------------------------------------


async def transcript_for(session: AsyncSession, post_id: str) -> dict[str, Any] | None:
    """The stored transcript in the contract's shape, or None (the enrichment domain owns
    the table and its shape)."""
    from sors.enrichment import service as enrichment

    return await enrichment.transcript_for(session, post_id)


async def visual_analysis_for(session: AsyncSession, post_id: str) -> dict[str, Any] | None:
    """The stored visual analysis in the contract's shape, or None (enrichment's table)."""
    from sors.enrichment import service as enrichment

    return await enrichment.visual_analysis_for(session, post_id)


async def get_post(
    session: AsyncSession, post_id: str, *, include_transcript: bool,
    include_visual_analysis: bool, ride_along: RidesAlong | None = None,
) -> dict[str, Any]:
    """The post record; `ride_along`: a paid read's charge, carried by the first read."""
    row = await repo.get_post(session, post_id, ride_along=ride_along)
    if row is None:
        raise PostNotFound(f"No post with id {post_id!r}.")
    out = post_record(row)
    out["growth"] = growth.growth_block(
        row, int(row["snapshot_count"]), clock.now()
    )
    # The flags are kept with the post, so a post without either costs no further query.
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
    return out


async def post_history(
    session: AsyncSession, post_id: str, *, ride_along: RidesAlong | None = None
) -> dict[str, Any]:
    row = await repo.get_post(session, post_id, ride_along=ride_along)
    if row is None:
        raise PostNotFound(f"No post with id {post_id!r}.")
    return growth.history(row, await repo.post_stats(session, post_id), clock.now())


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
    out = (await _profile_records(session, [row]))[0]
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


# ---- comparison -----------------------------------------------------------------------


def _ranked(records: list[dict[str, Any]], value: Any) -> tuple[list[str], str | None]:
    """Ids by `value` descending (missing values last, request order on ties), and the top
    id when it has a value."""
    keyed = [(value(r), i, r["id"]) for i, r in enumerate(records)]
    keyed.sort(key=lambda k: (k[0] is None, -(k[0] or 0), k[1]))
    ids = [k[2] for k in keyed]
    top = keyed[0][2] if keyed and keyed[0][0] is not None else None
    return ids, top


async def compare_profiles(session: AsyncSession, body: CompareIn) -> dict[str, Any]:
    ids = body.profileIds or []
    handles = [h for h in body.handles or [] if isinstance(h, HandleRef)]  # decoded when a string
    total = len(ids) + len(handles)
    if not 2 <= total <= 5:
        # Name the field the caller actually used (both, or neither: profileIds).
        field = "handles" if body.handles is not None and body.profileIds is None else "profileIds"
        raise ValidationFailed.single(
            field,
            f"Compare 2-5 profiles in total across profileIds and handles (got {total}).",
        )
    by_id = await repo.get_profiles(session, ids)
    found: list[repo.Row] = []
    not_found: list[dict[str, str]] = []
    for pid in ids:
        if pid in by_id:
            found.append(by_id[pid])
        else:
            not_found.append({"profileId": pid})
    for ref in handles:
        row = await repo.profile_by_handle(session, ref.platform, ref.handle)
        if row is None:
            not_found.append({"platform": ref.platform, "handle": ref.handle})
        else:
            found.append(row)
    unique = list({r["id"]: r for r in found}.values())
    records = await _profile_records(session, unique)
    by_followers, top_followers = _ranked(records, lambda r: r["follower_count"])
    by_engagement, top_engagement = _ranked(
        records, lambda r: r["averages"][DEFAULT_SCORE_WINDOW]["engagement_rate"]
    )
    return {
        "profiles": records,
        "ranking": {
            "topByFollowers": top_followers,
            "topByEngagement": top_engagement,
            "byFollowers": by_followers,
            "byEngagement": by_engagement,
            "engagementWindow": DEFAULT_SCORE_WINDOW,
        },
        "notFound": not_found,
    }


# ---- trends ---------------------------------------------------------------------------


def _r4(v: float | None) -> float | None:
    return None if v is None else round(float(v), 4)


async def niche_trends(session: AsyncSession, body: TrendsIn) -> dict[str, Any]:
    time_frame = body.timeFrame or TRENDS_DEFAULT_TIME_FRAME
    window = body.scoreWindow or DEFAULT_SCORE_WINDOW
    f = repo.TrendFilter(
        published_since=since(time_frame), query=body.query, platforms=body.platforms
    )
    rows = await repo.trend_posts(
        session, f, score_window=window, limit=body.limit or TRENDS_DEFAULT_LIMIT
    )
    groups = await repo.trend_content_types(session, f, score_window=window)
    matched = sum(g["count"] for g in groups)
    content_types = sorted(
        (
            {
                "platform": g["platform"],
                "contentType": g["content_type"],
                "count": g["count"],
                "share": round(g["count"] / matched, 4),
                "avgOutlierScore": _r4(g["avg_score"]),
            }
            for g in groups
        ),
        key=lambda c: (-c["count"], c["platform"], c["contentType"]),
    )
    order = list(dict.fromkeys(r["profile_id"] for r in rows))
    stats = await repo.trend_creators(session, f, score_window=window, profile_ids=order)
    first: dict[str, repo.Row] = {}
    for r in rows:
        first.setdefault(r["profile_id"], r)
    creators = [
        {
            "profileId": pid,
            "platform": first[pid]["platform"],
            "handle": first[pid]["profile_handle"],
            "followerCount": first[pid]["profile_follower_count"],
            "postCount": stats[pid]["post_count"],
            "bestOutlierScore": _r4(stats[pid]["best_score"]),
        }
        for pid in order
    ]
    return {
        "timeFrame": time_frame,
        "scoreWindow": window,
        "query": body.query,
        "posts": [flat_post(r) for r in rows],
        "contentTypes": content_types,
        "creators": creators,
    }


# ---- trending (public, cached) --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Cached:
    body: dict[str, Any]
    generated_at: datetime  # service clock (simulated time in sim mode)
    made: float  # time.monotonic()


_trending_cache: dict[int, _Cached] = {}
_trending_lock = asyncio.Lock()


def clear_trending_cache() -> None:
    _trending_cache.clear()


def _remaining(entry: _Cached, now: datetime) -> int:
    """Seconds the entry stays fresh (0: stale). Either clock moving 2 h ends it, and so does
    the service clock going backwards (a simulation reset)."""
    ttl = TRENDING_TTL.total_seconds()
    by_clock = (now - entry.generated_at).total_seconds()
    by_wall = time.monotonic() - entry.made
    if by_clock < 0:
        return 0
    return max(0, int(ttl - max(by_clock, by_wall)))


async def trending(session: AsyncSession, *, cache_key: int) -> tuple[dict[str, Any], int]:
    """The trending posts and how many seconds clients may cache them."""
    entry = _trending_cache.get(cache_key)
    if entry is not None and (left := _remaining(entry, clock.now())) > 0:
        return entry.body, left
    async with _trending_lock:
        now = clock.now()
        entry = _trending_cache.get(cache_key)
        if entry is not None and (left := _remaining(entry, now)) > 0:
            return entry.body, left
        rows = await repo.trending_posts(
            session, since=now - timedelta(days=TRENDING_DAYS), limit=TRENDING_LIMIT
        )
        body = {"generatedAt": clock.isoformat(now), "posts": [flat_post(r) for r in rows]}
        _trending_cache[cache_key] = _Cached(body, now, time.monotonic())
        return body, int(TRENDING_TTL.total_seconds())
