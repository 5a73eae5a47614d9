"""What the scheduler does for the catalog keeper on each tick: read discovery listings, then
queue the overdue refreshes and discovered creators' first crawls within each platform's
budget. Like the other checks, each step commits its own short transactions; the keeper's
per-platform lock (sors.keeper.service) keeps even concurrent schedulers apart."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sors.catalog.ingest import curves, thumbnails
from sors.catalog.records import repository as catalog_repo
from sors.catalog.usage import boilerplate, rollup
from sors.catalog.vectors import embeddings
from sors.catalog.vectors import index as vector_index
from sors.catalog.vectors import pool as embedding_pool
from sors.catalog.vectors.tasks import JOB_TYPE as VECTOR_INDEX_JOB
from sors.jobs import service as jobs
from sors.keeper import discovery
from sors.keeper import service as keeper
from sors.kit.runtime import Runtime
from sors.monitoring import service as monitoring
from sors.platforms import registry
from sors.platforms.base import PlatformAdapter

# The adapters the checks of a runtime use, kept across ticks: a live adapter's state (its
# clients, the YouTube discovery quota of the day) must outlive a tick. Keyed by the runtime
# (held, so its id stays its own) and the world seed the data was built with.
_adapters: dict[tuple[int, int | None], tuple[Runtime, PlatformAdapter]] = {}


def _sessions(session: AsyncSession) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(session.bind, expire_on_commit=False, autoflush=False)


async def _adapter(maker: async_sessionmaker[AsyncSession], rt: Runtime) -> PlatformAdapter:
    async with maker() as s:
        seed = await registry.world_seed(s, rt.settings)
    key = (id(rt), seed)
    if key not in _adapters:
        adapter = registry.get_adapter(rt.settings, sim_seed=seed, db=rt.database)
        _adapters[key] = (rt, adapter)
    return _adapters[key][1]


async def discover(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    """New creators from the platforms' discovery listings (candidates for the keeper)."""
    settings = rt.settings
    if not settings.keeper.enabled:
        return 0
    maker = _sessions(session)
    return await discovery.discover(maker, await _adapter(maker, rt), now, settings)


async def keep(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    """Keeper crawls queued: overdue refreshes and discovered creators."""
    settings = rt.settings
    if not settings.keeper.enabled:
        return 0
    passes = await keeper.keep(_sessions(session), now, settings)
    return sum(p.refreshes + p.young + p.discoveries for p in passes.values())


async def embed(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    """Posts ingest named (new, re-captioned, transcribed) given their vectors; then posts
    stored before search by meaning or before a model change, within the same budget."""
    budget = rt.settings.embeddings.backfill_per_tick
    named = await embeddings.embed_pending(session, rt.settings, limit=budget)
    await embeddings.sweep_recent(session)  # a range of its time index: nothing, most ticks
    done = named + await embeddings.backfill(session, rt.settings, limit=budget - named)
    if not done:
        embedding_pool.release()  # nothing left: the worker processes' memory goes back
    return done


async def vector_index_build(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    """The index over all post vectors queued for a (re)build when it is due (asked every
    few minutes): one job per model at a time (catalog.vector_index)."""
    model = embeddings.embedder_or_none(rt.settings)
    if model is None or not await embeddings.available(session):
        return 0
    if not await vector_index.due_now(session, model.key):
        return 0
    _, created = await jobs.enqueue(
        session, type=VECTOR_INDEX_JOB, account_id=None, credits=0, origin="catalog",
        payload={"model": model.key, "dims": model.dims},
        dedupe_key=f"vector_index:{model.key}", now=now, max_attempts=3)
    return int(created)


async def thumbnail_changes(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    """Thumbnails of freshly crawled posts looked at (YouTube first, budgeted); changes are
    kept and announced to the accounts monitoring their creators."""
    maker = _sessions(session)
    changed = await thumbnails.check(session, await _adapter(maker, rt),
                                     limit=rt.settings.keeper.thumbnail_checks_per_tick)
    for c in {(c.profile_id, c.at) for c in changed}:
        profile = await catalog_repo.get_profile(session, c[0])
        if profile is not None:
            await monitoring.announce_changes(session, c[0], profile["handle"],
                                              profile["platform"], c[1], field="thumbnail")
    return len(changed)


async def creator_curves(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    """Creator curves (expected views by age) of profiles crawled since they were computed,
    a budgeted number of profiles per tick, in one statement."""
    return await curves.refresh(session, limit=rt.settings.keeper.curve_profiles_per_tick)


async def usage_rollup(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    """Days whose posts crawls saw, rolled up again for trends of sounds and hashtags (a
    budgeted number per tick, catalog.usage.rollup)."""
    async with _sessions(session)() as s, s.begin():
        done = await rollup.roll(s, now, limit=rt.settings.keeper.usage_days_per_tick)
    return done.days


async def boilerplate_ideas(session: AsyncSession, now: datetime, rt: Runtime) -> int:
    """The hashtags and phrases that say nothing about a niche, recomputed every few hours
    (catalog.usage.boilerplate)."""
    async with _sessions(session)() as s, s.begin():
        if not await boilerplate.due(s, now):
            return 0
        return await boilerplate.recompute(s, now)


# This domain's scheduled checks, in the order a tick runs them (named in sors.wiring).
CHECKS = (
    ("catalog.discover", discover),
    ("catalog.keeper", keep),
    ("catalog.embed", embed),
    ("catalog.vector_index", vector_index_build),
    ("catalog.thumbnails", thumbnail_changes),
    ("catalog.curves", creator_curves),
    ("catalog.usage", usage_rollup),
    ("catalog.boilerplate", boilerplate_ideas),
)
