"""Hashtags over time: by growth in posts and creators, with lift against the niche."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.usage.rollup import utc_day
from sors.hashtags import repository as repo
from sors.hashtags.schemas import HashtagTrend, HashtagTrends, HashtagTrendsIn
from sors.kit.clock import isoformat
from sors.kit.responses import assemble
from sors.sounds.schemas import TREND_DAYS

DEFAULT_TIME_FRAME = "one_week"
DEFAULT_LIMIT = 20
DEFAULT_MIN_POSTS = 3
MIN_CREATORS = 2  # a hashtag one creator uses is that creator's, not a trend
# Candidates read per answer: those of one creator are dropped after the count.
_READ = 3


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


async def trends(session: AsyncSession, body: HashtagTrendsIn, *, now: datetime) -> HashtagTrends:
    frame = body.timeFrame or DEFAULT_TIME_FRAME
    days = TREND_DAYS[frame]
    until = utc_day(now)
    since = until - timedelta(days=days)
    limit = body.limit or DEFAULT_LIMIT
    q = repo.Query(since=since, prev_since=since - timedelta(days=days), until=until,
                   niche=body.categoryId, platforms=body.platforms,
                   min_posts=body.minPosts or DEFAULT_MIN_POSTS, limit=limit * _READ)
    rows = await repo.growing(session, q)
    who = await repo.creators(session, q, [r["tag"] for r in rows])
    base_outliers, base_scored = await repo.niche_base(session, q)
    base = _ratio(base_outliers, base_scored)
    out = []
    for r in rows:
        now_creators, before = who.get(r["tag"], (0, 0))
        if now_creators < MIN_CREATORS:
            continue
        share = _ratio(int(r["outliers"]), int(r["scored"]))
        out.append(assemble(HashtagTrend, {
            "tag": r["tag"],
            "posts": int(r["posts"]),
            "previousPosts": int(r["previous"]),
            "growth": _ratio(int(r["posts"]), int(r["previous"])),
            "creators": now_creators,
            "previousCreators": before,
            "outlierShare": share,
            "nicheOutlierShare": base,
            "lift": round(share / base, 4) if share is not None and base else None,
        }))
        if len(out) >= limit:
            break
    return assemble(HashtagTrends, {
        "generatedAt": isoformat(now), "timeFrame": frame, "since": since.isoformat(),
        "until": until.isoformat(), "categoryId": body.categoryId, "hashtags": out,
    })
