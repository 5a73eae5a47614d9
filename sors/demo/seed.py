"""Building a simulated world in the database (`sors demo seed`, first `sors demo`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.ingest.service import ingest_crawls
from sors.catalog.models import Category, Post, Profile
from sors.catalog.vectors import embeddings
from sors.config import Settings
from sors.demo.comments import keep_world_comments
from sors.kit.db import Database
from sors.platforms import taxonomy
from sors.platforms.base import CrawlSnapshot, Platform

if TYPE_CHECKING:
    from sors.platforms.sim.world import SimWorld

BATCH = 100
PARALLEL = 3


@dataclass(frozen=True)
class SeedResult:
    profiles: int
    posts: int
    seconds: float


async def ensure_categories(session: AsyncSession) -> None:
    rows = [{"id": c.id, "name": c.name, "parent_id": c.parent_id} for c in taxonomy.CATEGORIES]
    stmt = insert(Category).values(rows)
    await session.execute(
        stmt.on_conflict_do_update(
            index_elements=[Category.id],
            set_={"name": stmt.excluded.name, "parent_id": stmt.excluded.parent_id},
        )
    )


async def counts(db: Database) -> tuple[int, int]:
    async with db.session() as s:
        profiles = (await s.execute(select(func.count()).select_from(Profile))).scalar_one()
        posts = (await s.execute(select(func.count()).select_from(Post))).scalar_one()
    return profiles, posts


def crawl_batch(
    world: SimWorld, chunk: Sequence[tuple[Platform, str]], now: datetime,
    history: Sequence[timedelta] = (),
) -> list[list[CrawlSnapshot]]:
    """The crawls of `chunk`: one list per moment, oldest first (each `history` before
    `now`, then `now`), aligned with `chunk`."""
    moments = [now - ago for ago in sorted(history, reverse=True)] + [now]
    return [[world.crawl(pf, h, at) for pf, h in chunk] for at in moments]


async def ingest_batch(session: AsyncSession, crawls: Sequence[Sequence[CrawlSnapshot]]) -> None:
    """Ingest the crawls of `crawl_batch`, oldest first, in the caller's transaction."""
    for moment in crawls:
        await ingest_crawls(session, moment)


async def seed_world(
    db: Database,
    *,
    settings: Settings,
    profiles: int,
    seed: int,
    now: datetime,
    progress: Callable[[int], None] | None = None,
    history: Sequence[timedelta] = (),
    comments: bool = False,
) -> SeedResult:
    """Crawl `profiles` simulated handles at `now` and ingest them, in batches; with
    `history`, each batch is first crawled that long before `now` (oldest first), as a
    monitored profile would have been, so stat histories exist from the start. `comments`:
    also the comments of each profile's most viewed posts, typed and embedded
    (sors.demo.comments), as the demo's build keeps them."""
    from sors.platforms.sim.world import SimWorld

    started = time.perf_counter()
    world = SimWorld(seed)
    handles = world.sample_handles(profiles)
    async with db.transaction() as s:
        await ensure_categories(s)
    # A few batches in flight: while Python generates one, PostgreSQL indexes the others
    # (separate profiles, separate transactions, no shared rows). 1 → 3 took the demo
    # world (2,000 profiles, 120k posts) from 80 s to 49 s on 2 cores.
    gate = asyncio.Semaphore(PARALLEL)
    counted = {"posts": 0}

    async def one(chunk: Sequence[tuple[Platform, str]]) -> None:
        async with gate:
            crawls = crawl_batch(world, chunk, now, history)
            async with db.transaction() as s:
                await ingest_batch(s, crawls)
                if comments:
                    await keep_world_comments(s, world, crawls[-1], now, settings)
            counted["posts"] += sum(len(c.posts) for c in crawls[-1])
            if progress:
                progress(len(chunk))

    await asyncio.gather(*(one(handles[i : i + BATCH]) for i in range(0, len(handles), BATCH)))
    # The world is searchable by meaning at once (not at the scheduler's next ticks).
    while True:
        async with db.transaction() as s:
            if not await embeddings.embed_pending(s, settings):
                break
    posts = counted["posts"]
    return SeedResult(len(handles), posts, time.perf_counter() - started)
