"""Creators the demo's history watches closely: young-post refreshes, so rising posts work.

A creator's own curve (catalog.curves) needs snapshots of their posts at young ages (1 h,
3 h, 6 h, ...), and a young post's projection needs a few snapshots of its own; the four
crawls every demo profile gets (worldbuild.HISTORY) are days apart. A monitored creator
under a rising alert is refreshed soon after each of its young posts reaches 1, 3, 6, 12
and 24 hours of age (sors.alerts.young); the demo's history does the same for a few
creators: one full crawl a scheduler tick after each of REFRESH_AGES_HOURS of each of their
posts of the last WINDOW (at most MAX_POSTS posts), through the same ingest as every crawl.

Which creators: per trajectory shape (sors.platforms.sim.trajectories), the first creator
of the planned sample whose listing at the world's moment has a post of that shape between
YOUNG_HOURS old, so the demo's "now" holds young posts in every shape the sample has; for
a late take-off, one that has taken off by then (its views per hour growing). Picking reads
the simulated posts only; whether a post is rising is the product's call, at ingest
(catalog.projections), and is checked through the API (tests/demo/test_rising_demo.py).
A few creators: each costs about a hundred crawls (docs/OPERATIONS.md, "Demo world
history").
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sors.platforms.base import CrawlSnapshot, Platform

if TYPE_CHECKING:
    from sors.platforms.sim.world import SimWorld

# The ages a monitored young post is looked at (sors.alerts.young: 1-24 h), then 2, 3 and
# 7 days, so the curve has every age up to a week.
REFRESH_AGES_HOURS = (1, 3, 6, 12, 24, 48, 72, 168)
# Each refresh runs at the scheduler tick after the age is reached.
TICK = timedelta(minutes=6)
WINDOW = timedelta(days=42)
MAX_POSTS = 10
YOUNG_HOURS = (6.0, 72.0)
# Fewer views than this and counting noise hides any acceleration (catalog.rising).
MIN_VIEWS = 1000
# How many creators per shape; two for the shapes that break out.
PER_SHAPE = 1
PER_BREAKOUT_SHAPE = 2
_TAKEOFF_STEP = timedelta(hours=2)
# Posts a pick looks at: the newest few (a creator posts at most once a day, so every post
# younger than YOUNG_HOURS is among them).
_NEWEST = 4


def _hours(at: datetime, published: datetime) -> float:
    return (at - published).total_seconds() / 3600.0


def _taken_off(
    world: SimWorld, platform: Platform, handle: str, post_id: str, at: datetime
) -> bool:
    """The post gained more views in the last two hours than in the two before."""
    views = []
    for back in (2, 1, 0):
        snap = world.crawl(platform, handle, at - back * _TAKEOFF_STEP, size=_NEWEST)
        views.append(next((p.views or 0 for p in snap.posts if p.platform_post_id == post_id), 0))
    return views[2] - views[1] > views[1] - views[0]


def watched(
    world: SimWorld, handles: Sequence[tuple[Platform, str]], at: datetime
) -> list[tuple[Platform, str]]:
    """The creators of `handles` the history watches closely, in their order."""
    from sors.platforms.sim.trajectories import Shape

    breakouts = {Shape.EARLY_BREAKOUT.value, Shape.LATE_TAKEOFF.value}
    want = {s.value: PER_BREAKOUT_SHAPE if s.value in breakouts else PER_SHAPE for s in Shape}
    chosen: list[tuple[Platform, str]] = []
    for platform, handle in handles:
        if not any(want.values()):
            break
        snap = world.crawl(platform, handle, at, size=_NEWEST)
        for p in snap.posts:
            shape = str(p.extra.get("sim_shape"))
            if (not want.get(shape) or (p.views or 0) < MIN_VIEWS
                    or not YOUNG_HOURS[0] <= _hours(at, p.published_at) <= YOUNG_HOURS[1]):
                continue
            if shape in breakouts and not _taken_off(world, platform, handle,
                                                     p.platform_post_id, at):
                continue
            want[shape] -= 1
            chosen.append((platform, handle))
            break
    return chosen


def refresh_times(snap: CrawlSnapshot, at: datetime) -> list[datetime]:
    """When a watched creator is refreshed before `at`: after each of REFRESH_AGES_HOURS of
    each of its newest posts of the last WINDOW (listing at `at`), oldest first."""
    recent = [p for p in snap.posts if at - WINDOW <= p.published_at < at][:MAX_POSTS]
    times = {
        p.published_at + timedelta(hours=h) + TICK
        for p in recent
        for h in REFRESH_AGES_HOURS
    }
    return sorted(t for t in times if t < at)
