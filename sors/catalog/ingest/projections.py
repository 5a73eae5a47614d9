"""At each crawl: the crawled creators' young posts projected against their curves and stored.

Two constant statements per ingest batch, whatever its size: one reads the posts younger
than 30 days (and those that still carry a projection), each with its last three snapshots
and its creator's three-month average; the other writes the projections that changed.
The curves themselves come from catalog.curves (a scheduled statement), read once per batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import orjson
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.ingest import curves
from sors.catalog.ingest import trajectory as rising
from sors.kit.db import binary_sql, execute_rows

_YOUNG = binary_sql(text("""
SELECT p.id, p.profile_id, sors_format_group(p.platform, p.content_type) AS fmt,
       p.published_at, p.views, b.t,
       (pr.averages -> 'three_months' ->> 'views')::float8 AS avg90,
       s.at, s.v, p.rising_score, p.rising, p.projection
FROM unnest(CAST(:ids AS text[]), CAST(:ts AS timestamptz[])) AS b(profile_id, t)
JOIN profiles pr ON pr.id = b.profile_id
JOIN posts p ON p.profile_id = b.profile_id
LEFT JOIN LATERAL (
    SELECT array_agg(x.crawled_at ORDER BY x.crawled_at) AS at,
           array_agg(x.views ORDER BY x.crawled_at) AS v
    FROM (SELECT crawled_at, views FROM post_stats
           WHERE post_id = p.id AND crawled_at <= b.t
           ORDER BY crawled_at DESC LIMIT 3) x
) s ON true
WHERE p.deleted_at IS NULL
  AND (p.published_at > b.t - make_interval(hours => :max_age) OR p.projection IS NOT NULL)
"""))

_WRITE = binary_sql(text("""
UPDATE posts p
   SET rising_score = u.score, rising = u.rising, projection = u.projection
  FROM unnest(CAST(:ids AS text[]), CAST(:scores AS float8[]), CAST(:rising AS bool[]),
              CAST(:projections AS jsonb[])) AS u(id, score, rising, projection)
 WHERE p.id = u.id
"""))


async def update(
    session: AsyncSession, profile_ids: Sequence[str], at: Sequence[datetime]
) -> int:
    """Project the young posts of these just-crawled profiles; returns how many changed."""
    rows = await execute_rows(
        session,
        _YOUNG,
        {"ids": list(profile_ids), "ts": list(at), "max_age": rising.PROJECTION_MAX_AGE_HOURS},
    )
    if not rows:
        return 0
    stored = await curves.curves_for(session, sorted({r[1] for r in rows}))
    changed: list[tuple[str, float | None, bool, rising.StoredProjection | None]] = []
    for (pid, prof, fmt, published, views, t, avg90, s_at, s_v,
         old_score, old_rising, old_proj) in rows:
        proj = rising.project(
            views=views,
            published_at=published,
            at=t,
            snapshots=list(zip(s_at or [], s_v or [], strict=True)),
            curve=stored.get((prof, fmt)),
            three_month_average=avg90,
        )
        score = None if proj is None else float(proj["vs_median_now"])
        is_rising = bool(proj and proj["rising"])
        if (score, is_rising, proj) != (old_score, old_rising, old_proj):
            changed.append((pid, score, is_rising, proj))
    if changed:
        await execute_rows(session, _WRITE, {
            "ids": [c[0] for c in changed],
            "scores": [c[1] for c in changed],
            "rising": [c[2] for c in changed],
            "projections": [_json(c[3]) for c in changed],
        })
    return len(changed)


def _json(value: rising.StoredProjection | None) -> str | None:
    return None if value is None else orjson.dumps(value).decode()
