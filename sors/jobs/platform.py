"""A worker's view of the platforms: the adapter its jobs use.

In simulation it follows what is stored with the data — the seed of the world the adapter
must be built for (another seed would be another world) — so a job reads it first
(`sync_world`), after the worker brought the clock up to the stored time."""

from __future__ import annotations

from sors.jobs.engine import JobContext
from sors.platforms import registry
from sors.platforms.base import PlatformAdapter


def adapter_for(ctx: JobContext) -> PlatformAdapter:
    """The worker's platform adapter, built once for the world seed `sync_world` read."""
    if ctx.adapter is None or ctx.adapter_seed != ctx.world_seed:
        ctx.adapter = registry.get_adapter(ctx.settings, sim_seed=ctx.world_seed, db=ctx.db)
        ctx.adapter_seed = ctx.world_seed
    return ctx.adapter


async def sync_world(ctx: JobContext) -> None:
    """In simulation, the seed of the world stored with the data (None live)."""
    if ctx.settings.platform_source == "sim":
        async with ctx.db.session() as s:
            ctx.world_seed = await registry.world_seed(s, ctx.settings)
