"""The catalog's search queries: posts and profiles filtered, sorted and paged, each
statement precompiled once per shape (`kit.db.sql_for_shape`) with its values as named
parameters. A sort by a floored window score reads its page in two parts
(`repository.read_in_two_parts`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Select,
    String,
    bindparam,
    exists,
    false,
    func,
    literal_column,
    or_,
    select,
    text,
)
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from sors.catalog.ingest.scoring_sql import WINDOW_BITS
from sors.catalog.models import (
    SCORE_INDEX_FLOOR,
    Post,
    Profile,
    ProfileCategory,
)
from sors.catalog.records.repository import (
    OWNER_COLUMNS,
    POST_COLUMNS,
    PROFILE_COLUMNS,
    below_floor,
    floored,
    from_floor,
    ilike_pattern,
    read_in_two_parts,
    score_column,
    text_match,
)
from sors.kit.db import RidesAlong, fetch_all, fetch_one, shape_of, sql_for_shape

# ---- post search ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PostFilter:
    query: str | None = None
    platforms: Sequence[str] | None = None
    content_types: Sequence[str] | None = None
    score_window: str = "three_months"
    score_method: str = "mean"
    min_score: float | None = None
    min_views: float | None = None
    max_followers: float | None = None
    published_since: datetime | None = None
    # How far above its creator's median curve a young post runs now (rising posts).
    min_rising: float | None = None
    only_projected: bool = False
    category_ids: Sequence[str] | None = None  # the owner's niche: a category and its descendants
    sound_id: str | None = None  # the posts using this sound (sors.sounds)
    profile_ids: Sequence[str] | None = None  # only these creators' posts
    # Only posts whose mean baseline of `score_window` is `ok` (catalog.records.baselines).
    baseline_ok: bool = False
    exclude_anomalies: bool = False  # leave out posts flagged `engagement_anomaly`


_SORTS: dict[str, InstrumentedAttribute[Any]] = {
    "views": Post.views,
    "likes": Post.likes,
    "engagement_rate": Post.engagement_rate,
    "velocity": Post.velocity,
    "rising": Post.rising_score,
}


_BIGINT_MAX = 2**63 - 1


def _bigint(n: int) -> int:
    return min(n, _BIGINT_MAX)


def post_params(f: PostFilter) -> dict[str, object]:
    """The values of a post search's filters, under the names its statement binds them."""
    p: dict[str, object] = {}
    if f.query:
        p["query"] = f.query
    p.update({f"platform_{i}": v for i, v in enumerate(f.platforms or ())})
    p.update({f"content_type_{i}": v for i, v in enumerate(f.content_types or ())})
    if f.min_score is not None:
        p["min_score"] = f.min_score
    # Counts are integers: compare with integers, so the bigint indexes stay usable.
    if f.min_views is not None:
        p["min_views"] = _bigint(math.ceil(f.min_views))
    if f.max_followers is not None:
        p["max_followers"] = _bigint(math.floor(f.max_followers))
    if f.published_since is not None:
        p["published_since"] = f.published_since
    if f.min_rising is not None:
        p["min_rising"] = f.min_rising
    if f.sound_id is not None:
        p["sound_id"] = f.sound_id
    _category_params(p, f.category_ids)
    p.update({f"profile_{i}": v for i, v in enumerate(f.profile_ids or ())})
    if f.baseline_ok:
        p["ok_bit"] = WINDOW_BITS[f.score_window]
    if f.exclude_anomalies:
        p["anomaly"] = False
    return p


def _category_params(p: dict[str, object], category_ids: Sequence[str] | None) -> None:
    if category_ids is not None:
        p.update({f"category_{i}": v for i, v in enumerate(category_ids)})
        p["categories"] = len(category_ids)  # part of the shape: none at all matches nothing


def _bound(p: Mapping[str, object], name: str, like: Any) -> Any:
    # Typed as the column it is compared with: the driver casts each parameter to its type
    # (`%(max_followers)s::BIGINT`), and a type read off the value would cast a big count to
    # INTEGER, or a timestamp to one without its time zone.
    return bindparam(name, p[name], type_=like.type)


def _listed(p: Mapping[str, object], prefix: str, like: Any) -> list[Any]:
    return [_bound(p, k, like) for k in p if k.startswith(prefix)]


def _guarded(f: PostFilter) -> bool:
    """A minimum score at or above the floor: every match is in the score's index."""
    col = score_column(f.score_window, f.score_method)
    return f.min_score is not None and floored(col) and f.min_score >= SCORE_INDEX_FLOOR


def _split(f: PostFilter, sort_by: str) -> bool:
    """A sort by a floored score whose matches may lie below the floor: read in two parts."""
    return (
        sort_by == "outlier_score"
        and floored(score_column(f.score_window, f.score_method))
        and not _guarded(f)
    )


def post_conditions(f: PostFilter, part: str | None = None) -> list[ColumnElement[bool]]:
    """The filters' conditions; `part` "head" / "tail": only the posts from the score's
    floor up / below it (a sort split in two, `_split`)."""
    p = post_params(f)
    conds: list[ColumnElement[bool]] = []
    col = score_column(f.score_window, f.score_method)
    if part == "head" or _guarded(f):
        conds.append(from_floor(col))
    elif part == "tail":
        conds.append(below_floor(col))
    if "query" in p:
        conds.append(text_match(bindparam("query", p["query"], type_=String())))
    if platforms := _listed(p, "platform_", Post.platform):
        conds.append(Post.platform.in_(platforms))
    if content_types := _listed(p, "content_type_", Post.content_type):
        conds.append(Post.content_type.in_(content_types))
    if "min_score" in p:
        conds.append(col >= _bound(p, "min_score", col))
    if "min_views" in p:
        conds.append(Post.views >= _bound(p, "min_views", Post.views))
    if "max_followers" in p:
        conds.append(Post.owner_followers <= _bound(p, "max_followers", Post.owner_followers))
    if "published_since" in p:
        conds.append(Post.published_at >= _bound(p, "published_since", Post.published_at))
    if "min_rising" in p:
        conds.append(Post.rising_score >= _bound(p, "min_rising", Post.rising_score))
    elif f.only_projected:
        # The predicate of ix_posts_rising_score, so a sort by it reads that index.
        conds.append(Post.rising_score.is_not(None))
    if "sound_id" in p:
        conds.append(Post.sound_id == bindparam("sound_id", p["sound_id"], type_=String()))
    if profiles := _listed(p, "profile_", Post.profile_id):
        conds.append(Post.profile_id.in_(profiles))
    if "ok_bit" in p:
        bit = Post.baseline_ok.op("&")(_bound(p, "ok_bit", Post.baseline_ok))
        conds.append(bit == _bound(p, "ok_bit", Post.baseline_ok))
    if "anomaly" in p:
        conds.append(Post.engagement_anomaly == _bound(p, "anomaly", Post.engagement_anomaly))
    if "categories" in p:
        # The owners in the niche, one semi-join over profile_categories' category index.
        if categories := _listed(p, "category_", ProfileCategory.category_id):
            conds.append(Post.profile_id.in_(
                select(ProfileCategory.profile_id).where(
                    ProfileCategory.category_id.in_(categories))))
        else:
            conds.append(false())
    return conds


def post_order(sort_by: str, score_window: str, score_method: str = "mean") -> list[Any]:
    if sort_by == "recent":
        return [Post.published_at.desc(), Post.id]
    if sort_by == "outlier_score":
        col = score_column(score_window, score_method)
    else:
        col = _SORTS[sort_by]
    return [col.desc().nulls_last(), Post.id]


def search_posts_stmt(
    f: PostFilter, *, sort_by: str, limit: int, offset: int, part: str | None = None
) -> Select[Any]:
    """The page in two steps: the ids first, from the sort's index alone (its INCLUDE
    columns carry the filters, so no row is read to reject it), then those rows."""
    order = post_order(sort_by, f.score_window, f.score_method)
    hits = (
        select(Post.id)
        .where(*post_conditions(f, part))
        .order_by(*order)
        .limit(bindparam("limit", limit))
        .offset(bindparam("offset", offset))
        .subquery("hits")
    )
    return (
        select(*POST_COLUMNS, *OWNER_COLUMNS)
        .select_from(hits)
        .join(Post, Post.id == hits.c.id)
        .join(Profile, Profile.id == Post.profile_id)
        .order_by(*order)
    )


def count_posts_stmt(f: PostFilter, *, cap: int, part: str | None = None) -> Select[Any]:
    """Matches, counted up to `cap` + 1 (so the caller can tell the count was capped)."""
    inner: Select[Any] = (
        select(literal_column("1")).select_from(Post).where(*post_conditions(f, part))
        .limit(bindparam("cap", cap + 1))
    )
    return select(func.count()).select_from(inner.subquery())


# Searches run precompiled per shape on the session's driver connection (kit.db.sql_for_shape):
# building the statement and the ORM's execution and result layers cost more than a cheap
# search's round trip. The statements are the ones the functions above build.


async def search_posts(
    session: AsyncSession, f: PostFilter, *, sort_by: str, limit: int, offset: int
) -> Sequence[Mapping[str, Any]]:
    """A page of matches. Sorted by a floored window score (and not filtered from the floor
    up), the page comes from the score's index first; only when it reaches below the floor
    is the rest read from the posts below it, in the same order (the floor's side first,
    then lower scores, then none), so the pages are the ones one statement would give."""
    if not _split(f, sort_by):
        return await _posts_page(session, f, sort_by, limit, offset)

    async def read(part: str, n: int, skip: int) -> list[Mapping[str, Any]]:
        return [*await _posts_page(session, f, sort_by, n, skip, part)]

    async def count_head(cap: int) -> int:
        return await count_posts(session, f, cap=cap, part="head")

    return await read_in_two_parts(read, limit=limit, offset=offset, count_head=count_head)


async def _posts_page(
    session: AsyncSession, f: PostFilter, sort_by: str, limit: int, offset: int,
    part: str | None = None,
) -> Sequence[Mapping[str, Any]]:
    p = post_params(f)
    sql = sql_for_shape(
        ("posts.page", sort_by, f.score_window, f.score_method, _guarded(f), part, *shape_of(p)),
        lambda: search_posts_stmt(f, sort_by=sort_by, limit=limit, offset=offset, part=part),
    )
    return await fetch_all(session, sql, {**p, "limit": limit, "offset": offset})


async def count_posts(
    session: AsyncSession, f: PostFilter, *, cap: int, part: str | None = None,
    ride_along: RidesAlong | None = None,
) -> int:
    p = post_params(f)
    sql = sql_for_shape(
        ("posts.count", f.score_window, f.score_method, _guarded(f), part, *shape_of(p)),
        lambda: count_posts_stmt(f, cap=cap, part=part),
    )
    return await _count(session, sql, {**p, "cap": cap + 1}, ride_along)


async def _count(
    session: AsyncSession, sql: str, params: dict[str, object], ride_along: RidesAlong | None
) -> int:
    row = await fetch_one(session, sql, params, ride_along=ride_along)
    assert row is not None  # an aggregate without GROUP BY: always one row
    return int(next(iter(row.values())))


# ---- profile search -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProfileFilter:
    query: str | None = None
    platforms: Sequence[str] | None = None
    category_ids: Sequence[str] | None = None  # the category and its descendants


def profile_params(f: ProfileFilter) -> dict[str, object]:
    """The values of a profile search's filters, under the names its statement binds them."""
    p: dict[str, object] = {}
    if f.query:
        p["pattern"] = ilike_pattern(f.query)
    p.update({f"platform_{i}": v for i, v in enumerate(f.platforms or ())})
    _category_params(p, f.category_ids)
    return p


def profile_conditions(f: ProfileFilter) -> list[ColumnElement[bool]]:
    p = profile_params(f)
    conds: list[ColumnElement[bool]] = []
    if "pattern" in p:
        pattern = _bound(p, "pattern", Profile.handle)
        # Each side matches one trigram index (handles are stored lower-case).
        conds.append(
            or_(
                Profile.handle.ilike(pattern, escape="\\"),
                func.lower(Profile.display_name).like(func.lower(pattern), escape="\\"),
            )
        )
    if platforms := _listed(p, "platform_", Profile.platform):
        conds.append(Profile.platform.in_(platforms))
    if "categories" in p:
        if categories := _listed(p, "category_", ProfileCategory.category_id):
            conds.append(
                exists().where(
                    ProfileCategory.profile_id == Profile.id,
                    ProfileCategory.category_id.in_(categories),
                )
            )
        else:
            conds.append(false())
    return conds


def search_profiles_stmt(f: ProfileFilter, *, limit: int, offset: int) -> Select[Any]:
    return (
        select(*PROFILE_COLUMNS)
        .where(*profile_conditions(f))
        .order_by(Profile.follower_count.desc().nulls_last(), Profile.id)
        .limit(bindparam("limit", limit))
        .offset(bindparam("offset", offset))
    )


def count_profiles_stmt(f: ProfileFilter, *, cap: int) -> Select[Any]:
    inner: Select[Any] = (
        select(literal_column("1"))
        .select_from(Profile)
        .where(*profile_conditions(f))
        .limit(bindparam("cap", cap + 1))
    )
    return select(func.count()).select_from(inner.subquery())


async def search_profiles(
    session: AsyncSession, f: ProfileFilter, *, limit: int, offset: int
) -> Sequence[Mapping[str, Any]]:
    p = profile_params(f)
    sql = sql_for_shape(
        ("profiles.page", *shape_of(p)),
        lambda: search_profiles_stmt(f, limit=limit, offset=offset),
    )
    return await fetch_all(session, sql, {**p, "limit": limit, "offset": offset})


async def count_profiles(
    session: AsyncSession, f: ProfileFilter, *, cap: int, ride_along: RidesAlong | None = None
) -> int:
    p = profile_params(f)
    sql = sql_for_shape(("profiles.count", *shape_of(p)), lambda: count_profiles_stmt(f, cap=cap))
    return await _count(session, sql, {**p, "cap": cap + 1}, ride_along)


async def category_profile_counts(
    session: AsyncSession, subtrees: Mapping[str, Sequence[str]]
) -> dict[str, int]:
    """Distinct profiles linked to any category of each subtree (root id -> its ids)."""
    roots = [root for root, ids in subtrees.items() for _ in ids]
    members = [cid for ids in subtrees.values() for cid in ids]
    stmt = text(
        "SELECT m.root, count(DISTINCT pc.profile_id) "
        "FROM unnest(CAST(:roots AS text[]), CAST(:ids AS text[])) AS m(root, cid) "
        "JOIN profile_categories pc ON pc.category_id = m.cid GROUP BY m.root"
    )
    result = await session.execute(stmt, {"roots": roots, "ids": members})
    counts: dict[str, int] = {root: n for root, n in result.all()}
    return {root: int(counts.get(root, 0)) for root in subtrees}
