"""The freshness policy: how old each profile's data may get before the keeper refreshes it.

A profile's tier is decided at each crawl from what that crawl saw (so it costs nothing at
scheduling time) and stored with the crawl's time (`catalog_seen_at`). The target age of
each tier is read from the settings when the keeper runs, so changing a target applies to
every profile at the next tick.

  hot       posted in the last 7 days, or an outlier (three-month score >= 3) published in
            the last 30 days: 24 h
  active    any other active profile: 3 days
  silent    nothing published in the last 90 days: 14 days
  inactive  deactivated (gone from the platform, not renamed): 30 days, to notice a return
  renamed   the old row of a renamed creator: never (its handle is another account's now)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.config import KeeperSettings, Settings

TIERS = ("hot", "active", "silent", "inactive")  # the tiers the keeper refreshes


@dataclass(frozen=True)
class Policy:
    targets: dict[str, timedelta]
    hot_posted: timedelta
    hot_outlier: timedelta
    hot_score: float
    silent: timedelta

    @classmethod
    def from_settings(cls, s: Settings) -> Policy:
        return cls.of(s.keeper)

    @classmethod
    def of(cls, k: KeeperSettings) -> Policy:
        return cls(
            targets={
                "hot": timedelta(hours=k.target_hot_hours),
                "active": timedelta(hours=k.target_active_hours),
                "silent": timedelta(hours=k.target_silent_hours),
                "inactive": timedelta(hours=k.target_inactive_hours),
            },
            hot_posted=timedelta(days=k.hot_posted_days),
            hot_outlier=timedelta(days=k.hot_outlier_days),
            hot_score=k.hot_outlier_score,
            silent=timedelta(days=k.silent_days),
        )


# The defaults of SORS_CATALOG_*: for the demo seed and tests, which ingest without settings.
DEFAULT_POLICY = Policy.of(KeeperSettings())


# One statement for a whole ingest batch. Posts are read through ix_posts_profile_published
# (profile_id, published_at DESC): a few index probes per profile.
_RETIER = text("""
WITH batch AS (
    SELECT DISTINCT ON (profile_id) profile_id, t
      FROM unnest(CAST(:ids AS text[]), CAST(:ts AS timestamptz[])) AS b(profile_id, t)
     ORDER BY profile_id, t DESC
)
UPDATE profiles pr
   SET catalog_seen_at = b.t,
       catalog_tier = CASE
         WHEN NOT pr.is_active THEN
              CASE WHEN pr.renamed_to_id IS NULL THEN 'inactive' ELSE 'renamed' END
         WHEN EXISTS (SELECT 1 FROM posts p WHERE p.profile_id = pr.id
                         AND p.published_at > b.t - :hot_posted)
           OR EXISTS (SELECT 1 FROM posts p WHERE p.profile_id = pr.id
                         AND p.published_at > b.t - :hot_outlier
                         AND p.score_three_months >= :hot_score) THEN 'hot'
         WHEN NOT EXISTS (SELECT 1 FROM posts p WHERE p.profile_id = pr.id
                             AND p.published_at > b.t - :silent) THEN 'silent'
         ELSE 'active' END
  FROM batch b
 WHERE pr.id = b.profile_id
""")

_RENAMED = text("""
UPDATE profiles SET catalog_tier = 'renamed'
 WHERE renamed_to_id = ANY(CAST(:ids AS text[])) AND catalog_tier IS DISTINCT FROM 'renamed'
""")


async def retier(
    session: AsyncSession, profile_ids: Sequence[str], at: Sequence[datetime], p: Policy
) -> None:
    """After a crawl (in its transaction): each crawled profile's tier and seen time."""
    if not profile_ids:
        return
    await session.execute(_RETIER, {
        "ids": list(profile_ids), "ts": list(at), "hot_posted": p.hot_posted,
        "hot_outlier": p.hot_outlier, "hot_score": p.hot_score, "silent": p.silent,
    })
    await session.execute(_RENAMED, {"ids": list(profile_ids)})


_DEACTIVATE = text("""
UPDATE profiles SET is_active = false, catalog_tier = 'inactive', catalog_seen_at = :at
 WHERE id = :id AND is_active
""")
_REACTIVATE = text("""
UPDATE profiles pr SET is_active = true
 WHERE pr.platform = :platform AND pr.handle = :handle AND NOT pr.is_active
   AND pr.catalog_tier = 'inactive' AND pr.renamed_to_id IS NULL
   AND NOT EXISTS (SELECT 1 FROM profiles o WHERE o.platform = pr.platform
                      AND o.handle = pr.handle AND o.is_active)
   AND pr.id = (SELECT id FROM profiles i WHERE i.platform = :platform AND i.handle = :handle
                   AND NOT i.is_active AND i.renamed_to_id IS NULL
                 ORDER BY i.last_crawled_at DESC NULLS LAST LIMIT 1)
""")


async def deactivate(session: AsyncSession, profile_id: str, at: datetime) -> None:
    """The platform no longer shows this profile: it keeps its frozen stats, and is looked
    at monthly to notice a return."""
    await session.execute(_DEACTIVATE, {"id": profile_id, "at": at})


async def reactivate(session: AsyncSession, platform: str, handle: str) -> None:
    """A deactivated profile answered again: the same row comes back (before ingest, so the
    crawl updates it instead of starting a second profile)."""
    await session.execute(_REACTIVATE, {"platform": platform, "handle": handle})
