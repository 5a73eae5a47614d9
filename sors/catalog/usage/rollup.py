"""The daily rollups of sounds and hashtags, kept by a scheduled statement (`catalog.usage`
in keeper/schedule.py).

Ingest marks the days of publication of every crawled post (catalog.ingest.usage); each
scheduler tick takes up to `days_per_tick` marked days of the last ROLLUP_DAYS, oldest mark
first, and recomputes them from the posts published that day (UTC): per niche (the
creator's main niche, '' for none) and platform, every post, and per hashtag; per sound
that two or more creators used, its posts. A day's rows are rewritten whole, so a crawl
that changed views or scores, deleted a post or brought new ones is reflected once its day
comes up. Requests read these rows: a window of a month is ~30 rows per sound or hashtag.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.models import OUTLIER_MIN_SCORE

ROLLUP_DAYS = 70  # two of the longest window (a month), its predecessor, and a margin
_LOCK = 0x736F72735F757367  # "sors_usg"

# What every rollup row counts, over the posts `p` of its key.
_COUNTS = f"""count(*), count(*) FILTER (WHERE p.score > 1),
       count(*) FILTER (WHERE p.score >= {OUTLIER_MIN_SCORE}), count(p.score)"""

_PICK = text("""
SELECT day, max(id) FROM trend_dirty WHERE day >= :oldest
 GROUP BY day ORDER BY min(id) LIMIT :n
""")
_FORGET = text("""
DELETE FROM trend_dirty t
 USING unnest(CAST(:days AS date[]), CAST(:upto AS bigint[])) AS d(day, upto)
 WHERE t.day = d.day AND t.id <= d.upto
""")
_CLEAR = [text(f"DELETE FROM {t} WHERE day = ANY(CAST(:days AS date[]))")
          for t in ("sound_days", "hashtag_days", "niche_days")]
_PRUNE = [
    text("DELETE FROM trend_dirty WHERE day < :oldest"),
    text("DELETE FROM hashtag_uses WHERE day < :oldest"),
    *[text(f"DELETE FROM {t} WHERE day < :oldest")
      for t in ("sound_days", "hashtag_days", "niche_days")],
]
_ROLL = text(f"""
WITH p AS MATERIALIZED (
    SELECT p.id, p.profile_id, p.platform, p.sound_id, p.hashtags, p.views,
           p.score_three_months AS score, d.day, coalesce(n.category_id, '') AS niche
      FROM unnest(CAST(:days AS date[])) AS d(day)
      JOIN posts p ON p.published_at >= d.day::timestamp AT TIME ZONE 'UTC'
                  AND p.published_at < (d.day + 1)::timestamp AT TIME ZONE 'UTC'
      LEFT JOIN profile_niches n ON n.profile_id = p.profile_id
     WHERE p.deleted_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM profiles x WHERE x.id = p.profile_id AND NOT x.is_active)
),
niches AS (
    INSERT INTO niche_days (day, niche, platform, posts, beat, outliers, scored)
    SELECT p.day, p.niche, p.platform, {_COUNTS} FROM p GROUP BY 1, 2, 3
    RETURNING 1
),
tags AS (
    INSERT INTO hashtag_days (day, niche, platform, tag, creators, posts, beat, outliers,
                              scored)
    SELECT p.day, p.niche, p.platform, t.tag, count(DISTINCT p.profile_id), {_COUNTS}
      FROM p CROSS JOIN LATERAL (SELECT DISTINCT unnest(p.hashtags) AS tag) t
     GROUP BY 1, 2, 3, 4
    RETURNING 1
),
sounds AS (
    INSERT INTO sound_days (day, niche, sound_id, creators, views, posts, beat, outliers,
                            scored)
    SELECT p.day, p.niche, p.sound_id, count(DISTINCT p.profile_id),
           coalesce(sum(p.views), 0), {_COUNTS}
      FROM p
     WHERE p.sound_id IS NOT NULL
       AND EXISTS (SELECT 1 FROM posts o WHERE o.sound_id = p.sound_id
                      AND o.profile_id <> p.profile_id AND o.deleted_at IS NULL)
     GROUP BY 1, 2, 3
    RETURNING 1
)
SELECT (SELECT count(*) FROM p), (SELECT count(*) FROM sounds), (SELECT count(*) FROM tags),
       (SELECT count(*) FROM niches)
""")


@dataclass(frozen=True)
class Rolled:
    days: int
    posts: int = 0
    sound_rows: int = 0
    hashtag_rows: int = 0


def utc_day(at: datetime) -> date:
    return at.astimezone(UTC).date()


async def roll_days(session: AsyncSession, days: list[date]) -> Rolled:
    """Recompute these days' rows (in the caller's transaction)."""
    if not days:
        return Rolled(0)
    for stmt in _CLEAR:
        await session.execute(stmt, {"days": days})
    await session.execute(text("SET LOCAL jit = off"))
    posts, sounds, tags, _ = (await session.execute(_ROLL, {"days": days})).one()
    return Rolled(len(days), int(posts), int(sounds), int(tags))


async def roll(session: AsyncSession, now: datetime, *, limit: int) -> Rolled:
    """Up to `limit` marked days, oldest mark first; nothing when another scheduler is at it
    (a transaction-level advisory lock, released at the caller's commit)."""
    got = (await session.execute(text("SELECT pg_try_advisory_xact_lock(:k)"),
                                 {"k": _LOCK})).scalar()
    if not got or limit <= 0:
        return Rolled(0)
    oldest = utc_day(now) - timedelta(days=ROLLUP_DAYS)
    for stmt in _PRUNE:
        await session.execute(stmt, {"oldest": oldest})
    picked = (await session.execute(_PICK, {"oldest": oldest, "n": limit})).all()
    if not picked:
        return Rolled(0)
    days = [d for d, _ in picked]
    await session.execute(_FORGET, {"days": days, "upto": [u for _, u in picked]})
    return await roll_days(session, days)


async def pending_days(session: AsyncSession) -> int:
    """Marked days not rolled up yet (for `sors catalog status`)."""
    return int((await session.execute(
        text("SELECT count(DISTINCT day) FROM trend_dirty"))).scalar_one())
