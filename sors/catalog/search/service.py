"""Searches: posts by words, filters and scores, or by meaning (`semantic`, `similarTo`);
profiles by name, niche or meaning; the niche taxonomy with its profile counts.

No HTTP types here: functions take validated request models, the request's time and the
settings, and return the response models; failures are `ApiError`s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.records import repository as repo
from sors.catalog.records.build import flat_fields, window_score
from sors.catalog.records.errors import PostNotFound, ProfileNotFound
from sors.catalog.records.fields import RESULT_WINDOW
from sors.catalog.records.paging import (
    DEFAULT_SCORE_METHOD,
    DEFAULT_SCORE_WINDOW,
    Paged,
    _paged,
    page_window,
    since,
)
from sors.catalog.records.schemas import (
    Category,
    Match,
    PostPage,
    ProfilePage,
    ScoredPost,
    SimilarProfile,
)
from sors.catalog.records.service import profile_records_as
from sors.catalog.search import repository as search_repo
from sors.catalog.search import semantic, words
from sors.catalog.search.errors import SemanticUnavailable
from sors.catalog.search.schemas import SearchContentIn, SearchProfilesIn
from sors.catalog.vectors import embeddings
from sors.catalog.vectors.embedder import Embedder
from sors.config import Settings
from sors.kit.db import RidesAlong
from sors.kit.responses import assemble
from sors.platforms import taxonomy


def content_filter(body: SearchContentIn, now: datetime) -> search_repo.PostFilter:
    return search_repo.PostFilter(
        query=body.query,
        platforms=body.platforms,
        content_types=body.contentTypes,
        score_window=body.scoreWindow or DEFAULT_SCORE_WINDOW,
        score_method=body.scoreMethod or DEFAULT_SCORE_METHOD,
        min_score=body.minOutlierScore,
        min_views=body.minViews,
        max_followers=body.maxFollowers,
        published_since=since(body.timeFrame, now),
        min_rising=body.minRisingScore,
        only_projected=body.sortBy == "rising",
        category_ids=taxonomy.descendants(body.categoryId) if body.categoryId else None,
        sound_id=body.soundId,
        profile_ids=body.profileIds,
        baseline_ok=body.baselineQuality == "ok",
        exclude_anomalies=bool(body.excludeEngagementAnomalies),
    )


def _scored(
    row: Mapping[str, Any], f: search_repo.PostFilter, now: datetime, min_age_hours: float,
    **scores: float | None,
) -> ScoredPost:
    """A result with the score the search filtered and sorted by (and, for a search by
    meaning, its `similarity` and `relevance`: absent from the others)."""
    fields = flat_fields(row, now, min_age_hours)
    fields["score"] = window_score(row, f.score_window, f.score_method)
    return assemble(ScoredPost, {**fields, **scores})


def _page(
    results: Sequence[object], page: int, size: int, paged: Paged[Any]
) -> dict[str, object]:
    """A page's fields, `results` first as the pages have always listed them."""
    return {"results": results, "page": page, "pageSize": size, "total": paged.total,
            "totalCapped": paged.capped, "hasMore": paged.has_more}


async def search_content(
    session: AsyncSession, body: SearchContentIn, *, now: datetime, settings: Settings,
    ride_along: RidesAlong | None = None,
) -> PostPage:
    """A page of outlier posts; `ride_along`: the paid read's charge, carried by the count
    when one is needed (else charged after)."""
    if body.semantic or body.similarTo:
        return await search_by_meaning(session, body, now=now, settings=settings)
    f = content_filter(body, now)
    page, size = body.page_number, body.page_size
    p = page_window(page, size)
    rows = await search_repo.search_posts(
        session, f, sort_by=body.sortBy or "outlier_score", limit=p.limit + 1, offset=p.offset
    )
    paged = await _paged(
        rows, p,
        lambda: search_repo.count_posts(session, f, cap=RESULT_WINDOW, ride_along=ride_along),
    )
    min_age = settings.jobs.baseline_min_age_hours
    results = [_scored(r, f, now, min_age) for r in paged.rows]
    return assemble(PostPage, {**_page(results, page, size, paged),
                               "scoreMethod": f.score_method, "scoreWindow": f.score_window})


def _r4(v: float | None) -> float | None:
    return None if v is None else round(float(v), 4)


def match_of(model: Embedder, best: float | None) -> Match | None:
    """How close the best candidate is to the query, by the model's calibration."""
    if model.calibration is None:
        return None
    none_below, good_from = model.calibration
    if best is None or best < none_below:
        return "none"
    return "good" if best >= good_from else "weak"


async def search_by_meaning(
    session: AsyncSession, body: SearchContentIn, *, now: datetime, settings: Settings
) -> PostPage:
    """`semantic` (the posts nearest the query's meaning, its words reordering them) or
    `similarTo` (posts nearest a post): the candidates, paged; the same filters, records and
    envelope, and for `semantic` each result's relevance and the page's `match`."""
    model = await meaning_model(session, settings)
    f = content_filter(body, now)
    page, size = body.page_number, body.page_size
    p = page_window(page, size)
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
            session, f, qvec=qvec, post_id=target["id"], profile_id=creator, model=model.key,
            dims=model.dims, sort_by=body.sortBy, limit=p.limit + 1, offset=p.offset)
    else:
        qvec = embeddings.query_vector(model, words.meaning_text(body.query or ""))
        rows = await semantic.search_by_meaning(
            session, f, qvec=qvec, model=model.key, dims=model.dims, sort_by=body.sortBy,
            limit=p.limit + 1, offset=p.offset)
    more = len(rows) > p.limit
    min_age = settings.jobs.baseline_min_age_hours
    results = [
        _scored(r, f, now, min_age, similarity=_r4(r["similarity"])) if body.similarTo else
        _scored(r, f, now, min_age, similarity=_r4(r["similarity"]),
                relevance=_r4(r["relevance"]))
        for r in rows[: p.limit]
    ]
    paged = Paged(
        rows[: p.limit], int(rows[0]["fused_total"]) if rows else p.offset,
        # In similarity order similarTo reads only to the page's end: past it, `total` is a
        # floor.
        bool(body.similarTo) and not body.sortBy and more, more,
    )
    fields = {**_page(results, page, size, paged), "scoreMethod": f.score_method,
              "scoreWindow": f.score_window}
    if not body.similarTo:
        # The best candidate's, whichever page this is (a page past the end reads none).
        best = rows[0]["best"] if rows else await _best_similarity(session, body, f, qvec, model)
        fields["match"] = match_of(model, best)
    return assemble(PostPage, fields)


async def _best_similarity(
    session: AsyncSession, body: SearchContentIn, f: search_repo.PostFilter, qvec: str | None,
    model: Embedder,
) -> float | None:
    """A page past the candidates reads no row to carry the best similarity: read the first."""
    if qvec is None or body.page_number == 1:
        return None
    rows = await semantic.search_by_meaning(session, f, qvec=qvec, model=model.key,
                                            dims=model.dims, sort_by=None, limit=1, offset=0)
    return rows[0]["best"] if rows else None


async def meaning_model(session: AsyncSession, settings: Settings) -> Embedder:
    """The embedding model, where search by meaning can work here (else 503)."""
    if not await embeddings.available(session):
        raise SemanticUnavailable(
            "This server's PostgreSQL has no pgvector extension: install it and run "
            "`sors migrate` (docs/OPERATIONS.md, \"Search by meaning\").")
    old = await embeddings.too_old(session)
    if old is not None:
        need = ".".join(map(str, embeddings.MIN_PGVECTOR))
        raise SemanticUnavailable(
            f"This server's pgvector is {old}; search by meaning needs {need} or later "
            "(iterative index scans): install it and run `ALTER EXTENSION vector UPDATE` "
            "(docs/OPERATIONS.md, \"Search by meaning\").")
    model = embeddings.embedder_or_none(settings)
    if model is None:
        raise SemanticUnavailable(
            "The embedding model (SORS_EMBEDDING_MODEL) cannot be loaded on this server.")
    return model


async def similar_profiles(
    session: AsyncSession, body: SearchProfilesIn, settings: Settings
) -> ProfilePage:
    model = await meaning_model(session, settings)
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
    paged = Paged(rows[: p.limit], int(rows[0]["fused_total"]) if rows else p.offset, False,
                  len(rows) > p.limit)
    results = await profile_records_as(session, paged.rows, SimilarProfile,
                                    similarity=[round(r["similarity"], 4) for r in paged.rows])
    return assemble(ProfilePage, _page(results, page, size, paged))


def profiles_filter(body: SearchProfilesIn) -> search_repo.ProfileFilter:
    query = body.query.removeprefix("@") if body.query else None
    return search_repo.ProfileFilter(
        query=query or None,
        platforms=body.platforms,
        category_ids=taxonomy.descendants(body.categoryId) if body.categoryId else None,
    )


async def search_profiles(
    session: AsyncSession, body: SearchProfilesIn, *, settings: Settings,
    ride_along: RidesAlong | None = None,
) -> ProfilePage:
    if body.similarTo:
        return await similar_profiles(session, body, settings)
    f = profiles_filter(body)
    page, size = body.page_number, body.page_size
    p = page_window(page, size)
    rows = await search_repo.search_profiles(session, f, limit=p.limit + 1, offset=p.offset)
    paged = await _paged(
        rows, p,
        lambda: search_repo.count_profiles(session, f, cap=RESULT_WINDOW, ride_along=ride_along),
    )
    results = await profile_records_as(session, paged.rows, SimilarProfile)
    return assemble(ProfilePage, _page(results, page, size, paged))


async def list_categories(session: AsyncSession) -> list[Category]:
    """The taxonomy, flat, parents before their children; `profileCount` counts the distinct
    profiles in the category's subtree (what search_profiles with that categoryId finds)."""
    subtrees = {c.id: taxonomy.descendants(c.id) for c in taxonomy.CATEGORIES}
    counts = await search_repo.category_profile_counts(session, subtrees)
    return [
        Category(id=c.id, name=c.name, parentId=c.parent_id, profileCount=counts[c.id])
        for c in sorted(taxonomy.CATEGORIES, key=lambda c: c.id)
    ]
