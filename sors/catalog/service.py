"""Catalog reads: searches, single records, URL resolution, comparisons, trends, trending.

No HTTP types here: functions take validated request models and return the response bodies
as plain dicts; failures are `ApiError`s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog import embeddings, growth, semantic
from sors.catalog import repository as repo
from sors.catalog import search_repository as search_repo
from sors.catalog.analysis_responses import analysis_shape
from sors.catalog.models import WINDOWS
from sors.catalog.records import flat_post, page_envelope, post_record, profile_record
from sors.catalog.responses import transcript_record, visual_analysis_record
from sors.catalog.schemas import RESULT_WINDOW, SearchContentIn, SearchProfilesIn
from sors.kit import clock
from sors.kit.clock import isoformat
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


def since(time_frame: str | None) -> datetime | None:
    """The start of the last `time_frame` (None: no limit)."""
    days = WINDOWS[time_frame] if time_frame else None
    return None if days is None else clock.now() - timedelta(days=days)


@dataclass(frozen=True, slots=True)
class _Page:
    offset: int
    limit: int


def page_window(page: int, page_size: int) -> _Page:
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


def content_filter(body: SearchContentIn) -> search_repo.PostFilter:
    return search_repo.PostFilter(
        query=body.query,
        platforms=body.platforms,
        content_types=body.contentTypes,
        score_window=body.scoreWindow or DEFAULT_SCORE_WINDOW,
        score_method=body.scoreMethod or DEFAULT_SCORE_METHOD,
        min_score=body.minOutlierScore,
        min_views=body.minViews,
        max_followers=body.maxFollowers,
        published_since=since(body.timeFrame),
        min_rising=body.minRisingScore,
        only_projected=body.sortBy == "rising",
        category_ids=taxonomy.descendants(body.categoryId) if body.categoryId else None,
    )


async def search_content(
    session: AsyncSession, body: SearchContentIn, *, ride_along: RidesAlong | None = None
) -> dict[str, Any]:
    """A page of outlier posts; `ride_along`: the paid read's charge, carried by the count
    when one is needed (else charged after)."""
    if body.semantic or body.similarTo:
        return await search_by_meaning(session, body)
    f = content_filter(body)
    page, size = body.page_number, body.page_size
    p = page_window(page, size)
    rows = await search_repo.search_posts(
        session, f, sort_by=body.sortBy or "outlier_score", limit=p.limit + 1, offset=p.offset
    )
    rows, total, capped, more = await _paged(
        rows, p, lambda: search_repo.count_posts(session, f, cap=RESULT_WINDOW, ride_along=ride_along)
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


async def search_by_meaning(session: AsyncSession, body: SearchContentIn) -> dict[str, Any]:
    """`semantic` (the query by meaning and words) or `similarTo` (posts nearest a post): the
    fused or nearest candidates, paged; the same filters, records and envelope."""
    model = await meaning_model(session)
    f = content_filter(body)
    page, size = body.page_number, body.page_size
    p = page_window(page, size)
    common = {"model": model.key, "dims": model.dims, "sort_by": body.sortBy,
              "limit": p.limit + 1, "offset": p.offset}
    if body.similarTo:
        target = await repo.get_post(session, body.similarTo)
        if target is None:
            raise PostNotFound(f"No post {body.similarTo}.")
        stored = await semantic.stored_vector(session, target["id"])
        if stored is None or stored[1] != model.key:  # not embedded yet, or by another model
            qvec = embeddings.query_vector(model, embeddings.post_text(target["caption"]))
        else:
            qvec = stored[0]
        creator = None if body.includeSameCreator else target["profile_id"]
        rows = [] if qvec is None else await semantic.similar_posts(
            session, f, qvec=qvec, post_id=target["id"], profile_id=creator, **common)
    else:
        qvec = embeddings.query_vector(model, body.query or "")
        rows = await semantic.search_by_meaning(session, f, qvec=qvec, **common)
    more = len(rows) > p.limit
    total = int(rows[0]["fused_total"]) if rows else p.offset
    results = []
    for r in rows[: p.limit]:
        out = flat_post(r)
        out["score"] = scored_value(out, f.score_window, f.score_method)
        out["similarity"] = None if r["similarity"] is None else round(r["similarity"], 4)
        results.append(out)
    # In similarity order similarTo reads only to the page's end: past it, `total` is a floor.
    capped = bool(body.similarTo) and not body.sortBy and more
    envelope = page_envelope(results, page=page, page_size=size, total=total, capped=capped,
                             has_more=more)
    envelope["scoreMethod"] = f.score_method
    envelope["scoreWindow"] = f.score_window
    return envelope


async def meaning_model(session: AsyncSession) -> Any:
    """The embedding model, where search by meaning can work here (else 503)."""
    if not await embeddings.available(session):
        raise embeddings.SemanticUnavailable(
            "This server's PostgreSQL has no pgvector extension: install it and run "
            "`sors migrate` (docs/OPERATIONS.md, \"Search by meaning\").")
    old = await embeddings.too_old(session)
    if old is not None:
        need = ".".join(map(str, embeddings.MIN_PGVECTOR))
        raise embeddings.SemanticUnavailable(
            f"This server's pgvector is {old}; search by meaning needs {need} or later "
            "(iterative index scans): install it and run `ALTER EXTENSION vector UPDATE` "
            "(docs/OPERATIONS.md, \"Search by meaning\").")
    model = embeddings.embedder_or_none()
    if model is None:
        raise embeddings.SemanticUnavailable(
            "The embedding model (SORS_EMBEDDING_MODEL) cannot be loaded on this server.")
    return model


async def similar_profiles(session: AsyncSession, body: SearchProfilesIn) -> dict[str, Any]:
    model = await meaning_model(session)
    target = await repo.get_profile(session, body.similarTo) if body.similarTo else None
    if target is None:
        raise ProfileNotFound(f"No profile {body.similarTo}.")
    f = profiles_filter(body)
    page, size = body.page_number, body.page_size
    p = page_window(page, size)
    centroid = await semantic.profile_centroid(session, target["id"], model.key)
    rows = [] if centroid is None else await semantic.similar_profiles(
        session, f, qvec=centroid, model=model.key, dims=model.dims, profile_id=target["id"],
        limit=p.limit + 1, offset=p.offset)
    records = await profile_records(session, rows[: p.limit])
    for record, row in zip(records, rows, strict=False):
        record["similarity"] = round(row["similarity"], 4)
    total = int(rows[0]["fused_total"]) if rows else p.offset
    return page_envelope(records, page=page, page_size=size, total=total, capped=False,
                         has_more=len(rows) > p.limit)


def scored_value(record: dict[str, Any], window: str, method: str) -> float | None:
    """The score a search filtered and sorted by, read from the record."""
    if method == "age_adjusted":
        return record["age_adjusted_score"]["score"]
    if method == "median":
        return record["robust_scores"][window]["score"]
    return record["outlier_scores"][window]


async def profile_records(session: AsyncSession, rows: Sequence[repo.Row]) -> list[dict[str, Any]]:
    cats = await repo.category_ids(session, [r["id"] for r in rows])
    return [profile_record(r, cats.get(r["id"], ())) for r in rows]


def profiles_filter(body: SearchProfilesIn) -> search_repo.ProfileFilter:
    query = body.query.removeprefix("@") if body.query else None
    return search_repo.ProfileFilter(
        query=query or None,
        platforms=body.platforms,
        category_ids=taxonomy.descendants(body.categoryId) if body.categoryId else None,
    )


async def search_profiles(
    session: AsyncSession, body: SearchProfilesIn, *, ride_along: RidesAlong | None = None
) -> dict[str, Any]:
    if body.similarTo:
        return await similar_profiles(session, body)
    f = profiles_filter(body)
    page, size = body.page_number, body.page_size
    p = page_window(page, size)
    rows = await search_repo.search_profiles(session, f, limit=p.limit + 1, offset=p.offset)
    rows, total, capped, more = await _paged(
        rows, p, lambda: search_repo.count_profiles(session, f, cap=RESULT_WINDOW, ride_along=ride_along)
    )
    return page_envelope(
        await profile_records(session, rows),
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
    counts = await search_repo.category_profile_counts(session, subtrees)
    return [
        {"id": c.id, "name": c.name, "parentId": c.parent_id, "profileCount": counts[c.id]}
        for c in sorted(taxonomy.CATEGORIES, key=lambda c: c.id)
    ]


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
