"""Young posts of the whole catalog looked at early, so rising posts are found for creators
no one monitors (docs/API.md, "Rising posts").

A post is judged against its creator's curve at about 1, 3, 6, 12 and 24 hours of age
(catalog.projections); a creator crawled on its tier's cadence is seen at those ages only
by chance, and a post the catalog has not seen yet cannot be looked at on time at all. Each
keeper pass first spends up to `young_refreshes_per_tick` of the platform's hourly budget on
creators one of whose posts has passed such an age since their last crawl, and on hot
creators whose next post is due by their own posting cadence (see `_DUE`), the most
valuable first: value = the creator's breakout rate (the share of their posts of
the last 90 days at OUTLIER_MIN_SCORE or more, smoothed: (outliers + 1) ÷ (scored + 10)) ÷
the youngest age passed, or that an expected post would have (a post early in its curve
says more, sooner). The crawl is a
keeper refresh like any other (origin `catalog`, no account, no charge), logged with kind
`young`.

Coverage (`sors catalog status`): of the posts published 24 to 48 hours ago, the share seen
by at least two crawls before 24 hours of age.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.models import OUTLIER_MIN_SCORE

YOUNG_AGES_HOURS = (1, 3, 6, 12, 24)
_AGES = f"ARRAY{list(YOUNG_AGES_HOURS)}::int[]"
_HORIZON = f"make_interval(hours => {max(YOUNG_AGES_HOURS) + 1})"


@dataclass(frozen=True, slots=True)
class YoungDue:
    profile_id: str
    handle: str
    value: float


# Creators with a known post past a young age since their last crawl (the age: the
# youngest such), and hot creators whose next post is due by their own cadence (the mean
# gap of their last CADENCE_POSTS posts after the newest) but unseen: a post published then
# would be `age` hours old now. Those are looked at again after as long as the post has been
# overdue, at least 1 h and at most RECHECK_HOURS, until it has been MAX_OVERDUE_HOURS.
CADENCE_POSTS = 8
MAX_OVERDUE_HOURS = 48
RECHECK_HOURS = 2
_DUE = text(f"""
WITH known AS (
    SELECT p.profile_id, min(y.h)::float8 AS age
      FROM posts p
      JOIN profiles pr ON pr.id = p.profile_id
     CROSS JOIN unnest({_AGES}) AS y(h)
     WHERE p.published_at > CAST(:now AS timestamptz) - {_HORIZON}
       AND p.published_at <= :now
       AND p.platform = :platform AND p.deleted_at IS NULL
       AND p.published_at + make_interval(hours => y.h) <= :now
       AND p.published_at + make_interval(hours => y.h) > pr.last_crawled_at
       AND pr.is_active AND pr.renamed_to_id IS NULL
       AND (pr.data_source IS NULL OR (pr.data_source = 'sim') = :simulated)
     GROUP BY p.profile_id
),
expected AS (
    SELECT pr.id AS profile_id,
           greatest(1.0, extract(epoch FROM CAST(:now AS timestamptz)
                                 - greatest(c.next_at, pr.last_crawled_at)) / 3600.0) AS age
      FROM profiles pr
     CROSS JOIN LATERAL (
         SELECT max(q.published_at) + (max(q.published_at) - min(q.published_at))
                / (count(*) - 1) AS next_at
           FROM (SELECT published_at FROM posts q
                  WHERE q.profile_id = pr.id AND q.deleted_at IS NULL
                  ORDER BY q.published_at DESC LIMIT {CADENCE_POSTS}) q
         HAVING count(*) >= 3) c
     WHERE pr.platform = :platform AND pr.catalog_tier = 'hot'
       AND pr.is_active AND pr.renamed_to_id IS NULL
       AND (pr.data_source IS NULL OR (pr.data_source = 'sim') = :simulated)
       AND c.next_at <= :now
       AND c.next_at > CAST(:now AS timestamptz) - make_interval(hours => {MAX_OVERDUE_HOURS})
       AND CAST(:now AS timestamptz) - pr.last_crawled_at
           >= least(make_interval(hours => {RECHECK_HOURS}),
                    greatest(interval '1 hour', pr.last_crawled_at - c.next_at))
),
young AS (
    SELECT profile_id, min(age) AS age
      FROM (SELECT * FROM known UNION ALL SELECT * FROM expected) u
     GROUP BY profile_id
)
SELECT y.profile_id, pr.handle,
       r.rate / y.age AS value
  FROM young y
  JOIN profiles pr ON pr.id = y.profile_id
 CROSS JOIN LATERAL (
     SELECT (count(*) FILTER (WHERE q.score_three_months >= {OUTLIER_MIN_SCORE}) + 1)::float8
            / (count(q.score_three_months) + 10) AS rate
       FROM posts q
      WHERE q.profile_id = y.profile_id AND q.deleted_at IS NULL
        AND q.published_at > CAST(:now AS timestamptz) - interval '90 days') r
 WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.target = pr.platform || ':' || pr.handle
                      AND j.status IN ('pending', 'processing'))
 ORDER BY value DESC, y.profile_id
 LIMIT :n
""")


async def due(
    session: AsyncSession, platform: str, now: datetime, limit: int, *, simulated: bool
) -> list[YoungDue]:
    """Creators with a post past a young age since their last crawl, most valuable first."""
    if limit <= 0:
        return []
    rows = await session.execute(_DUE, {"platform": platform, "now": now, "n": limit,
                                        "simulated": simulated})
    return [YoungDue(r[0], r[1], float(r[2])) for r in rows]


_COVERAGE = text("""
SELECT p.platform, count(*) AS posts,
       count(*) FILTER (WHERE (SELECT count(*) FROM post_stats s
                                WHERE s.post_id = p.id
                                  AND s.crawled_at < p.published_at + interval '24 hours')
                              >= 2) AS seen_twice
  FROM posts p
 WHERE p.published_at > CAST(:now AS timestamptz) - interval '48 hours'
   AND p.published_at <= CAST(:now AS timestamptz) - interval '24 hours'
   AND p.deleted_at IS NULL
 GROUP BY p.platform
""")


async def coverage(session: AsyncSession, now: datetime) -> dict[str, tuple[int, int]]:
    """platform → (posts published 24-48 h ago, of which seen twice before 24 h of age)."""
    rows = await session.execute(_COVERAGE, {"now": now})
    return {r[0]: (int(r[1]), int(r[2])) for r in rows}
