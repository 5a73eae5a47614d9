"""Hashtag trends' queries: the window's counts from the daily rollup, the niche's base,
and a page's creators from `hashtag_uses` (exact distinct counts)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from sors.kit.db import fetch_all, fetch_one


@dataclass(frozen=True, slots=True)
class Query:
    since: date
    prev_since: date
    until: date  # exclusive
    niche: str | None
    platforms: Sequence[str] | None
    min_posts: int
    limit: int

    def params(self) -> dict[str, Any]:
        return {"since": self.since, "prev_since": self.prev_since, "until": self.until,
                "niche": self.niche, "platforms": list(self.platforms or []),
                "min_posts": self.min_posts, "n": self.limit}

    def where(self, alias: str) -> str:
        out = [f"{alias}.day >= %(prev_since)s", f"{alias}.day < %(until)s"]
        if self.niche is not None:
            out.append(f"{alias}.niche = %(niche)s")
        if self.platforms:
            out.append(f"{alias}.platform = ANY(%(platforms)s)")
        return " AND ".join(out)


async def growing(session: AsyncSession, q: Query) -> list[dict[str, Any]]:
    """Hashtags with at least `min_posts` posts in the window, boilerplate left out, by
    growth over the window before (smoothed by one), then posts, then tag."""
    return await fetch_all(session, f"""
WITH w AS (
    SELECT h.tag,
           sum(h.posts) FILTER (WHERE h.day >= %(since)s) AS posts,
           coalesce(sum(h.posts) FILTER (WHERE h.day < %(since)s), 0) AS previous,
           coalesce(sum(h.outliers) FILTER (WHERE h.day >= %(since)s), 0) AS outliers,
           coalesce(sum(h.scored) FILTER (WHERE h.day >= %(since)s), 0) AS scored
      FROM hashtag_days h
     WHERE {q.where("h")}
     GROUP BY h.tag
    HAVING sum(h.posts) FILTER (WHERE h.day >= %(since)s) >= %(min_posts)s
)
SELECT w.* FROM w
 WHERE NOT EXISTS (SELECT 1 FROM idea_boilerplate b WHERE b.kind = 'hashtag' AND b.idea = w.tag)
 ORDER BY (w.posts + 1)::float8 / (w.previous + 1) DESC, w.posts DESC, w.tag
 LIMIT %(n)s""", q.params())


async def niche_base(session: AsyncSession, q: Query) -> tuple[int, int]:
    """(outliers, scored posts) of the niche (or catalog) and platforms in the window."""
    row = await fetch_one(session, f"""
SELECT coalesce(sum(n.outliers), 0) AS outliers, coalesce(sum(n.scored), 0) AS scored
  FROM niche_days n WHERE {q.where("n")} AND n.day >= %(since)s""", q.params())
    return (int(row["outliers"]), int(row["scored"])) if row else (0, 0)


async def creators(
    session: AsyncSession, q: Query, tags: Sequence[str]
) -> dict[str, tuple[int, int]]:
    """tag → (distinct creators in the window, in the window before)."""
    if not tags:
        return {}
    rows = await fetch_all(session, f"""
SELECT u.tag, count(DISTINCT u.profile_id) FILTER (WHERE u.day >= %(since)s) AS now,
       count(DISTINCT u.profile_id) FILTER (WHERE u.day < %(since)s) AS before
  FROM hashtag_uses u
 WHERE u.tag = ANY(%(tags)s) AND {q.where("u")}
 GROUP BY u.tag""", {**q.params(), "tags": list(tags)})
    return {r["tag"]: (int(r["now"]), int(r["before"])) for r in rows}
