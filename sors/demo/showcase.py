"""Which profiles of a planned demo world to build first (sors.demo.worldbuild).

A dozen profiles take seconds to ingest; the whole world takes minutes. So the first slice is
picked to make the first searches worth running: per platform, creators whose listing has a
post far above their usual views with the README tour's query in its caption, under the
tour's follower limit, and creators with any strong outlier. Picking reads the simulated
posts only (no database); whether the slice delivers is checked through the real API
(tests/demo/test_demo_first_start.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sors.platforms.base import PLATFORMS, CrawlSnapshot, Platform

if TYPE_CHECKING:
    from sors.platforms.sim.world import SimWorld

TOUR_QUERY = "recipe"  # README.md, "A five-minute tour": the first search
TOUR_MAX_FOLLOWERS = 500_000
PER_PLATFORM = 1  # for the tour's search, and as many again for any outlier
# A post this many times the mean views of the creator's settled posts of the last three
# months (the three-month score's baseline, estimated from one listing). Above the tour's
# `minOutlierScore: 5`, so the estimate has room to be off.
STRONG = 6.0
_SETTLED = timedelta(hours=48)
_WINDOW = timedelta(days=90)


def _strong_posts(snap: CrawlSnapshot, at: datetime) -> list[str]:
    """Captions (lower case) of the posts at least STRONG times the usual."""
    settled = [
        p for p in snap.posts
        if p.views is not None and _SETTLED <= at - p.published_at <= _WINDOW
    ]
    if len(settled) < 5:
        return []
    usual = sum(p.views or 0 for p in settled) / len(settled)
    return [
        (p.caption or "").lower()
        for p in settled
        if usual > 0 and (p.views or 0) >= STRONG * usual
    ]


def showcase(
    world: SimWorld, handles: Sequence[tuple[Platform, str]], at: datetime
) -> list[tuple[Platform, str]]:
    """Up to 2 × PER_PLATFORM handles per platform from `handles`, in their order."""
    want_query: dict[str, int] = dict.fromkeys(PLATFORMS, PER_PLATFORM)
    want_any: dict[str, int] = dict.fromkeys(PLATFORMS, PER_PLATFORM)
    niches: set[str] = set()
    chosen: list[tuple[Platform, str]] = []
    for platform, handle in handles:
        if not want_query.get(platform) and not want_any.get(platform):
            if not any(want_query.values()) and not any(want_any.values()):
                break
            continue
        niche = world.niche_of(platform, handle)
        food = niche.startswith("food.")
        if not food and (not want_any[platform] or niche in niches):
            continue  # only food creators write recipes; spread the rest over niches
        snap = world.crawl(platform, handle, at)
        strong = _strong_posts(snap, at)
        if not strong:
            continue
        followers = snap.profile.follower_count or 0
        if (want_query[platform] and followers < TOUR_MAX_FOLLOWERS
                and any(TOUR_QUERY in c for c in strong)):
            want_query[platform] -= 1
        elif want_any[platform] and niche not in niches:
            want_any[platform] -= 1
        else:
            continue
        niches.add(niche)
        chosen.append((platform, handle))
    return chosen
