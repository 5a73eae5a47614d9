"""A pure-Python replay of what ingest stores and scores for one simulated profile crawled
at given times, so a test can pick, deterministically and without the database, a handle
whose alert will get hits on the days it needs. The tests then check the real pipeline."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sors.catalog.models import WINDOWS
from sors.platforms.sim.world import SimWorld


@dataclass
class Replay:
    platform: str
    handle: str
    world: SimWorld = field(default_factory=lambda: SimWorld(0))
    # platform_post_id -> [published_at, views, deleted]
    stored: dict[str, list] = field(default_factory=dict)

    def crawl(self, at: datetime) -> set[str]:
        """Ingest a crawl at `at`; returns the ids first stored by it."""
        snap = self.world.crawl(self.platform, self.handle, at)  # type: ignore[arg-type]
        listed = {p.platform_post_id for p in snap.posts}
        if self.stored and snap.posts:
            oldest = min(p.published_at for p in snap.posts)
            for pid, rec in self.stored.items():
                if not rec[2] and rec[0] >= oldest and pid not in listed:
                    rec[2] = True
        new = set()
        for p in snap.posts:
            rec = self.stored.get(p.platform_post_id)
            if rec is None:
                new.add(p.platform_post_id)
                self.stored[p.platform_post_id] = [p.published_at, p.views, False]
            elif not rec[2]:
                rec[1] = p.views
        return new

    def qualifying(
        self, at: datetime, *, threshold: float, age_days: int, window: str = "three_months"
    ) -> set[str]:
        days = WINDOWS[window]
        live = [r for r in self.stored.values() if not r[2] and r[0] <= at]
        # The baseline rule (docs/API.md): posts at least 48 h old, and at least 3 of them.
        base = [
            r[1]
            for r in live
            if r[1] is not None
            and r[0] <= at - timedelta(hours=48)
            and (days is None or r[0] > at - timedelta(days=days))
        ]
        if len(base) < 3 or sum(base) == 0:
            return set()
        mean = sum(base) / len(base)
        return {
            pid
            for pid, r in self.stored.items()
            if not r[2]
            and r[1] is not None
            and r[0] >= at - timedelta(days=age_days)
            and r[1] / mean >= threshold
        }


def hit_days(
    platform: str, handle: str, crawls: Sequence[datetime], *, threshold: float, age_days: int
) -> list[int]:
    """New hits at each crawl after the first (the alert is created after crawl 0)."""
    replay = Replay(platform, handle)
    replay.crawl(crawls[0])
    seen: set[str] = set()
    out = []
    for at in crawls[1:]:
        replay.crawl(at)
        q = replay.qualifying(at, threshold=threshold, age_days=age_days)
        out.append(len(q - seen))
        seen |= q
    return out
