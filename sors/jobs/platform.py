"""A worker's view of the platforms: the adapter its jobs use and the service clock they read.

In simulation both follow what is stored with the data — the simulated time, and the world's
seed the adapter must be built for (another seed would be another world) — so each job
brings them up to date first (`sync_clock`)."""

from __future__ import annotations

from sors.jobs.engine import JobContext, sync_service_clock
from sors.platforms import registry


def adapter_for(ctx: JobContext):
    """The worker's platform adapter. In simulation it is built for the world seed stored
    with the data (read by `sync_clock`): another seed would be another world."""
    seed = getattr(ctx, "_sim_seed", None)
    cached = getattr(ctx, "_adapter", None)
    if cached is None or cached[0] != seed:
        cached = (seed, registry.get_adapter(ctx.settings, sim_seed=seed, db=ctx.db))
        ctx._adapter = cached  # type: ignore[attr-defined]
    return cached[1]


async def sync_clock(ctx: JobContext) -> None:
    if ctx.settings.platform_source == "sim":
        await sync_service_clock(ctx)
        async with ctx.db.session() as s:
            ctx._sim_seed = await registry.world_seed(s, ctx.settings)  # type: ignore[attr-defined]
