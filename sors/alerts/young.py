"""Young posts of creators under a rising alert are looked at early: a post is judged
against its creator's curve at about 1, 3, 6, 12 and 24 hours of age (catalog.rising), so a
rising alert pulls the monitoring refresh forward when one of those ages has passed since
the creator's last crawl. The refresh itself is monitoring's, charged like any refresh
(charged when it starts, refunded if the crawl fails, paused when the balance cannot cover
it); the operator's budget (`rising_refreshes_per_tick`) caps how many are pulled forward
per scheduler tick."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import CursorResult, text
from sqlalchemy.ext.asyncio import AsyncSession

YOUNG_AGES_HOURS = (1, 3, 6, 12, 24)

_PULL_FORWARD = text(f"""
WITH due AS (
    SELECT DISTINCT t.account_id, t.profile_id
      FROM alerts a
      JOIN tracked_profiles t ON t.account_id = a.account_id AND t.profile_id = a.profile_id
      JOIN profiles pr ON pr.id = a.profile_id
     WHERE a.status = 'active' AND a.trigger = 'rising' AND a.expires_at > :now
       AND t.paused_reason IS NULL AND t.next_crawl_at > :now
       AND pr.last_crawled_at IS NOT NULL
       AND EXISTS (
           SELECT 1 FROM posts p
             CROSS JOIN unnest(ARRAY{list(YOUNG_AGES_HOURS)}::int[]) AS y(h)
            WHERE p.profile_id = a.profile_id AND p.deleted_at IS NULL
              AND p.published_at > :now - make_interval(hours => {max(YOUNG_AGES_HOURS) + 1})
              AND p.published_at + make_interval(hours => y.h) <= :now
              AND p.published_at + make_interval(hours => y.h) > pr.last_crawled_at)
     LIMIT :limit
)
UPDATE tracked_profiles t SET next_crawl_at = :now, updated_at = :now
  FROM due WHERE t.account_id = due.account_id AND t.profile_id = due.profile_id
""")


async def pull_forward(session: AsyncSession, now: datetime, *, limit: int) -> int:
    """Monitoring entries made due now for a young post's next look; how many."""
    if limit <= 0:
        return 0
    result = await session.execute(_PULL_FORWARD, {"now": now, "limit": limit})
    assert isinstance(result, CursorResult)  # an UPDATE's result counts its rows
    return int(result.rowcount or 0)
