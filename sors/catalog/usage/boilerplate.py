"""Boilerplate: hashtags and caption phrases that say nothing about a niche, found from the
data rather than from a list (docs/API.md, "Breakouts", "Hashtags over time").

A post belongs to two populations: its platform (`tiktok`) and its platform's format
(`tiktok:slideshow`). Over the SAMPLE most recent live posts of creators with a niche, an
idea is boilerplate when, in some population with at least MIN_NICHES niches of at least
MIN_POSTS posts each, it is carried by posts of at least PRESENT of those niches, evenly:
the spread of its share of each niche's posts is at most MAX_CV times its mean share (a
niche it is absent from counts as a share of 0), and that mean is at least MIN_SHARE.

So `#fyp` (half of every niche's TikTok videos) and `#photomode` or `#carousel` (added by
TikTok's photo mode to slideshows of every niche) are boilerplate, and so is a caption
template (`honest take`); `#yoga`, in one niche, is not, however common there. A scheduled
check recomputes the table every RECOMPUTE_HOURS of the process clock (`catalog.boilerplate`
in keeper/schedule.py); breakouts and hashtag trends read it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

SAMPLE = 30_000
MIN_POSTS = 20
MIN_NICHES = 4
PRESENT = 0.75
MAX_CV = 0.6
MIN_SHARE = 0.02
RECOMPUTE_HOURS = 6
_LOCK = 0x736F72735F626F69  # "sors_boi"

_COMPUTE = text("""
WITH s AS MATERIALIZED (
    SELECT p.id, p.platform, p.content_type, n.category_id AS niche, p.hashtags
      FROM posts p JOIN profile_niches n ON n.profile_id = p.profile_id
     WHERE p.deleted_at IS NULL AND p.published_at <= :now
     ORDER BY p.published_at DESC
     LIMIT :sample
),
pop AS (
    SELECT id, niche, platform AS population FROM s
    UNION ALL
    SELECT id, niche, platform || ':' || content_type FROM s
),
size AS (
    SELECT population, niche, count(*) AS n FROM pop GROUP BY 1, 2 HAVING count(*) >= :min_posts
),
reach AS (
    SELECT population, count(*) AS k FROM size GROUP BY 1 HAVING count(*) >= :min_niches
),
ideas AS (
    SELECT s.id, 'hashtag' AS kind, x.idea
      FROM s CROSS JOIN LATERAL (SELECT DISTINCT unnest(s.hashtags) AS idea) x
    UNION ALL
    SELECT s.id, 'phrase', x.idea
      FROM s JOIN post_ideas i ON i.post_id = s.id CROSS JOIN LATERAL unnest(i.phrases) x(idea)
),
shares AS (
    SELECT i.kind, i.idea, pop.population, pop.niche, count(*)::float8 / z.n AS share
      FROM ideas i
      JOIN pop ON pop.id = i.id
      JOIN size z ON z.population = pop.population AND z.niche = pop.niche
     GROUP BY i.kind, i.idea, pop.population, pop.niche, z.n
),
stats AS (
    SELECT h.kind, h.idea, h.population, count(*) AS present, r.k,
           sum(h.share) / r.k AS mean,
           sqrt(greatest(sum(h.share * h.share) / r.k - (sum(h.share) / r.k) ^ 2, 0)) AS sd
      FROM shares h JOIN reach r ON r.population = h.population
     GROUP BY h.kind, h.idea, h.population, r.k
),
found AS (
    SELECT DISTINCT ON (kind, idea) kind, idea, population, present, mean
      FROM stats
     WHERE present >= :present * k AND mean >= :min_share AND sd <= :max_cv * mean
     ORDER BY kind, idea, present DESC, mean DESC, population
)
INSERT INTO idea_boilerplate (kind, idea, population, niches, share, computed_at)
SELECT kind, idea, population, present, mean, :now FROM found
UNION ALL  -- when it was computed, even if it found nothing
SELECT '-', '', '', 0, 0, :now
""")


async def recompute(session: AsyncSession, now: datetime) -> int:
    """The boilerplate of the catalog as it stands (the table is rewritten whole); nothing
    when another scheduler is at it (a transaction-level advisory lock)."""
    got = (await session.execute(text("SELECT pg_try_advisory_xact_lock(:k)"),
                                 {"k": _LOCK})).scalar()
    if not got:
        return 0
    await session.execute(text("SET LOCAL jit = off"))
    await session.execute(text("SET LOCAL work_mem = '64MB'"))
    # Apart from the insert: in one statement, the old rows' keys would still be taken.
    await session.execute(text("DELETE FROM idea_boilerplate"))
    result = await session.execute(_COMPUTE, {
        "now": now, "sample": SAMPLE, "min_posts": MIN_POSTS, "min_niches": MIN_NICHES,
        "present": PRESENT, "min_share": MIN_SHARE, "max_cv": MAX_CV,
    })
    return max(0, int(getattr(result, "rowcount", 0) or 0) - 1)


async def due(session: AsyncSession, now: datetime) -> bool:
    """Never computed, or computed more than RECOMPUTE_HOURS ago (or after `now`: the
    simulated clock went back)."""
    last = (await session.execute(text(
        "SELECT max(computed_at) FROM idea_boilerplate WHERE kind = '-'"))).scalar()
    if last is None:
        return bool((await session.execute(text("SELECT EXISTS (SELECT FROM posts)"))).scalar())
    return last > now or now - last >= timedelta(hours=RECOMPUTE_HOURS)


async def ideas(session: AsyncSession) -> set[tuple[str, str]]:
    """(kind, idea) of every boilerplate idea."""
    rows = await session.execute(text("SELECT kind, idea FROM idea_boilerplate WHERE kind <> '-'"))
    return {(k, i) for k, i in rows.all()}
