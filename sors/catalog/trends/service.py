"""The catalog's comparisons over many posts: profiles side by side, a niche's trends, and
the public trending list (cached for hours)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from weakref import WeakKeyDictionary

from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.records import repository as repo
from sors.catalog.records.build import flat_post
from sors.catalog.records.paging import DEFAULT_SCORE_WINDOW, since
from sors.catalog.records.schemas import (
    Comparison,
    NotFoundByHandle,
    NotFoundById,
    ProfileRecord,
    Ranking,
)
from sors.catalog.records.service import profile_records
from sors.catalog.search import repository as search_repo
from sors.catalog.search import semantic
from sors.catalog.search.service import meaning_model
from sors.catalog.trends import repository as trends_repo
from sors.catalog.trends import themes
from sors.catalog.trends.schemas import (
    CompareIn,
    ContentTypeShare,
    Creator,
    HandleRef,
    HookTypeCount,
    Theme,
    TrendHooks,
    Trending,
    Trends,
    TrendsIn,
)
from sors.catalog.vectors import embeddings
from sors.config import Settings
from sors.kit.clock import isoformat
from sors.kit.db import Database
from sors.kit.errors import ValidationFailed
from sors.kit.responses import assemble

TRENDS_DEFAULT_LIMIT = 20
TRENDS_DEFAULT_TIME_FRAME = "one_week"
TRENDING_LIMIT = 50
TRENDING_DAYS = 7
TRENDING_TTL = timedelta(hours=2)


# ---- comparison -----------------------------------------------------------------------


def _ranked(
    records: Sequence[ProfileRecord], value: Callable[[ProfileRecord], float | None]
) -> tuple[list[str], str | None]:
    """Ids by `value` descending (missing values last, request order on ties), and the top
    id when it has a value."""
    keyed = [(value(r), i, r.id) for i, r in enumerate(records)]
    keyed.sort(key=lambda k: (k[0] is None, -(k[0] or 0), k[1]))
    ids = [k[2] for k in keyed]
    top = keyed[0][2] if keyed and keyed[0][0] is not None else None
    return ids, top


async def compare_profiles(session: AsyncSession, body: CompareIn) -> Comparison:
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
    not_found: list[NotFoundById | NotFoundByHandle] = []
    for pid in ids:
        if pid in by_id:
            found.append(by_id[pid])
        else:
            not_found.append(NotFoundById(profileId=pid))
    for ref in handles:
        row = await repo.profile_by_handle(session, ref.platform, ref.handle)
        if row is None:
            not_found.append(NotFoundByHandle(platform=ref.platform, handle=ref.handle))
        else:
            found.append(row)
    unique = list({r["id"]: r for r in found}.values())
    records = await profile_records(session, unique)
    by_followers, top_followers = _ranked(records, lambda r: r.follower_count)
    by_engagement, top_engagement = _ranked(
        records, lambda r: getattr(r.averages, DEFAULT_SCORE_WINDOW).engagement_rate
    )
    return Comparison(
        profiles=records,
        ranking=Ranking(
            topByFollowers=top_followers,
            topByEngagement=top_engagement,
            byFollowers=by_followers,
            byEngagement=by_engagement,
            engagementWindow=DEFAULT_SCORE_WINDOW,
        ),
        notFound=not_found,
    )


# ---- trends ---------------------------------------------------------------------------


def _r4(v: float | None) -> float | None:
    return None if v is None else round(float(v), 4)


async def _themes(
    session: AsyncSession, body: TrendsIn, time_frame: str, window: str, now: datetime,
    settings: Settings,
) -> list[Theme]:
    """`semantic: true`: the time frame's best outliers (about `query` by meaning, when
    given) grouped into themes."""
    model = await meaning_model(session, settings)
    f = search_repo.PostFilter(query=body.query, platforms=body.platforms, score_window=window,
                               published_since=since(time_frame, now))
    rows: Sequence[Mapping[str, Any]]
    if body.query:
        qvec = embeddings.query_vector(model, body.query)
        rows = await semantic.search_by_meaning(
            session, f, qvec=qvec, model=model.key, dims=model.dims, sort_by="outlier_score",
            limit=themes.POSTS, offset=0)
    else:
        rows = await search_repo.search_posts(session, f, sort_by="outlier_score",
                                              limit=themes.POSTS, offset=0)
    min_age = settings.jobs.baseline_min_age_hours
    return await themes.themes(session, [flat_post(r, now, min_age) for r in rows],
                               model=model.key, window=window)


async def niche_trends(
    session: AsyncSession, body: TrendsIn, *, now: datetime, settings: Settings
) -> Trends:
    time_frame = body.timeFrame or TRENDS_DEFAULT_TIME_FRAME
    window = body.scoreWindow or DEFAULT_SCORE_WINDOW
    found_themes = (
        await _themes(session, body, time_frame, window, now, settings) if body.semantic else None
    )
    f = trends_repo.TrendFilter(
        published_since=since(time_frame, now), query=body.query, platforms=body.platforms
    )
    rows = await trends_repo.trend_posts(
        session, f, score_window=window, limit=body.limit or TRENDS_DEFAULT_LIMIT
    )
    groups = await trends_repo.trend_content_types(session, f, score_window=window)
    matched = sum(g["count"] for g in groups)
    content_types = sorted(
        (
            ContentTypeShare(
                platform=g["platform"],
                contentType=g["content_type"],
                count=g["count"],
                share=round(g["count"] / matched, 4),
                avgOutlierScore=_r4(g["avg_score"]),
            )
            for g in groups
        ),
        key=lambda c: (-c.count, c.platform, c.contentType),
    )
    order = list(dict.fromkeys(r["profile_id"] for r in rows))
    stats = await trends_repo.trend_creators(session, f, score_window=window, profile_ids=order)
    first: dict[str, repo.Row] = {}
    for r in rows:
        first.setdefault(r["profile_id"], r)
    creators = [
        Creator(
            profileId=pid,
            platform=first[pid]["platform"],
            handle=first[pid]["profile_handle"],
            followerCount=first[pid]["profile_follower_count"],
            postCount=stats[pid]["post_count"],
            bestOutlierScore=_r4(stats[pid]["best_score"]),
        )
        for pid in order
    ]
    min_age = settings.jobs.baseline_min_age_hours
    hooks = await trends_repo.trend_hook_types(session, f, score_window=window)
    # `themes` is in the body only when they were asked for.
    return Trends(
        timeFrame=time_frame,
        scoreWindow=window,
        query=body.query,
        posts=[flat_post(r, now, min_age) for r in rows],
        contentTypes=content_types,
        creators=creators,
        hooks=hooks_block(hooks),
        **({"themes": found_themes} if found_themes is not None else {}),
    )


def hooks_block(groups: Sequence[repo.Row]) -> TrendHooks:
    """Hook types among the analysed outliers against the analysed ordinary posts; `lift`
    is the outlier share over the ordinary share (null when no ordinary post has it)."""
    outliers = sum(g["outliers"] for g in groups)
    ordinary = sum(g["ordinary"] for g in groups)
    types = []
    for g in groups:
        out_share = g["outliers"] / outliers if outliers else 0.0
        ord_share = g["ordinary"] / ordinary if ordinary else 0.0
        types.append(HookTypeCount(
            hookType=g["hook_type"],
            outliers=g["outliers"],
            ordinary=g["ordinary"],
            outlierShare=round(out_share, 4),
            ordinaryShare=round(ord_share, 4),
            lift=round(out_share / ord_share, 4) if ord_share else None,
        ))
    types.sort(key=lambda t: (-t.outliers, -t.ordinary, t.hookType))
    return TrendHooks(analysedPosts=outliers + ordinary, outlierPosts=outliers, types=types)


# ---- trending (public, cached) --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Cached:
    body: Trending
    generated_at: datetime  # the runtime's clock (simulated time in sim mode)
    made: float  # time.monotonic()


# Kept per process for each database the list was read from (held weakly: a runtime's
# database that is gone takes its entries along) and the minimum age its records were
# built with.
_trending_cache: WeakKeyDictionary[Database, dict[float, _Cached]] = WeakKeyDictionary()
_trending_lock = asyncio.Lock()


def clear_trending_cache() -> None:
    _trending_cache.clear()


def _remaining(entry: _Cached, now: datetime) -> int:
    """Seconds the entry stays fresh (0: stale). Either clock moving 2 h ends it, and so does
    the runtime's clock going backwards (a simulation reset)."""
    ttl = TRENDING_TTL.total_seconds()
    by_clock = (now - entry.generated_at).total_seconds()
    by_wall = time.monotonic() - entry.made
    if by_clock < 0:
        return 0
    return max(0, int(ttl - max(by_clock, by_wall)))


async def trending(
    session: AsyncSession, *, now: datetime, min_age_hours: float, source: Database
) -> tuple[Trending, int]:
    """The trending posts as of `now` and how many seconds clients may cache them; `source`:
    the database `session` reads, which the cached list belongs to."""
    entry = _trending_cache.get(source, {}).get(min_age_hours)
    if entry is not None and (left := _remaining(entry, now)) > 0:
        return entry.body, left
    async with _trending_lock:
        entry = _trending_cache.get(source, {}).get(min_age_hours)
        if entry is not None and (left := _remaining(entry, now)) > 0:
            return entry.body, left
        rows = await trends_repo.trending_posts(
            session, since=now - timedelta(days=TRENDING_DAYS), limit=TRENDING_LIMIT
        )
        body = assemble(Trending, {
            "generatedAt": isoformat(now),
            "posts": [flat_post(r, now, min_age_hours) for r in rows],
        })
        _trending_cache.setdefault(source, {})[min_age_hours] = _Cached(
            body, now, time.monotonic()
        )
        return body, int(TRENDING_TTL.total_seconds())
