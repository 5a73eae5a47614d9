"""Which platform adapter this process uses, from the settings.

Imports are lazy: the live adapters pull in yt-dlp and instaloader, which the simulation
(and every test that runs on it) never needs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from sqlalchemy.ext.asyncio import AsyncSession

from sors.config import Settings
from sors.kit.clock import Clock
from sors.kit.db import Database
from sors.platforms.base import PlatformAdapter


def get_adapter(
    settings: Settings, *, sim_seed: int | None = None, db: Database | None = None
) -> PlatformAdapter:
    """`settings.platform_source`: "sim" (the seeded simulated world) or "live".

    The simulated world's seed is `sim_seed` when given, else `settings.sim.seed`, else 0.
    It must be the seed the stored world was built with (the demo keeps it in the database):
    another seed is another world, where every stored post looks deleted.

    Live adapters pace their requests through one schedule shared by every process
    (platforms/shared_pacing.py): in `db`, or in Redis when configured.
    """
    source = settings.platform_source
    if source == "sim":
        from sors.platforms.sim import SimAdapter, SimWorld

        seed = sim_seed if sim_seed is not None else settings.sim.seed
        latency = float(settings.sim.latency_seconds or 0.0)
        return SimAdapter(SimWorld(int(seed or 0)), latency=latency)
    if source == "live":
        live = importlib.import_module("sors.platforms.live")  # lazy: yt-dlp, instaloader
        from sors.platforms.shared_pacing import registry_for

        adapter: PlatformAdapter = live.LiveAdapter(settings, pacers=registry_for(settings, db))
        return adapter
    raise ValueError(f"Unknown platform source {source!r}; expected 'sim' or 'live'.")


def process_clock(settings: Settings, db: Callable[[], Database]) -> Clock:
    """The clock a process runs on: the system clock live; in simulation the time stored
    with the data (`db` is asked for the database at the clock's first refresh)."""
    if settings.platform_source != "sim":
        return Clock()
    from sors.platforms.sim.clock import SimClock

    return SimClock(db, seed=settings.sim.seed)


async def world_seed(session: AsyncSession, settings: Settings) -> int | None:
    """The simulated world's seed stored with the data (None live): an adapter must be built
    for it, since another seed is another world."""
    if settings.platform_source != "sim":
        return None
    from sors.platforms.sim.clock import get_state

    state = await get_state(session)
    return state.seed if state is not None else settings.sim.seed
