"""A creator's own curve: expected views by age, per format group, kept by a scheduled statement.

For each profile whose last crawl is newer than its curves, one statement reads the
snapshots of its posts that are at least `CURVE_MIN_POST_AGE_HOURS` old (so a post young
enough to be judged against the curve never counts in it), estimates each post's views at
every age of `CURVE_AGES_HOURS` by straight-line interpolation between the two snapshots
around that age (publication counts as a snapshot of 0 views, as the age-matched score's
interpolation does between stored snapshots), and keeps the 10th, 50th and 90th percentiles
per (profile, format group, age). A segment wider than the age itself (or than 2 hours) is
not used: a line across a long gap says little about the views in between. Fewer than
`CURVE_MIN_POSTS` posts at an age: that age's percentiles are null.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

CURVE_AGES_HOURS = (1, 3, 6, 12, 24, 48, 72, 168, 336, 720)
CURVE_MIN_POSTS = 5
CURVE_MIN_POST_AGE_HOURS = 168
# Widest gap between two snapshots that may stand for the views at an age under 2 hours.
_MIN_SEGMENT_HOURS = 2.0

_AGES = ", ".join(f"({a})" for a in CURVE_AGES_HOURS)

_COMPUTE = text(f"""
WITH due AS (
    UPDATE profiles p SET curves_at = p.last_crawled_at
      FROM (SELECT id FROM profiles
             WHERE last_crawled_at IS NOT NULL
               AND (curves_at IS NULL OR curves_at < last_crawled_at)
               AND (CAST(:ids AS text[]) IS NULL OR id = ANY(CAST(:ids AS text[])))
             ORDER BY last_crawled_at LIMIT :limit
             FOR UPDATE SKIP LOCKED) d
     WHERE p.id = d.id
    RETURNING p.id, p.last_crawled_at AS t
),
contrib AS (
    SELECT c.id, c.profile_id, c.published_at, d.t,
           sors_format_group(c.platform, c.content_type) AS fmt
    FROM due d JOIN posts c ON c.profile_id = d.id
    WHERE c.deleted_at IS NULL
      AND c.published_at <= d.t - make_interval(hours => :min_post_age)
),
pts AS (
    SELECT id, profile_id, fmt, 0::float8 AS age, 0::float8 AS views FROM contrib
    UNION ALL
    SELECT c.id, c.profile_id, c.fmt,
           extract(epoch FROM s.crawled_at - c.published_at)::float8 / 3600.0, s.views::float8
    FROM contrib c JOIN post_stats s ON s.post_id = c.id
    WHERE s.views IS NOT NULL AND s.crawled_at > c.published_at AND s.crawled_at <= c.t
),
segs AS (
    SELECT * FROM (
        SELECT id, profile_id, fmt, age AS a_hi, views AS v_hi,
               lag(age) OVER w AS a_lo, lag(views) OVER w AS v_lo
        FROM pts WINDOW w AS (PARTITION BY id ORDER BY age)
    ) x
    WHERE a_lo IS NOT NULL AND a_hi > a_lo
),
at_age AS (
    SELECT g.profile_id, g.fmt, a.h,
           g.v_lo + (g.v_hi - g.v_lo) * (a.h - g.a_lo) / (g.a_hi - g.a_lo) AS v
    FROM segs g JOIN (VALUES {_AGES}) AS a(h)
      ON g.a_lo < a.h AND a.h <= g.a_hi AND g.a_hi - g.a_lo <= greatest(a.h, :min_seg)
),
pct AS (
    SELECT profile_id, fmt, h, count(*) AS n,
           percentile_cont(ARRAY[0.1, 0.5, 0.9]) WITHIN GROUP (ORDER BY v) AS q
    FROM at_age GROUP BY profile_id, fmt, h
),
gone AS (
    DELETE FROM creator_curves cc USING due
     WHERE cc.profile_id = due.id
       AND NOT EXISTS (SELECT 1 FROM pct WHERE pct.profile_id = cc.profile_id
                          AND pct.fmt = cc.fmt AND pct.h = cc.age_hours)
)
INSERT INTO creator_curves (profile_id, fmt, age_hours, p10, p50, p90, post_count, computed_at)
SELECT pct.profile_id, pct.fmt, pct.h,
       CASE WHEN n >= :min_posts THEN q[1] END,
       CASE WHEN n >= :min_posts THEN q[2] END,
       CASE WHEN n >= :min_posts THEN q[3] END,
       n, due.t
FROM pct JOIN due ON due.id = pct.profile_id
ON CONFLICT (profile_id, fmt, age_hours) DO UPDATE
   SET p10 = excluded.p10, p50 = excluded.p50, p90 = excluded.p90,
       post_count = excluded.post_count, computed_at = excluded.computed_at
""")

_DUE_COUNT = text("""
SELECT count(*) FROM profiles
 WHERE last_crawled_at IS NOT NULL AND (curves_at IS NULL OR curves_at < last_crawled_at)
   AND (CAST(:ids AS text[]) IS NULL OR id = ANY(CAST(:ids AS text[])))
""")


async def refresh(
    session: AsyncSession, *, limit: int, profile_ids: Sequence[str] | None = None
) -> int:
    """Curves of up to `limit` profiles crawled since their curves were computed, oldest
    crawl first (only those of `profile_ids` when given); returns how many profiles were due
    before this run."""
    ids = None if profile_ids is None else list(profile_ids)
    due = int((await session.execute(_DUE_COUNT, {"ids": ids})).scalar_one())
    if due:
        await session.execute(text("SET LOCAL jit = off"))
        await session.execute(
            _COMPUTE,
            {
                "limit": limit,
                "ids": ids,
                "min_post_age": CURVE_MIN_POST_AGE_HOURS,
                "min_seg": _MIN_SEGMENT_HOURS,
                "min_posts": CURVE_MIN_POSTS,
            },
        )
    return min(due, limit)


async def curves_for(
    session: AsyncSession, profile_ids: list[str]
) -> dict[tuple[str, str], dict[int, tuple[float | None, float | None, float | None, int]]]:
    """The stored curves of these profiles: (profile, format group) → age → (p10, p50, p90, n)."""
    rows = await session.execute(
        text("""SELECT profile_id, fmt, age_hours, p10, p50, p90, post_count
                  FROM creator_curves WHERE profile_id = ANY(CAST(:ids AS text[]))"""),
        {"ids": profile_ids},
    )
    out: dict[tuple[str, str], dict[int, tuple[float | None, float | None, float | None, int]]]
    out = {}
    for pid, fmt, age, p10, p50, p90, n in rows:
        out.setdefault((pid, fmt), {})[int(age)] = (p10, p50, p90, int(n))
    return out
