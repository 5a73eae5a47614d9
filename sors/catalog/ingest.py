"""Ingest crawl snapshots: upsert profiles and posts, keep the stat history, mark deletions
and renames, and recompute every average and score of the crawled profiles.

Set-based and batched: the demo seed ingests thousands of profiles through the same code
that a single crawl job uses, so there is one definition of the outlier score.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import bindparam, delete, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from sors.breakouts.ideas import write_post_ideas
from sors.catalog import freshness, taxonomy
from sors.catalog.models import Post, Profile, ProfileCategory
from sors.catalog.scoring import recompute_scores
from sors.kit.ids import new_id
from sors.platforms.base import CrawlSnapshot, PostSnapshot, ProfileSnapshot

# Bulk writes pass one array per column through unnest(): one short constant statement per
# batch, whatever the row count (no per-row SQL to build or parse).
_POST_COLS = (
    ("id", "text"),
    ("profile_id", "text"),
    ("platform", "text"),
    ("platform_post_id", "text"),
    ("url", "text"),
    ("content_type", "text"),
    ("caption", "text"),
    ("published_at", "timestamptz"),
    ("duration_seconds", "float8"),
    ("views", "int8"),
    ("likes", "int8"),
    ("comments", "int8"),
    ("shares", "int8"),
    ("engagement_rate", "float8"),
    ("thumbnail_url", "text"),
    ("approximations", "jsonb"),
    ("extra", "jsonb"),
    ("stats_updated_at", "timestamptz"),
    ("first_seen_at", "timestamptz"),
)
_UPDATED = (
    "profile_id",
    "url",
    "caption",
    "content_type",
    "duration_seconds",
    "views",
    "likes",
    "comments",
    "shares",
    "engagement_rate",
    "thumbnail_url",
    "approximations",
    "extra",
    "stats_updated_at",
)


def _arrays(cols: tuple[tuple[str, str], ...]) -> str:
    def one(name: str, typ: str) -> str:
        if typ == "jsonb":  # sent as text, parsed by the server
            return f"CAST(CAST(:{name} AS text[]) AS jsonb[])"
        return f"CAST(:{name} AS {typ}[])"

    return ", ".join(one(n, t) for n, t in cols)


_UPSERT_POSTS = text(f"""
INSERT INTO posts ({", ".join(n for n, _ in _POST_COLS)})
SELECT * FROM unnest({_arrays(_POST_COLS)})
ON CONFLICT (platform, platform_post_id) DO UPDATE
   SET {", ".join(f"{c} = EXCLUDED.{c}" for c in _UPDATED)}
 WHERE posts.deleted_at IS NULL
RETURNING id, views, likes, comments, shares, stats_updated_at
""")
_STAT_COLS = (
    ("post_id", "text"),
    ("views", "int8"),
    ("likes", "int8"),
    ("comments", "int8"),
    ("shares", "int8"),
    ("crawled_at", "timestamptz"),
)
_INSERT_STATS = text(f"""
INSERT INTO post_stats ({", ".join(n for n, _ in _STAT_COLS)})
SELECT * FROM unnest({_arrays(_STAT_COLS)})
ON CONFLICT DO NOTHING
""")
_CAT_COLS = (("profile_id", "text"), ("category_id", "text"), ("rank", "int8"))
_INSERT_CATS = text(f"""
INSERT INTO profile_categories ({", ".join(n for n, _ in _CAT_COLS)})
SELECT * FROM unnest({_arrays(_CAT_COLS)})
ON CONFLICT DO NOTHING
""")


def _columns(rows: list[dict[str, Any]], cols: tuple[tuple[str, str], ...]) -> dict[str, list]:
    out: dict[str, list] = {}
    for name, typ in cols:
        if typ == "jsonb":
            out[name] = [orjson.dumps(r[name]).decode() for r in rows]
        else:
            out[name] = [r[name] for r in rows]
    return out


def engagement_rate(views: int | None, likes: int | None, comments: int | None) -> float | None:
    if not views or likes is None:
        return None
    return (likes + (comments or 0)) / views


async def ingest_crawls(session: AsyncSession, snapshots: Sequence[CrawlSnapshot]) -> list[str]:
    """Ingest snapshots (one per profile) in the caller's transaction; returns profile ids in
    the order given."""
    if not snapshots:
        return []
    profile_ids: list[str] = []
    fresh: set[str] = set()
    for snap in snapshots:
        pid, created = await _upsert_profile(session, snap.profile, snap.fetched_at)
        profile_ids.append(pid)
        if created:
            fresh.add(pid)
    await _upsert_posts(session, snapshots, profile_ids)
    await write_post_ideas(session, snapshots)
    for snap, pid in zip(snapshots, profile_ids, strict=True):
        if pid not in fresh and snap.listing_complete:
            await _mark_deleted(session, pid, snap)
    await recompute_scores(session, profile_ids, [s.fetched_at for s in snapshots])
    await _classify(session, snapshots, profile_ids)
    # After the scores: a recent outlier makes a profile "hot".
    await freshness.retier(session, profile_ids, [s.fetched_at for s in snapshots])
    return profile_ids


async def _upsert_profile(
    session: AsyncSession, p: ProfileSnapshot, at: datetime
) -> tuple[str, bool]:
    values: dict[str, Any] = {
        "display_name": p.display_name,
        "bio": p.bio,
        "avatar_url": p.avatar_url,
        "url": p.url,
        "follower_count": p.follower_count,
        "follower_count_approximate": p.follower_count_approximate,
        "platform_user_id": p.platform_user_id,
        "last_crawled_at": at,
    }
    existing = (
        await session.execute(
            select(Profile.id).where(
                Profile.platform == p.platform, Profile.handle == p.handle, Profile.is_active
            )
        )
    ).scalar()
    if existing:
        await session.execute(update(Profile).where(Profile.id == existing).values(**values))
        return existing, False
    new_pid = new_id("prf")
    session.add(
        Profile(
            id=new_pid,
            platform=p.platform,
            handle=p.handle,
            is_active=True,
            first_seen_at=at,
            **values,
        )
    )
    await session.flush()
    if p.platform_user_id:
        # Same platform account under another handle: the creator renamed. The old row stays
        # (inactive, frozen) and the posts follow the account to its new handle.
        old = (
            (
                await session.execute(
                    select(Profile.id).where(
                        Profile.platform == p.platform,
                        Profile.platform_user_id == p.platform_user_id,
                        Profile.is_active,
                        Profile.id != new_pid,
                    )
                )
            )
            .scalars()
            .all()
        )
        if old:
            await session.execute(
                update(Profile)
                .where(Profile.id.in_(old))
                .values(is_active=False, renamed_to_id=new_pid)
            )
            await session.execute(
                update(Post).where(Post.profile_id.in_(old)).values(profile_id=new_pid)
            )
            return new_pid, False
    return new_pid, True


def _post_row(post: PostSnapshot, profile_id: str, at: datetime) -> dict[str, Any]:
    return {
        "id": new_id("pst"),
        "profile_id": profile_id,
        "platform": post.platform,
        "platform_post_id": post.platform_post_id,
        "url": post.url,
        "content_type": post.content_type,
        "caption": post.caption,
        "published_at": post.published_at,
        "duration_seconds": post.duration_seconds,
        "views": post.views,
        "likes": post.likes,
        "comments": post.comments,
        "shares": post.shares,
        "engagement_rate": engagement_rate(post.views, post.likes, post.comments),
        "thumbnail_url": post.thumbnail_url,
        "approximations": dict(post.approximations),
        "extra": dict(post.extra),
        "stats_updated_at": at,
        "first_seen_at": at,
    }


async def _upsert_posts(
    session: AsyncSession, snapshots: Sequence[CrawlSnapshot], profile_ids: list[str]
) -> None:
    rows: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for snap, pid in zip(snapshots, profile_ids, strict=True):
        for post in snap.posts:
            key = (post.platform, post.platform_post_id)
            if key not in seen:
                seen.add(key)
                rows.append(_post_row(post, pid, snap.fetched_at))
    if not rows:
        return
    returned = (await session.execute(_UPSERT_POSTS, _columns(rows, _POST_COLS))).all()
    if returned:
        stats = {
            "post_id": [r[0] for r in returned],
            "views": [r[1] for r in returned],
            "likes": [r[2] for r in returned],
            "comments": [r[3] for r in returned],
            "shares": [r[4] for r in returned],
            "crawled_at": [r[5] for r in returned],
        }
        await session.execute(_INSERT_STATS, stats)


async def _mark_deleted(session: AsyncSession, profile_id: str, snap: CrawlSnapshot) -> None:
    # Only posts inside the listed range can be judged: an older post merely fell off the
    # end of the listing.
    if not snap.posts:
        return
    oldest = min(p.published_at for p in snap.posts)
    listed = [p.platform_post_id for p in snap.posts]
    await session.execute(
        update(Post)
        .where(
            Post.profile_id == profile_id,
            Post.deleted_at.is_(None),
            Post.published_at >= oldest,
            Post.platform_post_id.not_in(listed),
        )
        .values(deleted_at=snap.fetched_at)
    )


async def _classify(
    session: AsyncSession, snapshots: Sequence[CrawlSnapshot], profile_ids: list[str]
) -> None:
    rows = []
    for snap, pid in zip(snapshots, profile_ids, strict=True):
        texts = [snap.profile.bio or "", snap.profile.display_name or ""]
        # The newest captions say what the creator is about now, and bound the work.
        recent = sorted(snap.posts, key=lambda p: p.published_at, reverse=True)[:20]
        texts += [p.caption or "" for p in recent]
        rows += [
            {"profile_id": pid, "category_id": cid, "rank": i}
            for i, cid in enumerate(taxonomy.classify(texts))
        ]
    await session.execute(
        delete(ProfileCategory).where(
            ProfileCategory.profile_id.in_(bindparam("ids", expanding=True))
        ),
        {"ids": profile_ids},
    )
    if rows:
        await session.execute(_INSERT_CATS, _columns(rows, _CAT_COLS))
