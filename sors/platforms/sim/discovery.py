"""The simulated platforms' discovery listing: new creators surface as simulated time passes.

Each platform surfaces a few creators per simulated day, each at its own moment of that day,
derived from (seed, platform, day), so every process lists the same creators for the same
interval. They are ordinary simulated accounts (every stable handle exists); what is new is
that the platform starts showing them.
"""

from __future__ import annotations

import math
from datetime import datetime

from sors.platforms.base import Platform
from sors.platforms.sim.handles import draw_handle
from sors.platforms.sim.rng import Rng, stable_int
from sors.platforms.sim.world import SimWorld

PER_DAY: dict[str, int] = {"tiktok": 8, "instagram": 6, "youtube": 5}
_DAY = 86_400


def surfaced(world: SimWorld, platform: Platform, day: int) -> list[tuple[float, str]]:
    """(moment, handle) of the creators `platform` surfaces on simulated day `day`."""
    rng = Rng(stable_int(world.seed, "discover", platform, day))
    out: list[tuple[float, str]] = []
    for _ in range(PER_DAY[platform]):
        at = day * _DAY + rng.uniform(0, _DAY)
        for _attempt in range(20):
            handle = draw_handle(rng, platform)
            if handle is not None and world.is_stable_handle(platform, handle):
                out.append((at, handle))
                break
    return out


def discover(world: SimWorld, platform: Platform, niche: str | None, *, since: datetime,
             now: datetime, limit: int) -> list[str]:
    """Handles surfaced in (since, now], oldest first; `niche` (a taxonomy id) keeps only
    creators of that niche or below it."""
    lo, hi = since.timestamp(), now.timestamp()
    found: list[tuple[float, str]] = []
    for day in range(math.floor(lo / _DAY), math.floor(hi / _DAY) + 1):
        for at, handle in surfaced(world, platform, day):
            if not lo < at <= hi:
                continue
            if niche and not (world.niche_of(platform, handle) + ".").startswith(niche + "."):
                continue
            found.append((at, handle))
    found.sort()
    return [h for _, h in found[:limit]]
