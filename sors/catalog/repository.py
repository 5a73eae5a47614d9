"""Every read query of the catalog (writes live in catalog.ingest).

Queries return plain row mappings: post columns under their own names and the owner's
columns prefixed `profile_`, which is what `catalog.schemas` renders. Search sorts always end
with the id, so the order is total and pages are stable; each sort matches one of the
`(column DESC NULLS LAST, id)` indexes of catalog.models. The window scores' indexes hold
only the posts at or above the baseline (`SCORE_INDEX_FLOOR`): a sort by such a score reads
its page from the index first, and only a page that reaches below the baseline reads the
rest ("the tail") without it.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
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
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.models import (
    SCORE_INDEX_FLOOR,
    WINDOW_SCORES,
    WINDOWS,
    Post,
    PostStat,
    Profile,
    ProfileCategory,
)
from sors.kit.db import RidesAlong, fetch_all, fetch_one, plain_sql, shape_of, sql_for_shape

Row = RowMapping

_POST_COLUMNS = [
    c for c in Post.__table__.c if c.key not in ("search_vector", "extra")
]
_OWNER_COLUMNS = [
    Profile.handle.label("profile_handle"),
    Profile.display_name.label("profile_display_name"),
    Profile.follower_count.label("profile_follower_count"),
    Profile.is_active.label("profile_is_active"),
    Profile.avatar_url.label("profile_avatar_url"),
]
_PROFILE_COLUMNS = [c for c in Profile.__table__.c]


def score_column(window: str, method: str = "mean") -> Any:
    """The stored score a search filters and sorts by: the seed's mean score of a window,
    the median score of a window, or the (window-free) age-matched score."""
    if window not in WINDOWS:
        raise ValueError(window)
    if method == "age_adjusted":
        return Post.age_score
    prefix = {"mean": "score", "median": "mscore"}[method]
    return Post.__table__.c[f"{prefix}_{window}"]


def from_floor(col: Any) -> ColumnElement[bool]:
    """`col >= 1` as a literal: the predicate of the window score indexes (migration 0015),
    which a statement must state for the planner to use them, in a generic plan too."""
    return col >= literal_column(str(SCORE_INDEX_FLOOR))


def below_floor(col: Any) -> ColumnElement[bool]:
    """The posts a window score index leaves out: below the baseline, or no score."""
    return or_(col < literal_column(str(SCORE_INDEX_FLOOR)), col.is_(None))


def floored(col: Any) -> bool:
    """Whether `col`'s index holds only the posts from the floor up."""
    return getattr(col, "name", None) in WINDOW_SCORES


def _posts_with_owner() -> Select[Any]:
    return select(*_POST_COLUMNS, *_OWNER_COLUMNS).join(Profile, Profile.id == Post.profile_id)


def ilike_pattern(fragment: str) -> str:
    """`%fragment%` with LIKE's wildcards in the fragment taken literally."""
    escaped = fragment.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def text_match(query: str) -> ColumnElement[bool]:
    """Words of the caption, case- and accent-insensitive (the generated search column)."""
    tsq = func.plainto_tsquery(literal_column("'simple'::regconfig"), func.sors_unaccent(query))
    return Post.search_vector.op("@@")(tsq)


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


_SORTS: dict[str, Any] = {
    "views": Post.views,
    "likes": Post.likes,
    "engagement_rate": Post.engagement_rate,
    "velocity": Post.velocity,
}


_BIGINT_MAX = 2**63 - 1


def _bigint(n: int) -> int:
    return min(n, _BIGINT_MAX)


def post_params(f: PostFilter) -> dict[str, Any]:
    """The values of a post search's filters, under the names its statement binds them."""
    p: dict[str, Any] = {}
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
    return p


def _bound(p: dict[str, Any], name: str, like: Any) -> Any:
    # Typed as the column it is compared with: the driver casts each parameter to its type
    # (`%(max_followers)s::BIGINT`), and a type read off the value would cast a big count to
    # INTEGER, or a timestamp to one without its time zone.
    return bindparam(name, p[name], type_=like.type)


def _listed(p: dict[str, Any], prefix: str, like: Any) -> list[Any]:
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
        select(*_POST_COLUMNS, *_OWNER_COLUMNS)
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
) -> list[dict[str, Any]]:
    """A page of matches. Sorted by a floored window score (and not filtered from the floor
    up), the page comes from the score's index first; only when it reaches below the floor
    is the rest read from the posts below it, in the same order (the floor's side first,
    then lower scores, then none), so the pages are the ones one statement would give."""
    if not _split(f, sort_by):
        return await _posts_page(session, f, sort_by, limit, offset)
    head = await _posts_page(session, f, sort_by, limit, offset, "head")
    if len(head) >= limit:
        return head
    if head:  # the page reached the last of the head's posts
        above = offset + len(head)
    else:  # the offset skipped all of them: how many (at most `offset`)
        above = await count_posts(session, f, cap=offset - 1, part="head") if offset else 0
    tail = await _posts_page(session, f, sort_by, limit - len(head), max(0, offset - above),
                             "tail")
    return head + tail


async def _posts_page(
    session: AsyncSession, f: PostFilter, sort_by: str, limit: int, offset: int,
    part: str | None = None,
) -> list[dict[str, Any]]:
    p = post_params(f)
    sql = sql_for_shape(
        ("posts.page", sort_by, f.score_window, f.score_method, _guarded(f), part, *shape_of(p)),
        lambda: search_posts_stmt(f, sort_by=sort_by, limit=limit, offset=offset, part=part),
    )
    return await fetch_all(session, sql, {**p, "limit": limit, "offset": offset})


async def count_posts(
    session: AsyncSession, f: PostFilter, *, cap: int, part: str | None = None
) -> int:
    p = post_params(f)
    sql = sql_for_shape(
        ("posts.count", f.score_window, f.score_method, _guarded(f), part, *shape_of(p)),
        lambda: count_posts_stmt(f, cap=cap, part=part),
    )
    return await _count(session, sql, {**p, "cap": cap + 1})


async def _count(session: AsyncSession, sql: str, params: dict[str, Any]) -> int:
    row = await fetch_one(session, sql, params)
    assert row is not None  # an aggregate without GROUP BY: always one row
    return int(next(iter(row.values())))


# ---- single records -------------------------------------------------------------------


def _get_post_statement() -> Any:
    snapshots = (
        select(func.count()).select_from(PostStat).where(PostStat.post_id == Post.id)
        .scalar_subquery().label("snapshot_count")
    )
    return _posts_with_owner().add_columns(snapshots).where(Post.id == bindparam("post_id"))


_GET_POST = plain_sql(_get_post_statement())


async def get_post(
    session: AsyncSession, post_id: str, *, ride_along: RidesAlong | None = None
) -> Row | dict[str, Any] | None:
    """The post with its owner and, as `snapshot_count`, how many stat snapshots it has (in
    the same statement). GET /posts/{id} is the cheapest paid call, so it runs precompiled
    through the session's driver connection (`kit.db.driver`): every round trip and every
    ORM step shows there."""
    return await fetch_one(session, _GET_POST, {"post_id": post_id}, ride_along=ride_along)


async def posts_first_seen(
    session: AsyncSession, profile_id: str, seen_at: datetime
) -> list[Any]:
    """The profile's posts a crawl stored first at `seen_at`, with their owner, oldest first."""
    stmt = (
        _posts_with_owner()
        .where(Post.profile_id == profile_id, Post.first_seen_at == seen_at)
        .order_by(Post.published_at, Post.id)
    )
    return [r._mapping for r in (await session.execute(stmt)).all()]


async def post_stats(session: AsyncSession, post_id: str) -> list[Row]:
    """Every stat snapshot of a post, oldest first."""
    stmt = (
        select(PostStat.crawled_at, PostStat.views, PostStat.likes, PostStat.comments,
               PostStat.shares)
        .where(PostStat.post_id == post_id)
        .order_by(PostStat.crawled_at)
    )
    return [r._mapping for r in (await session.execute(stmt)).all()]


async def snapshot_count(session: AsyncSession, post_id: str) -> int:
    stmt = select(func.count()).select_from(PostStat).where(PostStat.post_id == post_id)
    return int((await session.execute(stmt)).scalar_one())


_POSTS_BY_IDS = plain_sql(
    _posts_with_owner().where(Post.id == func.any(bindparam("ids", type_=ARRAY(String))))
)


async def posts_by_ids(
    session: AsyncSession, post_ids: Collection[str]
) -> dict[str, Row | dict[str, Any]]:
    """Posts with their owners by id, in one precompiled statement through the session's
    driver (`kit.db.fetch_all`): the ids travel as one array, so the statement's text is the
    same for any number of them and no ORM step runs per call (breakouts read ~200 posts)."""
    if not post_ids:
        return {}
    rows = await fetch_all(session, _POSTS_BY_IDS, {"ids": list(post_ids)})
    return {r["id"]: r for r in rows}


async def find_post(session: AsyncSession, platform: str, platform_post_id: str) -> Row | None:
    stmt = select(Post.id, Post.profile_id, Post.platform, Post.platform_post_id).where(
        Post.platform == platform, Post.platform_post_id == platform_post_id
    )
    row = (await session.execute(stmt)).first()
    return row._mapping if row else None


async def get_profile(session: AsyncSession, profile_id: str) -> Row | None:
    row = (await session.execute(select(*_PROFILE_COLUMNS).where(Profile.id == profile_id))).first()
    return row._mapping if row else None


async def get_profiles(session: AsyncSession, profile_ids: Sequence[str]) -> dict[str, Row]:
    if not profile_ids:
        return {}
    stmt = select(*_PROFILE_COLUMNS).where(Profile.id.in_(list(profile_ids)))
    return {r.id: r._mapping for r in (await session.execute(stmt)).all()}


async def active_profile_exists(session: AsyncSession, platform: str, handle: str) -> bool:
    stmt = select(
        exists().where(Profile.platform == platform, Profile.handle == handle, Profile.is_active)
    )
    return bool((await session.execute(stmt)).scalar())


async def profile_by_handle(session: AsyncSession, platform: str, handle: str) -> Row | None:
    """The active profile with this handle, else the most recently crawled inactive one
    (a renamed or vanished creator's frozen row)."""
    stmt = (
        select(*_PROFILE_COLUMNS)
        .where(Profile.platform == platform, Profile.handle == handle)
        .order_by(Profile.is_active.desc(), Profile.last_crawled_at.desc().nulls_last(), Profile.id)
        .limit(1)
    )
    row = (await session.execute(stmt)).first()
    return row._mapping if row else None


async def category_ids(session: AsyncSession, profile_ids: Sequence[str]) -> dict[str, list[str]]:
    """Each profile's category ids, best first."""
    if not profile_ids:
        return {}
    stmt = (
        select(ProfileCategory.profile_id, ProfileCategory.category_id)
        .where(ProfileCategory.profile_id.in_(list(profile_ids)))
        .order_by(ProfileCategory.profile_id, ProfileCategory.rank, ProfileCategory.category_id)
    )
    out: dict[str, list[str]] = {}
    for pid, cid in (await session.execute(stmt)).all():
        out.setdefault(pid, []).append(cid)
    return out


async def recent_posts(session: AsyncSession, profile_id: str, *, limit: int) -> list[Row]:
    stmt = (
        _posts_with_owner()
        .where(Post.profile_id == profile_id)
        .order_by(Post.published_at.desc(), Post.id)
        .limit(limit)
    )
    return [r._mapping for r in (await session.execute(stmt)).all()]


# ---- profile search -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProfileFilter:
    query: str | None = None
    platforms: Sequence[str] | None = None
    category_ids: Sequence[str] | None = None  # the category and its descendants


def profile_params(f: ProfileFilter) -> dict[str, Any]:
    """The values of a profile search's filters, under the names its statement binds them."""
    p: dict[str, Any] = {}
    if f.query:
        p["pattern"] = ilike_pattern(f.query)
    p.update({f"platform_{i}": v for i, v in enumerate(f.platforms or ())})
    if f.category_ids is not None:
        p.update({f"category_{i}": v for i, v in enumerate(f.category_ids)})
        p["categories"] = len(f.category_ids)  # part of the shape: none at all matches nothing
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
        select(*_PROFILE_COLUMNS)
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
) -> list[dict[str, Any]]:
    p = profile_params(f)
    sql = sql_for_shape(
        ("profiles.page", *shape_of(p)),
        lambda: search_profiles_stmt(f, limit=limit, offset=offset),
    )
    return await fetch_all(session, sql, {**p, "limit": limit, "offset": offset})


async def count_profiles(session: AsyncSession, f: ProfileFilter, *, cap: int) -> int:
    p = profile_params(f)
    sql = sql_for_shape(("profiles.count", *shape_of(p)), lambda: count_profiles_stmt(f, cap=cap))
    return await _count(session, sql, {**p, "cap": cap + 1})


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


# ---- trends and trending --------------------------------------------------------------


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
    stmt = _posts_with_owner().where(*trend_conditions(f)).order_by(col.desc().nulls_last(),
                                                                    Post.id)
    rows = [r._mapping for r in (await session.execute(stmt.where(from_floor(col))
                                                       .limit(limit))).all()]
    if len(rows) < limit:
        rest = stmt.where(below_floor(col)).limit(limit - len(rows))
        rows += [r._mapping for r in (await session.execute(rest)).all()]
    return rows


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
        _posts_with_owner()
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
