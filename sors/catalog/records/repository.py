"""The catalog's read queries: the record columns, the score helpers, single records and
trends (searches: catalog.search_repository; writes: catalog.ingest).

Queries return plain row mappings: post columns under their own names and the owner's
columns prefixed `profile_`, which is what `catalog.records` renders. Search sorts always end
with the id, so the order is total and pages are stable; each sort matches one of the
`(column DESC NULLS LAST, id)` indexes of catalog.models. The window scores' indexes hold
only the posts at or above the baseline (`SCORE_INDEX_FLOOR`): a sort by such a score reads
its page from the index first, and only a page that reaches below the baseline reads the
rest ("the tail") without it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Select,
    String,
    bindparam,
    exists,
    func,
    literal_column,
    or_,
    select,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.engine import RowMapping
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.models import (
    SCORE_INDEX_FLOOR,
    WINDOW_SCORES,
    WINDOWS,
    Post,
    PostAnalysisRecord,
    PostChange,
    PostStat,
    Profile,
    ProfileCategory,
    TranscriptRecord,
    VisualAnalysisRecord,
)
from sors.kit.db import RidesAlong, fetch_all, fetch_one, plain_sql

Row = RowMapping

# What the source counted beside `views` (catalog.ingest keeps it in `extra`), as a literal
# path: the precompiled statements bind no parameter for it.
OTHER_VIEW_COUNTS = literal_column("posts.extra -> 'other_view_counts'", type_=JSONB).label(
    "other_view_counts")
POST_COLUMNS = [
    *(c for c in Post.__table__.c if c.key not in ("search_vector", "extra")),
    OTHER_VIEW_COUNTS,
]
OWNER_COLUMNS = [
    Profile.handle.label("profile_handle"),
    Profile.display_name.label("profile_display_name"),
    Profile.follower_count.label("profile_follower_count"),
    Profile.is_active.label("profile_is_active"),
    Profile.avatar_url.label("profile_avatar_url"),
    # The owner's window averages: what the post's scores divide by (catalog.records
    # .baselines reads the baseline of each window there).
    Profile.averages.label("profile_averages"),
]
PROFILE_COLUMNS = [c for c in Profile.__table__.c]


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


def posts_with_owner() -> Select[Any]:
    return select(*POST_COLUMNS, *OWNER_COLUMNS).join(Profile, Profile.id == Post.profile_id)


def ilike_pattern(fragment: str) -> str:
    """`%fragment%` with LIKE's wildcards in the fragment taken literally."""
    escaped = fragment.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def text_match(query: str) -> ColumnElement[bool]:
    """Words of the caption, case- and accent-insensitive (the generated search column)."""
    tsq = func.plainto_tsquery(literal_column("'simple'::regconfig"), func.sors_unaccent(query))
    return Post.search_vector.op("@@")(tsq)


async def read_in_two_parts(
    read: Callable[[str, int, int], Awaitable[list[Any]]], *, limit: int, offset: int = 0,
    count_head: Callable[[int], Awaitable[int]] | None = None,
) -> list[Any]:
    """Rows sorted by a floored window score, as one statement would give them: first from
    the score's index (`read("head", limit, offset)`), and only when the page reaches below
    the floor, the rest from the posts below it (`read("tail", …)`) in the same order.
    `count_head(cap)` says how many head rows an offset skipped when the head gave none."""
    head = await read("head", limit, offset)
    if len(head) >= limit:
        return head
    if head:  # the page reached the last of the head's posts
        above = offset + len(head)
    elif offset and count_head is not None:  # the offset skipped all of them: how many
        above = await count_head(offset - 1)
    else:
        above = 0
    return head + await read("tail", limit - len(head), max(0, offset - above))


# ---- single records -------------------------------------------------------------------


def _get_post_statement() -> Any:
    snapshots = (
        select(func.count()).select_from(PostStat).where(PostStat.post_id == Post.id)
        .scalar_subquery().label("snapshot_count")
    )
    # Whether the post has a breakdown (POST /analyses), so a post without one (most) costs
    # no further query: one statement is the whole read, and a paid read's charge, riding
    # along it, holds the account row only from here to the commit.
    analysed = (
        select(PostAnalysisRecord.post_id)
        .where(PostAnalysisRecord.post_id == Post.id, PostAnalysisRecord.analysis.is_not(None))
        .exists().label("has_analysis")
    )
    return posts_with_owner().add_columns(snapshots, analysed).where(
        Post.id == bindparam("post_id"))


_GET_POST = plain_sql(_get_post_statement())


async def get_post(
    session: AsyncSession, post_id: str, *, ride_along: RidesAlong | None = None
) -> Mapping[str, Any] | None:
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
        posts_with_owner()
        .where(Post.profile_id == profile_id, Post.first_seen_at == seen_at)
        .order_by(Post.published_at, Post.id)
    )
    return [r._mapping for r in (await session.execute(stmt)).all()]


async def get_transcript(session: AsyncSession, post_id: str) -> TranscriptRecord | None:
    return await session.get(TranscriptRecord, post_id)


async def get_visual_analysis(session: AsyncSession, post_id: str) -> VisualAnalysisRecord | None:
    return await session.get(VisualAnalysisRecord, post_id)


async def post_stats(session: AsyncSession, post_id: str) -> list[Row]:
    """Every stat snapshot of a post, oldest first."""
    stmt = (
        select(PostStat.crawled_at, PostStat.views, PostStat.likes, PostStat.comments,
               PostStat.shares)
        .where(PostStat.post_id == post_id)
        .order_by(PostStat.crawled_at)
    )
    return [r._mapping for r in (await session.execute(stmt)).all()]


async def post_changes(session: AsyncSession, post_id: str) -> list[Row]:
    """The caption/title changes crawls saw on a post, oldest first."""
    stmt = (
        select(PostChange.field, PostChange.before, PostChange.after, PostChange.changed_at)
        .where(PostChange.post_id == post_id)
        .order_by(PostChange.changed_at, PostChange.id)
    )
    return [r._mapping for r in (await session.execute(stmt)).all()]


async def changes_seen(session: AsyncSession, profile_id: str, at: datetime,
                       field: str = "caption") -> list[Row]:
    """The changes of `field` seen on `profile_id`'s posts at `at`, with their posts' ids."""
    stmt = (
        select(PostChange.post_id, Post.platform_post_id, Post.url, PostChange.field,
               PostChange.before, PostChange.after, PostChange.changed_at)
        .join(Post, Post.id == PostChange.post_id)
        .where(Post.profile_id == profile_id, PostChange.changed_at == at,
               PostChange.field == field)
        .order_by(PostChange.post_id)
    )
    return [r._mapping for r in (await session.execute(stmt)).all()]


async def snapshot_count(session: AsyncSession, post_id: str) -> int:
    stmt = select(func.count()).select_from(PostStat).where(PostStat.post_id == post_id)
    return int((await session.execute(stmt)).scalar_one())


_POSTS_BY_IDS = plain_sql(
    posts_with_owner().where(Post.id == func.any(bindparam("ids", type_=ARRAY(String))))
)


async def posts_by_ids(
    session: AsyncSession, post_ids: Collection[str]
) -> dict[str, Mapping[str, Any]]:
    """Posts with their owners by id, in one precompiled statement through the session's
    driver (`kit.db.fetch_all`): the ids travel as one array, so the statement's text is the
    same for any number of them and no ORM step runs per call (breakouts read ~200 posts)."""
    if not post_ids:
        return {}
    rows = await fetch_all(session, _POSTS_BY_IDS, {"ids": list(post_ids)})
    return {r["id"]: r for r in rows}


async def post_content(session: AsyncSession, post_id: str) -> Row | None:
    """What a post's media are made of, as its platform listed it: platform, content type and
    `extra` (the simulated world keeps a post's script or slide texts there)."""
    stmt = select(Post.platform, Post.content_type, Post.extra).where(Post.id == post_id)
    row = (await session.execute(stmt)).first()
    return row._mapping if row else None


async def find_post(session: AsyncSession, platform: str, platform_post_id: str) -> Row | None:
    stmt = select(Post.id, Post.profile_id, Post.platform, Post.platform_post_id).where(
        Post.platform == platform, Post.platform_post_id == platform_post_id
    )
    row = (await session.execute(stmt)).first()
    return row._mapping if row else None


async def get_profile(session: AsyncSession, profile_id: str) -> Row | None:
    row = (await session.execute(select(*PROFILE_COLUMNS).where(Profile.id == profile_id))).first()
    return row._mapping if row else None


async def get_profiles(session: AsyncSession, profile_ids: Sequence[str]) -> dict[str, Row]:
    if not profile_ids:
        return {}
    stmt = select(*PROFILE_COLUMNS).where(Profile.id.in_(list(profile_ids)))
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
        select(*PROFILE_COLUMNS)
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
        posts_with_owner()
        .where(Post.profile_id == profile_id)
        .order_by(Post.published_at.desc(), Post.id)
        .limit(limit)
    )
    return [r._mapping for r in (await session.execute(stmt)).all()]


async def get_analysis(session: AsyncSession, post_id: str) -> PostAnalysisRecord | None:
    return await session.get(PostAnalysisRecord, post_id)
