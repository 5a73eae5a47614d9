"""Every query of sounds: trends from the daily rollups (catalog.usage.rollup), a page's
creators and example posts from the posts' sound index, one sound's life from its posts.

Days are UTC days of publication; windows are complete days, `until` (exclusive) being the
day of the request."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.usage.rollup import ROLLUP_DAYS
from sors.kit.db import fetch_all, fetch_one

_LIVE = """p.deleted_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM profiles x WHERE x.id = p.profile_id AND NOT x.is_active)"""


@dataclass(frozen=True, slots=True)
class Window:
    until: date  # exclusive: the day of the request
    days: int  # the window's length
    niche: str | None = None  # a top-level category id
    platforms: Sequence[str] | None = None

    def day(self, back: int) -> date:
        from datetime import timedelta

        return self.until - timedelta(days=back)


def _niche(alias: str) -> str:
    return f"AND {alias}.niche = %(niche)s"


def _params(w: Window) -> dict[str, Any]:
    return {
        "until": w.until, "since": w.day(w.days), "prev_since": w.day(2 * w.days),
        "recent_since": w.day(3), "week_since": w.day(7), "prev_week": w.day(14),
        "oldest": w.day(ROLLUP_DAYS),
        "niche": w.niche, "platforms": list(w.platforms or []),
    }


def _trends_sql(w: Window) -> str:
    niche = _niche("sd") if w.niche else ""
    platforms = "WHERE s.platform = ANY(%(platforms)s)" if w.platforms else ""
    return f"""
WITH w AS (
    SELECT sd.sound_id,
           sum(sd.posts) FILTER (WHERE sd.day >= %(since)s) AS uses,
           coalesce(sum(sd.posts) FILTER (WHERE sd.day < %(since)s), 0) AS previous,
           coalesce(sum(sd.views) FILTER (WHERE sd.day >= %(since)s), 0) AS views,
           coalesce(sum(sd.beat) FILTER (WHERE sd.day >= %(since)s), 0) AS beat,
           coalesce(sum(sd.scored) FILTER (WHERE sd.day >= %(since)s), 0) AS scored
      FROM sound_days sd
     WHERE sd.day >= %(prev_since)s AND sd.day < %(until)s {niche}
     GROUP BY sd.sound_id
    HAVING sum(sd.posts) FILTER (WHERE sd.day >= %(since)s) > 0
),
c AS MATERIALIZED (
    SELECT w.*, s.platform, s.title, s.author, s.is_original, s.first_seen_at
      FROM w JOIN sounds s ON s.id = w.sound_id {platforms}
),
h AS (
    SELECT sd.sound_id, sd.day, sum(sd.posts) AS posts
      FROM sound_days sd JOIN c ON c.sound_id = sd.sound_id
     WHERE sd.day >= %(oldest)s AND sd.day < %(until)s {niche}
     GROUP BY 1, 2
),
st AS (
    SELECT sound_id, max(w7) AS peak,
           coalesce(sum(posts) FILTER (WHERE day >= %(recent_since)s), 0) AS last3,
           coalesce(sum(posts) FILTER (WHERE day >= %(week_since)s
                                         AND day < %(recent_since)s), 0) AS prior4,
           coalesce(sum(posts) FILTER (WHERE day >= %(prev_week)s
                                         AND day < %(week_since)s), 0) AS prev_week
      FROM (SELECT sound_id, day, posts,
                   sum(posts) OVER (PARTITION BY sound_id ORDER BY day - DATE '2000-01-01'
                                    RANGE BETWEEN 6 PRECEDING AND CURRENT ROW) AS w7
              FROM h) r
     GROUP BY sound_id
),
nn AS (
    SELECT DISTINCT sd.sound_id, sd.niche
      FROM sound_days sd JOIN c ON c.sound_id = sd.sound_id
     WHERE sd.day >= %(week_since)s AND sd.day < %(until)s {niche}
),
base AS (
    SELECT nn.sound_id, sum(nd.posts) AS niche_posts
      FROM nn JOIN c ON c.sound_id = nn.sound_id
      JOIN niche_days nd ON nd.niche = nn.niche AND nd.platform = c.platform
                        AND nd.day >= %(week_since)s AND nd.day < %(until)s
     GROUP BY nn.sound_id
)
SELECT c.*, st.peak, st.last3, st.prior4, st.prev_week, coalesce(base.niche_posts, 0) AS niche_posts
  FROM c JOIN st ON st.sound_id = c.sound_id LEFT JOIN base ON base.sound_id = c.sound_id
"""


async def trend_candidates(session: AsyncSession, w: Window) -> list[dict[str, Any]]:
    """Every sound (two creators or more) used in the window, with its window counts and
    what its stage needs."""
    return await fetch_all(session, _trends_sql(w), _params(w))


def _page_sql(niche: bool) -> str:
    join = ("JOIN profile_niches n ON n.profile_id = p.profile_id AND n.category_id = %(niche)s"
            if niche else "")
    return f"""
WITH p AS (
    SELECT p.id, p.sound_id, p.profile_id, p.published_at, p.score_three_months AS score
      FROM posts p {join}
     WHERE p.sound_id = ANY(%(ids)s)
       AND p.published_at >= %(prev_ts)s AND p.published_at < %(until_ts)s
       AND {_LIVE}
),
best AS (
    SELECT DISTINCT ON (sound_id, profile_id) sound_id, id, score
      FROM p WHERE published_at >= %(since_ts)s
     ORDER BY sound_id, profile_id, score DESC NULLS LAST, id
),
ex AS (
    SELECT sound_id, (array_agg(id ORDER BY score DESC NULLS LAST, id))[1:%(examples)s] AS ids
      FROM best GROUP BY sound_id
)
SELECT s.sound_id,
       count(DISTINCT p.profile_id) FILTER (WHERE p.published_at >= %(since_ts)s) AS creators,
       count(DISTINCT p.profile_id) FILTER (WHERE p.published_at < %(since_ts)s)
           AS previous_creators,
       ex.ids AS examples
  FROM unnest(%(ids)s::text[]) AS s(sound_id)
  LEFT JOIN p ON p.sound_id = s.sound_id
  LEFT JOIN ex ON ex.sound_id = s.sound_id
 GROUP BY s.sound_id, ex.ids
"""


async def page_details(
    session: AsyncSession, ids: Sequence[str], *, since: datetime, prev_since: datetime,
    until: datetime, niche: str | None, examples: int,
) -> dict[str, dict[str, Any]]:
    """Per sound of a page: distinct creators in the window and the one before, and the ids
    of its best posts in the window (each creator's best, best first)."""
    if not ids:
        return {}
    rows = await fetch_all(session, _page_sql(niche is not None), {
        "ids": list(ids), "since_ts": since, "prev_ts": prev_since, "until_ts": until,
        "niche": niche, "examples": examples,
    })
    return {r["sound_id"]: r for r in rows}


async def sound(session: AsyncSession, sound_id: str) -> dict[str, Any] | None:
    return await fetch_one(session, """
        SELECT id, platform, sound_key, title, author, is_original, first_seen_at
          FROM sounds WHERE id = %(id)s""", {"id": sound_id})


_LIFE = f"""
WITH p AS (
    SELECT p.id, p.profile_id, p.views, p.published_at, p.score_three_months AS score,
           (p.published_at AT TIME ZONE 'UTC')::date AS day, coalesce(n.category_id, '') AS niche
      FROM posts p LEFT JOIN profile_niches n ON n.profile_id = p.profile_id
     WHERE p.sound_id = %(id)s AND {_LIVE}
),
first AS (
    SELECT DISTINCT ON (profile_id) profile_id, id AS post_id, published_at, day
      FROM p ORDER BY profile_id, published_at, id
)
SELECT
  (SELECT count(*) FROM p) AS posts,
  (SELECT count(DISTINCT profile_id) FROM p) AS creators,
  (SELECT coalesce(sum(views), 0) FROM p) AS views,
  (SELECT min(published_at) FROM p) AS first_used_at,
  (SELECT max(published_at) FROM p) AS last_used_at,
  (SELECT count(*) FILTER (WHERE score > 1) FROM p) AS beat,
  (SELECT count(score) FROM p) AS scored,
  (SELECT coalesce(json_agg(d ORDER BY d.day), '[]') FROM (
      SELECT p.day, count(*) AS posts, coalesce(sum(p.views), 0) AS views,
             (SELECT count(*) FROM first f WHERE f.day = p.day) AS new_creators
        FROM p GROUP BY p.day) d) AS usage,
  (SELECT coalesce(json_agg(x ORDER BY x.posts DESC, x.niche), '[]') FROM (
      SELECT niche, count(*) AS posts, count(DISTINCT profile_id) AS creators
        FROM p GROUP BY niche) x) AS niches,
  (SELECT coalesce(json_agg(f ORDER BY f.published_at, f.profile_id), '[]') FROM (
      SELECT f.profile_id, f.post_id, f.published_at, pr.handle, pr.platform
        FROM first f JOIN profiles pr ON pr.id = f.profile_id
       ORDER BY f.published_at, f.profile_id LIMIT %(adopters)s) f) AS adopters,
  (SELECT array_agg(id ORDER BY score DESC NULLS LAST, id) FROM (
      SELECT DISTINCT ON (profile_id) id, score FROM p
       ORDER BY profile_id, score DESC NULLS LAST, id) b) AS best
"""


async def life(session: AsyncSession, sound_id: str, *, adopters: int) -> dict[str, Any]:
    """A sound's posts over its whole life: totals, uses per day, niches, first creators."""
    row = await fetch_one(session, _LIFE, {"id": sound_id, "adopters": adopters})
    assert row is not None
    return row


async def niche_posts(
    session: AsyncSession, platform: str, niches: Sequence[str], since: date, until: date
) -> int:
    row = await fetch_one(session, """
        SELECT coalesce(sum(posts), 0) AS n FROM niche_days
         WHERE platform = %(platform)s AND niche = ANY(%(niches)s)
           AND day >= %(since)s AND day < %(until)s""",
        {"platform": platform, "niches": list(niches), "since": since, "until": until})
    return int(row["n"]) if row else 0
