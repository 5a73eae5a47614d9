"""Hand-made profiles of a known tier, and adapters that count what the keeper fetches."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

from sors.platforms.sim.world import SimWorld
from tests.factories.world import hand_crawl, hand_post, ingest


async def profile_with_posts(db, handle: str, at: datetime, ages_days: list[float]) -> str:
    """A TikTok profile crawled at `at` whose posts are `ages_days` old then (no outliers)."""
    posts = [hand_post(handle, i, at - timedelta(days=a)) for i, a in enumerate(ages_days)]
    return await ingest(db, hand_crawl(handle, posts, at))


class CountingAdapter:
    """The simulated world, slowed down and counted: how many fetches reach the platform."""

    def __init__(self, delay: float = 0.0, snapshots=None) -> None:
        self.world = SimWorld(0)
        self.delay = delay
        self.fetches: list[tuple[str, str]] = []
        self.snapshots = snapshots  # optional (platform, handle, now) -> CrawlSnapshot

    async def fetch_profile(self, platform, handle, *, now):
        self.fetches.append((platform, handle))
        await asyncio.sleep(self.delay)
        if self.snapshots is not None:
            return self.snapshots(platform, handle, now)
        return self.world.crawl(platform, handle, now)
