"""Snapshots from files a team already holds (`sors import`), into the catalog through the
same ingest as a crawl: scores, history, categories and search vectors alike.

Idempotent by observation time. A profile the catalog saw later than the file was captured
is left as it is (its newer figures stay); a post that already has figures from the file's
capture time is skipped, so importing a file twice changes nothing. What a file does not
carry (an Instagram post export has no follower count) keeps the catalog's value: a missing
field in a file is not a platform hiding it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.ingest.freshness import Policy
from sors.catalog.ingest.service import ingest_crawls
from sors.config import Settings
from sors.kit.db import binary_sql, execute_rows
from sors.platforms.base import CrawlSnapshot, ProfileSnapshot


@dataclass
class ImportSummary:
    profiles_new: int = 0
    profiles_updated: int = 0
    profiles_skipped: int = 0
    posts_new: int = 0
    posts_updated: int = 0
    posts_skipped: int = 0
    reasons: dict[str, int] = field(default_factory=dict)  # why things were skipped

    def skip(self, reason: str, n: int = 1) -> None:
        if n:
            self.reasons[reason] = self.reasons.get(reason, 0) + n

    def as_dict(self) -> dict[str, object]:
        return {
            "profiles": {"new": self.profiles_new, "updated": self.profiles_updated,
                         "skipped": self.profiles_skipped},
            "posts": {"new": self.posts_new, "updated": self.posts_updated,
                      "skipped": self.posts_skipped},
            "skipped": dict(self.reasons),
        }


_PROFILES = binary_sql(text("""
SELECT u.i, p.last_crawled_at, p.display_name, p.bio, p.avatar_url, p.follower_count,
       p.follower_count_approximate, p.platform_user_id
  FROM unnest(CAST(:platform AS text[]), CAST(:handle AS text[])) WITH ORDINALITY
       AS u(platform, handle, i)
  JOIN profiles p ON p.platform = u.platform AND p.handle = u.handle AND p.is_active
"""))
_POSTS = binary_sql(text("""
SELECT u.platform, u.ppid, p.stats_updated_at
  FROM unnest(CAST(:platform AS text[]), CAST(:ppid AS text[])) AS u(platform, ppid)
  JOIN posts p ON p.platform = u.platform AND p.platform_post_id = u.ppid
"""))

_SAME_TIME = "already imported: the catalog has this post's figures from the same time"
_NEWER_POST = "the catalog has newer figures for this post"
_NEWER_PROFILE = "the catalog saw this profile after the file was captured"


def _fill(profile: ProfileSnapshot, stored: tuple[Any, ...]) -> ProfileSnapshot:
    """The file's profile, with what it does not carry taken from the catalog (`stored`: a
    row of `_PROFILES`)."""
    _, _, name, bio, avatar, followers, approximate, user_id = stored
    p = profile
    counted = p.follower_count is not None
    return dataclasses.replace(
        p,
        display_name=name if p.display_name is None else p.display_name,
        bio=bio if p.bio is None else p.bio,
        avatar_url=avatar if p.avatar_url is None else p.avatar_url,
        follower_count=p.follower_count if counted else followers,
        follower_count_approximate=p.follower_count_approximate if counted else approximate,
        platform_user_id=user_id if p.platform_user_id is None else p.platform_user_id,
    )


async def import_snapshots(
    session: AsyncSession, snapshots: Sequence[CrawlSnapshot], observed_at: datetime,
    settings: Settings,
) -> ImportSummary:
    """Ingest one file's snapshots in the caller's transaction, scored and tiered as
    `settings` say; what was new, updated and skipped (with why)."""
    out = ImportSummary()
    if not snapshots:
        return out
    stored = {
        row[0] - 1: row for row in await execute_rows(session, _PROFILES, {
            "platform": [s.profile.platform for s in snapshots],
            "handle": [s.profile.handle for s in snapshots],
        })
    }
    posts = [p for s in snapshots for p in s.posts]
    known = {
        (r[0], r[1]): r[2] for r in await execute_rows(session, _POSTS, {
            "platform": [p.platform for p in posts],
            "ppid": [p.platform_post_id for p in posts],
        })
    } if posts else {}
    todo: list[CrawlSnapshot] = []
    counted: set[tuple[str, str]] = set()  # a post two creators share (a collab) counts once
    for i, snap in enumerate(snapshots):
        row = stored.get(i)
        last_seen = row[1] if row is not None else None
        if last_seen is not None and last_seen > observed_at:
            out.profiles_skipped += 1
            out.posts_skipped += len(snap.posts)
            out.skip(_NEWER_PROFILE)
            continue
        fresh = []
        for post in snap.posts:
            at = known.get((post.platform, post.platform_post_id))
            if at is not None and at >= observed_at:
                out.posts_skipped += 1
                out.skip(_SAME_TIME if at == observed_at else _NEWER_POST)
                continue
            fresh.append(post)
            if (post.platform, post.platform_post_id) in counted:
                continue
            counted.add((post.platform, post.platform_post_id))
            if at is None:
                out.posts_new += 1
            else:
                out.posts_updated += 1
        if row is not None and last_seen == observed_at and not fresh:
            out.profiles_skipped += 1
            out.skip("already imported: the catalog has this profile from the same time")
            continue
        if row is None:
            out.profiles_new += 1
        else:
            out.profiles_updated += 1
        profile = _fill(snap.profile, row) if row is not None else snap.profile
        todo.append(dataclasses.replace(snap, profile=profile, posts=fresh))
    if todo:
        await ingest_crawls(
            session, todo, min_age_hours=settings.jobs.baseline_min_age_hours,
            policy=Policy.from_settings(settings),
        )
    return out
