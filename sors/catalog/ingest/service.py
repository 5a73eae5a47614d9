"""Ingest crawl snapshots: upsert profiles and posts, keep the stat history, mark deletions
and renames, and recompute every average and score of the crawled profiles.

Set-based and batched: the demo seed ingests thousands of profiles through the same code
that a single crawl job uses, so there is one definition of the outlier score.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import bindparam, delete, text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.ingest import freshness, projections, usage
from sors.catalog.ingest.bulk import StagedPost, arrays, columns
from sors.catalog.ingest.freshness import DEFAULT_POLICY
from sors.catalog.ingest.profiles import upsert_profiles
from sors.catalog.ingest.scoring import DEFAULT_MIN_AGE_HOURS, recompute_scores
from sors.catalog.models import ProfileCategory
from sors.catalog.vectors import embeddings
from sors.kit.db import binary_sql, execute_rows
from sors.kit.ids import new_id
from sors.platforms import taxonomy
from sors.platforms.base import CrawlSnapshot, PostSnapshot

_STAT_COLS = (
    ("post_id", "text"),
    ("views", "int8"),
    ("likes", "int8"),
    ("comments", "int8"),
    ("shares", "int8"),
    ("crawled_at", "timestamptz"),
)
_INSERT_STATS = binary_sql(text(f"""
INSERT INTO post_stats ({", ".join(n for n, _ in _STAT_COLS)})
SELECT * FROM unnest({arrays(_STAT_COLS)})
ON CONFLICT DO NOTHING
"""))
_CAT_COLS = (("profile_id", "text"), ("category_id", "text"), ("rank", "int8"))
_INSERT_CATS = binary_sql(text(f"""
INSERT INTO profile_categories ({", ".join(n for n, _ in _CAT_COLS)})
SELECT * FROM unnest({arrays(_CAT_COLS)})
ON CONFLICT DO NOTHING
"""))


# Which crawled posts the catalog already has (the stored publication time stays), and
# whether the crawl saw another caption.
_EXISTING = binary_sql(text("""
SELECT s.i, p.id, p.published_at, p.deleted_at IS NOT NULL,
       p.caption IS DISTINCT FROM s.caption, p.caption
  FROM unnest(CAST(:platform AS text[]), CAST(:ppid AS text[]), CAST(:caption AS text[]))
       WITH ORDINALITY AS s(platform, ppid, caption, i)
  JOIN posts p ON p.platform = s.platform AND p.platform_post_id = s.ppid
"""))
# Edited captions, before the recomputation writes the crawl (catalog.bulk.POST_UPDATED):
# the row triggers of migration 0014 re-extract those posts' ideas.
_SET_CAPTIONS = binary_sql(text("""
UPDATE posts p SET caption = u.caption
  FROM unnest(CAST(:id AS text[]), CAST(:caption AS text[])) AS u(id, caption)
 WHERE p.id = u.id
"""))
# The rewrites, kept with both versions (catalog.models.PostChange).
_RECORD_CHANGES = binary_sql(text("""
INSERT INTO post_changes (id, post_id, field, before, after, changed_at)
SELECT u.id, u.post_id, 'caption', u.before, u.after, u.at
  FROM unnest(CAST(:id AS text[]), CAST(:post_id AS text[]), CAST(:before AS text[]),
              CAST(:after AS text[]), CAST(:at AS timestamptz[])) \
AS u(id, post_id, before, after, at)
"""))
# A complete listing shows every live post of its range: a post of the profile published
# since the oldest listed one and not listed is gone. Posts another profile's listing in the
# batch claims are not (they move to that profile).
_MARK_DELETED = binary_sql(text("""
WITH b AS (
    SELECT * FROM unnest(CAST(:k AS int[]), CAST(:pid AS text[]),
                         CAST(:oldest AS timestamptz[]), CAST(:t AS timestamptz[]))
        AS b(k, profile_id, oldest, t)
),
l AS (SELECT * FROM unnest(CAST(:lk AS int[]), CAST(:lppid AS text[])) AS l(k, ppid)),
claimed AS (SELECT * FROM unnest(CAST(:claimed AS text[])) AS c(id))
UPDATE posts p SET deleted_at = b.t
  FROM b
 WHERE p.profile_id = b.profile_id AND p.deleted_at IS NULL AND p.published_at >= b.oldest
   AND NOT EXISTS (SELECT 1 FROM l WHERE l.k = b.k AND l.ppid = p.platform_post_id)
   AND NOT EXISTS (SELECT 1 FROM claimed c WHERE c.id = p.id)
"""))


def engagement_rate(views: int | None, likes: int | None, comments: int | None) -> float | None:
    if not views or likes is None:
        return None
    return (likes + (comments or 0)) / views


async def ingest_crawls(
    session: AsyncSession, snapshots: Sequence[CrawlSnapshot], *,
    min_age_hours: float = DEFAULT_MIN_AGE_HOURS, policy: freshness.Policy = DEFAULT_POLICY,
) -> list[str]:
    """Ingest snapshots (one per profile) in the caller's transaction; returns profile ids in
    the order given. A batch that names a profile twice is ingested in order, in parts that
    name it once: the later crawl is the later state, as separate crawls would leave it.

    `min_age_hours` (`settings.jobs.baseline_min_age_hours`) and `policy` (the keeper's
    tiers, `freshness.Policy.from_settings`) come from the settings of the process that
    crawled; their defaults are the settings' defaults, for the demo seed and tests."""
    parts: list[list[CrawlSnapshot]] = [[]]
    seen: set[tuple[str, str]] = set()
    for snap in snapshots:
        key = (snap.profile.platform, snap.profile.handle)
        if key in seen:
            parts.append([])
            seen.clear()
        seen.add(key)
        parts[-1].append(snap)
    out: list[str] = []
    for part in parts:
        out += await _ingest(session, part, min_age_hours, policy) if part else []
    return out


async def _ingest(
    session: AsyncSession, snapshots: Sequence[CrawlSnapshot], min_age_hours: float,
    policy: freshness.Policy,
) -> list[str]:
    profile_ids, fresh = await upsert_profiles(session, snapshots)
    staged = await _stage_posts(session, snapshots, profile_ids)
    await usage.resolve_sounds(session, staged)
    await _mark_deleted(session, snapshots, profile_ids, fresh, staged)
    # The crawled posts are written with their scores: one new row version per post.
    inserted = set(await recompute_scores(
        session, profile_ids, [s.fetched_at for s in snapshots], staged,
        min_age_hours=min_age_hours,
    ))
    await _insert_stats(session, [r for r in staged if r["id"] in inserted])
    await projections.update(session, profile_ids, [s.fetched_at for s in snapshots])
    await _classify(session, snapshots, profile_ids)
    # After the categories: a hashtag use carries its creator's niche.
    await usage.record(session, staged, max(s.fetched_at for s in snapshots))
    # New posts and those whose caption changed are (re-)embedded.
    await embeddings.enqueue(
        session, [r["id"] for r in staged if r["is_new"] or r.get("caption_changed")]
    )
    # After the scores: a recent outlier makes a profile "hot".
    await freshness.retier(session, profile_ids, [s.fetched_at for s in snapshots], policy)
    return profile_ids


def _post_row(
    post: PostSnapshot, profile_id: str, at: datetime, post_id: str | None = None
) -> StagedPost:
    """The post as a crawl at `at` stages it, new until the catalog says otherwise."""
    return {
        "id": new_id("pst") if post_id is None else post_id,
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
        "sound_id": None,
        "is_new": True,
        "sound": post.sound,
    }


async def _stage_posts(
    session: AsyncSession, snapshots: Sequence[CrawlSnapshot], profile_ids: list[str]
) -> list[StagedPost]:
    """The crawled posts as they will be written (`is_new`: not in the catalog yet); a post
    the catalog marked deleted is left as it is. The stat rows of the existing ones are
    written now: their history is part of the scores."""
    rows: list[StagedPost] = []
    seen: set[tuple[str, str]] = set()
    for snap, pid in zip(snapshots, profile_ids, strict=True):
        for post in snap.posts:
            key = (post.platform, post.platform_post_id)
            if key not in seen:
                seen.add(key)
                # Its id once it is known to be new: most crawled posts are not.
                rows.append(_post_row(post, pid, snap.fetched_at, ""))
    if not rows:
        return []
    found = await execute_rows(session, _EXISTING, {
        "platform": [r["platform"] for r in rows],
        "ppid": [r["platform_post_id"] for r in rows],
        "caption": [r["caption"] for r in rows],
    })
    deleted: set[int] = set()
    edited: list[StagedPost] = []
    for i, post_id, published_at, is_deleted, new_caption, old_caption in found:
        if is_deleted:
            deleted.add(i - 1)
        row = rows[i - 1]
        row.update(id=post_id, published_at=published_at, is_new=False)
        if new_caption and not is_deleted:
            edited.append(row)
            row.update(caption_changed=True, caption_before=old_caption)
    staged = [r for i, r in enumerate(rows) if i not in deleted]
    if edited:
        await execute_rows(session, _SET_CAPTIONS, {
            "id": [r["id"] for r in edited], "caption": [r["caption"] for r in edited],
        })
        await execute_rows(session, _RECORD_CHANGES, {
            "id": [new_id("chg") for _ in edited], "post_id": [r["id"] for r in edited],
            "before": [r.get("caption_before") for r in edited],
            "after": [r["caption"] for r in edited],
            "at": [r["stats_updated_at"] for r in edited],
        })
    for r in staged:
        if r["is_new"]:
            r["id"] = new_id("pst")
    await _insert_stats(session, [r for r in staged if not r["is_new"]])
    return staged


async def _insert_stats(session: AsyncSession, rows: Sequence[StagedPost]) -> None:
    if rows:
        await execute_rows(session, _INSERT_STATS, {
            "post_id": [r["id"] for r in rows],
            "views": [r["views"] for r in rows],
            "likes": [r["likes"] for r in rows],
            "comments": [r["comments"] for r in rows],
            "shares": [r["shares"] for r in rows],
            "crawled_at": [r["stats_updated_at"] for r in rows],
        })


async def _mark_deleted(
    session: AsyncSession,
    snapshots: Sequence[CrawlSnapshot],
    profile_ids: list[str],
    fresh: set[str],
    staged: Sequence[StagedPost],
) -> None:
    # Only posts inside the listed range can be judged: an older post merely fell off the
    # end of the listing. A new profile has nothing to lose.
    judged = [
        (k, snap, pid)
        for k, (snap, pid) in enumerate(zip(snapshots, profile_ids, strict=True))
        if pid not in fresh and snap.listing_complete and snap.posts
    ]
    if not judged:
        return
    await execute_rows(session, _MARK_DELETED, {
        "k": [k for k, _, _ in judged],
        "pid": [pid for _, _, pid in judged],
        "oldest": [min(p.published_at for p in snap.posts) for _, snap, _ in judged],
        "t": [snap.fetched_at for _, snap, _ in judged],
        "lk": [k for k, snap, _ in judged for _ in snap.posts],
        "lppid": [p.platform_post_id for _, snap, _ in judged for p in snap.posts],
        "claimed": [r["id"] for r in staged if not r["is_new"]],
    })


# The creator's newest stored captions, for snapshots that list fewer posts than the
# classifier reads (an import of a few posts, a short listing).
_STORED_CAPTIONS = binary_sql(text(f"""
SELECT u.pid, c.platform_post_id, c.published_at, c.caption
  FROM unnest(CAST(:ids AS text[])) AS u(pid)
 CROSS JOIN LATERAL (
       SELECT platform_post_id, published_at, caption FROM posts
        WHERE profile_id = u.pid AND deleted_at IS NULL
        ORDER BY published_at DESC LIMIT {taxonomy.CAPTIONS_READ}) c
"""))


async def _classify(
    session: AsyncSession, snapshots: Sequence[CrawlSnapshot], profile_ids: list[str]
) -> None:
    short = [pid for snap, pid in zip(snapshots, profile_ids, strict=True)
             if len(snap.posts) < taxonomy.CAPTIONS_READ]
    stored: dict[str, dict[str, tuple[datetime, str | None]]] = {}
    if short:
        for pid, ppid, published, caption in await execute_rows(
            session, _STORED_CAPTIONS, {"ids": short}
        ):
            stored.setdefault(pid, {})[ppid] = (published, caption)
    rows = []
    for snap, pid in zip(snapshots, profile_ids, strict=True):
        captions = dict(stored.get(pid, {}))
        captions.update({p.platform_post_id: (p.published_at, p.caption) for p in snap.posts})
        recent = sorted(captions.values(), key=lambda pc: pc[0], reverse=True)
        found = taxonomy.classify_profile(snap.profile.bio, snap.profile.display_name,
                                          (caption for _, caption in recent))
        rows += [
            {"profile_id": pid, "category_id": cid, "rank": i}
            for i, cid in enumerate(found)
        ]
    await session.execute(
        delete(ProfileCategory).where(
            ProfileCategory.profile_id.in_(bindparam("ids", expanding=True))
        ),
        {"ids": profile_ids},
    )
    if rows:
        await execute_rows(session, _INSERT_CATS, columns(rows, _CAT_COLS))
