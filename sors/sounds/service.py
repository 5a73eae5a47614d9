"""Sounds: trends by usage growth in a window and niche, and one sound's life."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.records import repository as catalog
from sors.catalog.records.build import flat_post
from sors.catalog.records.schemas import FlatPost
from sors.catalog.usage.rollup import utc_day
from sors.kit.clock import isoformat
from sors.kit.responses import assemble
from sors.sounds import repository as repo
from sors.sounds.errors import SoundNotFound
from sors.sounds.schemas import (
    TREND_DAYS,
    Adopter,
    SoundDay,
    SoundDetail,
    SoundNiche,
    SoundTrend,
    SoundTrends,
    SoundTrendsIn,
)
from sors.sounds.stages import RECENT_DAYS, WEEK_DAYS, Stage, Usage, stage

DEFAULT_TIME_FRAME = "one_week"
DEFAULT_LIMIT = 20
EXAMPLES = 3
DETAIL_EXAMPLES = 5
ADOPTERS = 10


def _start(day: date) -> datetime:
    return datetime.combine(day, time(0), tzinfo=UTC)


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def _order(r: dict[str, Any]) -> tuple[float, int, str]:
    """Highest growth first (smoothed by one, so a sound from nothing ranks by its uses),
    then most uses, then id."""
    return (-(r["uses"] + 1) / (r["previous"] + 1), -r["uses"], r["sound_id"])


def usage_of(r: dict[str, Any]) -> Usage:
    return Usage(last3=int(r["last3"]), prior4=int(r["prior4"]), previous=int(r["prev_week"]),
                 peak=int(r["peak"] or 0), niche_posts=int(r["niche_posts"]))


async def candidates(
    session: AsyncSession, *, now: datetime, days: int, niche: str | None,
    platforms: list[str] | None = None,
) -> list[tuple[dict[str, Any], Stage]]:
    """Every sound used in the window (two creators or more), with its stage, best first."""
    w = repo.Window(until=utc_day(now), days=days, niche=niche, platforms=platforms)
    rows = await repo.trend_candidates(session, w)
    return [(r, stage(usage_of(r))) for r in sorted(rows, key=_order)]


async def trends(session: AsyncSession, body: SoundTrendsIn, *, now: datetime,
                 min_age_hours: float) -> SoundTrends:
    frame = body.timeFrame or DEFAULT_TIME_FRAME
    days = TREND_DAYS[frame]
    until = utc_day(now)
    since = until - timedelta(days=days)
    found = await candidates(session, now=now, days=days, niche=body.categoryId,
                             platforms=body.platforms)
    wanted = set(body.stages or ())
    page = [(r, s) for r, s in found if not wanted or s in wanted][: body.limit or DEFAULT_LIMIT]
    details = await repo.page_details(
        session, [r["sound_id"] for r, _ in page], since=_start(since),
        prev_since=_start(since - timedelta(days=days)), until=_start(until),
        niche=body.categoryId, examples=EXAMPLES)
    posts = await _posts(session, [i for d in details.values() for i in d["examples"] or []],
                         now, min_age_hours)
    out = []
    for r, s in page:
        d = details.get(r["sound_id"], {})
        out.append(assemble(SoundTrend, {
            **_sound_fields(r, r["sound_id"]),
            "stage": s,
            "uses": int(r["uses"]),
            "previousUses": int(r["previous"]),
            "growth": _ratio(int(r["uses"]), int(r["previous"])),
            "creators": int(d.get("creators") or 0),
            "previousCreators": int(d.get("previous_creators") or 0),
            "views": int(r["views"]),
            "outlierShare": _ratio(int(r["beat"]), int(r["scored"])),
            "nicheShare": round(usage_of(r).share, 4),
            "examplePosts": [posts[i] for i in d.get("examples") or [] if i in posts],
        }))
    return assemble(SoundTrends, {
        "generatedAt": isoformat(now), "timeFrame": frame, "since": since.isoformat(),
        "until": until.isoformat(), "categoryId": body.categoryId, "sounds": out,
    })


def _sound_fields(r: dict[str, Any], sound_id: str) -> dict[str, object]:
    return {
        "soundId": sound_id, "platform": r["platform"], "title": r["title"],
        "author": r["author"], "original": bool(r["is_original"]),
        "firstSeenAt": isoformat(r["first_seen_at"]),
    }


async def _posts(session: AsyncSession, ids: list[str], now: datetime,
                 min_age_hours: float) -> dict[str, FlatPost]:
    rows = await catalog.posts_by_ids(session, set(ids))
    return {pid: flat_post(p, now, min_age_hours) for pid, p in rows.items()}


def usage_by_day(per_day: dict[date, int], until: date, niche_posts: int) -> Usage:
    """What a stage is decided on, from a sound's uses per day (complete days before
    `until` only)."""
    def between(back_from: int, back_to: int) -> int:
        lo, hi = until - timedelta(days=back_from), until - timedelta(days=back_to)
        return sum(n for d, n in per_day.items() if lo <= d < hi)

    week = timedelta(days=WEEK_DAYS)
    peak = max((sum(n for d, n in per_day.items() if day - week < d <= day)
                for day in per_day if day < until), default=0)
    return Usage(last3=between(RECENT_DAYS, 0), prior4=between(WEEK_DAYS, RECENT_DAYS),
                 previous=between(2 * WEEK_DAYS, WEEK_DAYS), peak=peak, niche_posts=niche_posts)


async def detail(session: AsyncSession, sound_id: str, *, now: datetime,
                 min_age_hours: float) -> SoundDetail:
    found = await repo.sound(session, sound_id)
    if found is None:
        raise SoundNotFound(f"No sound {sound_id}.")
    life = await repo.life(session, sound_id, adopters=ADOPTERS)
    until = utc_day(now)
    niche_posts = await repo.niche_posts(session, found["platform"],
                                         [n["niche"] for n in life["niches"]],
                                         until - timedelta(days=WEEK_DAYS), until)
    per_day = {date.fromisoformat(str(d["day"])): int(d["posts"]) for d in life["usage"]}
    best = (life["best"] or [])[:DETAIL_EXAMPLES]
    posts = await _posts(session, best, now, min_age_hours)
    return assemble(SoundDetail, {
        **_sound_fields(found, sound_id),
        "stage": stage(usage_by_day(per_day, until, niche_posts)),
        "posts": int(life["posts"]),
        "creators": int(life["creators"]),
        "views": int(life["views"]),
        "outlierShare": _ratio(int(life["beat"]), int(life["scored"])),
        "firstUsedAt": isoformat(life["first_used_at"]),
        "lastUsedAt": isoformat(life["last_used_at"]),
        "usage": [assemble(SoundDay, {"day": str(d["day"]), "posts": int(d["posts"]),
                                      "newCreators": int(d["new_creators"]),
                                      "views": int(d["views"])})
                  for d in life["usage"]],
        "niches": [assemble(SoundNiche, {"categoryId": n["niche"] or None,
                                         "posts": int(n["posts"]),
                                         "creators": int(n["creators"])})
                   for n in life["niches"]],
        "earlyAdopters": [assemble(Adopter, {
            "profileId": a["profile_id"], "platform": a["platform"], "handle": a["handle"],
            "firstUsedAt": isoformat(datetime.fromisoformat(a["published_at"])),
            "postId": a["post_id"]}) for a in life["adopters"]],
        "examplePosts": [posts[i] for i in best if i in posts],
    })
