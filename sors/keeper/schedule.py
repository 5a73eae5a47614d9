"""What the scheduler does for the catalog keeper on each tick: read discovery listings, then
queue the overdue refreshes and discovered creators' first crawls within each platform's
budget. Like the other checks, each step commits its own short transactions; the keeper's
per-platform lock (sors.keeper.service) keeps even concurrent schedulers apart."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from sors.catalog import curves, embeddings, thumbnails, vector_index
from sors.catalog import repository as catalog_repo
from sors.catalog.tasks import JOB_TYPE as VECTOR_INDEX_JOB
from sors.config import get_settings
from sors.jobs import service as jobs
from sors.jobs.scheduler import register
from sors.keeper import discovery
from sors.keeper import service as keeper
from sors.monitoring import service as monitoring
from sors.platforms import registry

_adapters: dict[Any, Any] = {}


def _sessions(session: AsyncSession) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(session.bind, expire_on_commit=False, autoflush=False)


async def _adapter(maker: async_sessionmaker[AsyncSession]) -> Any:
    settings = get_settings()
    async with maker() as s:
        seed = await registry.world_seed(s, settings)
    key = (settings.platform_source, seed)
    if key not in _adapters:
        _adapters[key] = registry.get_adapter(settings, sim_seed=seed)
    return _adapters[key]


@register("catalog.discover")
async def discover(session: AsyncSession, now: datetime) -> int:
    """New creators from the platforms' discovery listings (candidates for the keeper)."""
    settings = get_settings()
    if not settings.catalog_keeper:
        return 0
    maker = _sessions(session)
    return await discovery.discover(maker, await _adapter(maker), now, settings)


@register("catalog.keeper")
async def keep(session: AsyncSession, now: datetime) -> int:
    """Keeper crawls queued: overdue refreshes and discovered creators."""
    settings = get_settings()
    if not settings.catalog_keeper:
        return 0
    passes = await keeper.keep(_sessions(session), now, settings)
    return sum(p.refreshes + p.discoveries for p in passes.values())


@register("catalog.embed")
async def embed(session: AsyncSession, now: datetime) -> int:
    """Posts ingest named (new, re-captioned, transcribed) given their vectors; then posts
    stored before search by meaning or before a model change, within the same budget."""
    budget = get_settings().embedding_backfill_per_tick
    named = await embeddings.embed_pending(session, limit=budget)
    await embeddings.sweep_recent(session)  # a range of its time index: nothing, most ticks
    return named + await embeddings.backfill(session, limit=budget - named)


@register("catalog.vector_index")
async def vector_index_build(session: AsyncSession, now: datetime) -> int:
    """The index over all post vectors queued for a (re)build when it is due (asked every
    few minutes): one job per model at a time (catalog.vector_index)."""
    model = embeddings.embedder_or_none()
    if model is None or not await embeddings.available(session):
        return 0
    if not await vector_index.due_now(session, model.key):
        return 0
    _, created = await jobs.enqueue(
        session, type=VECTOR_INDEX_JOB, account_id=None, credits=0, origin="catalog",
        payload={"model": model.key, "dims": model.dims},
        dedupe_key=f"vector_index:{model.key}", max_attempts=3)
    return int(created)


@register("catalog.thumbnails")
async def thumbnail_changes(session: AsyncSession, now: datetime) -> int:
    """Thumbnails of freshly crawled posts looked at (YouTube first, budgeted); changes are
    kept and announced to the accounts monitoring their creators."""
    maker = _sessions(session)
    changed = await thumbnails.check(session, await _adapter(maker),
                                     limit=get_settings().thumbnail_checks_per_tick)
    for c in {(c.profile_id, c.at) for c in changed}:
        profile = await catalog_repo.get_profile(session, c[0])
        if profile is not None:
            await monitoring.announce_changes(session, c[0], profile["handle"],
                                              profile["platform"], c[1], field="thumbnail")
    return len(changed)


@register("catalog.curves")
async def creator_curves(session: AsyncSession, now: datetime) -> int:
    """Creator curves (expected views by age) of profiles crawled since they were computed,
    a budgeted number of profiles per tick, in one statement."""
    return await curves.refresh(session, limit=get_settings().curve_profiles_per_tick)
