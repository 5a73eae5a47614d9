"""The demo's simulated world, built while the demo already serves.

The world is fixed by its plan (`sim_build`, one row): the first `profiles` handles of world
`seed` (`SimWorld.sample_handles`), each crawled at HISTORY before `at` and at `at`, through
the real ingest; a few of them (sors.demo.watched) also after each young age of their
recent posts, as a monitored creator under a rising alert is. Before the crawl at `at`, the
batch's creator curves are computed (catalog.curves, the scheduler's statement), so that
crawl projects the young posts against them and rising posts exist from the start. Only
the order in which profiles arrive depends on anything else: a small showcase slice first
(so the first searches find outliers on every platform), then the watched creators (a batch
of their own), then the sample's order. A profile's crawls commit in one transaction, so
"built" means "in the catalog": a restart resumes with what is missing, an interruption
loses only the batches in flight, and the simulated clock moving meanwhile changes nothing
(the crawls are at `at`).

One builder at a time per database (an advisory lock): two demos of one data dir, or `sors
demo seed` beside a running demo, wait for each other instead of racing.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import structlog
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.ingest import curves
from sors.catalog.ingest.service import ingest_crawls
from sors.demo.comments import keep_world_comments
from sors.demo.seed import ensure_categories
from sors.demo.showcase import showcase
from sors.demo.watched import refresh_times, watched
from sors.kit import memory
from sors.kit.db import Database
from sors.kit.runtime import Runtime
from sors.platforms.base import CrawlSnapshot, Platform
from sors.platforms.sim.models import SimBuild

if TYPE_CHECKING:
    from sors.platforms.sim.world import SimWorld

log = structlog.get_logger("sors.demo.worldbuild")

KEY = "world"
# Past crawls of every profile before its crawl at `at`, so stat histories, velocities and
# age-matched scores exist from the start (docs/OPERATIONS.md, "Demo world history").
HISTORY = (timedelta(days=7), timedelta(days=3), timedelta(days=1))
BATCH = 50
# Batches in flight: one being generated in Python while PostgreSQL ingests another. More
# would only take CPU from the requests the demo serves meanwhile (2 cores).
PARALLEL = 2
# Crawl moments generated at once per batch (a watched creator has about 75).
ROUNDS_AT_ONCE = len(HISTORY)
_LOCK = 0x736F72735F776C64  # pg_advisory_lock key: "sors_wld"
_POLL_SECONDS = 1.0


@dataclass(frozen=True)
class BuildState:
    seed: int
    profiles: int
    at: datetime
    ready: int
    started_at: datetime
    finished_at: datetime | None

    @property
    def complete(self) -> bool:
        return self.finished_at is not None

    @classmethod
    def of(cls, row: SimBuild) -> BuildState:
        return cls(row.seed, row.profiles, row.at, row.ready, row.started_at, row.finished_at)


async def read(session: AsyncSession) -> BuildState | None:
    row = await session.get(SimBuild, KEY, populate_existing=True)
    return BuildState.of(row) if row is not None else None


async def plan(session: AsyncSession, *, seed: int, profiles: int, at: datetime) -> BuildState:
    """Plan the world when none is planned yet; an existing plan is kept as it is."""
    inserted = (await session.execute(
        text("""INSERT INTO sim_build (key, seed, profiles, at, ready, started_at)
                VALUES (:k, :seed, :profiles, :at, 0, :wall) ON CONFLICT (key) DO NOTHING
                RETURNING key"""),
        {"k": KEY, "seed": seed, "profiles": profiles, "at": at, "wall": datetime.now(UTC)},
    )).scalar()
    if inserted and (await session.execute(text("SELECT EXISTS (SELECT FROM profiles)"))).scalar():
        # A data dir seeded before plans existed: count what it already holds.
        from sors.platforms.sim.world import SimWorld

        have = await _existing(session, SimWorld(seed).sample_handles(profiles))
        return await _set(session, ready=len(have))
    state = await read(session)
    assert state is not None
    return state


async def _replan(session: AsyncSession, seed: int, profiles: int) -> None:
    """Another seed or size for the planned world (`sors demo seed`); its moment stays, so
    a grown world is the world an eager build of that size would have made."""
    await session.execute(
        text("""UPDATE sim_build SET seed = :seed, profiles = :profiles, finished_at = NULL,
                       started_at = :wall
                 WHERE key = :k AND (seed <> :seed OR profiles <> :profiles)"""),
        {"k": KEY, "seed": seed, "profiles": profiles, "wall": datetime.now(UTC)},
    )


@contextlib.asynccontextmanager
async def _exclusive(db: Database, *, wait: bool) -> AsyncIterator[bool]:
    """Hold the builder's lock (a session lock on a connection of its own) for the block;
    yields False when another builder holds it and `wait` is off."""
    async with db.engine.connect() as conn:
        while True:
            got = (
                await conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": _LOCK})
            ).scalar()
            await conn.commit()
            if got or not wait:
                break
            await asyncio.sleep(_POLL_SECONDS)
        if not got:
            yield False
            return
        try:
            yield True
        finally:
            try:
                await conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _LOCK})
                await conn.commit()
            except BaseException:
                # A pooled connection must not keep the lock: drop it instead (its session,
                # and so the lock, ends with it).
                await conn.invalidate()
                raise


_EXISTING = text("""
SELECT p.platform, p.handle FROM profiles p
  JOIN unnest(CAST(:platforms AS text[]), CAST(:handles AS text[])) AS w(platform, handle)
    ON p.platform = w.platform AND p.handle = w.handle
""")


async def _existing(
    session: AsyncSession, handles: list[tuple[Platform, str]]
) -> set[tuple[str, str]]:
    rows = await session.execute(
        _EXISTING, {"platforms": [p for p, _ in handles], "handles": [h for _, h in handles]}
    )
    return {(p, h) for p, h in rows.all()}


@dataclass(frozen=True)
class Order:
    handles: list[tuple[Platform, str]]  # build order
    first: int  # how many of the first make the showcase
    watched: frozenset[tuple[Platform, str]]  # refreshed at young ages too (sors.demo.watched)


def _showcase_first(
    seed: int, profiles: int, at: datetime
) -> tuple[list[tuple[Platform, str]], int]:
    """The planned handles, the showcase first, and how many make the showcase."""
    from sors.platforms.sim.world import SimWorld

    world = SimWorld(seed)
    handles = world.sample_handles(profiles)
    first = showcase(world, handles, at)
    chosen = set(first)
    return first + [h for h in handles if h not in chosen], len(first)


def _with_watched(
    seed: int, handles: list[tuple[Platform, str]], first: int, at: datetime
) -> Order:
    """The build order: the showcase, the watched creators, the rest."""
    from sors.platforms.sim.world import SimWorld

    watch = watched(SimWorld(seed), handles[first:], at)
    chosen = set(watch)
    rest = [h for h in handles[first:] if h not in chosen]
    return Order(handles[:first] + watch + rest, first, frozenset(watch))


def _order(seed: int, profiles: int, at: datetime) -> Order:
    """The planned handles in build order: the showcase, the watched creators, the rest."""
    return _with_watched(seed, *_showcase_first(seed, profiles, at), at)


def crawl_times(
    world: SimWorld, platform: Platform, handle: str, at: datetime, *, watch: bool
) -> list[datetime]:
    """When the build crawls a planned profile before `at` (then at `at`), oldest first."""
    times = {at - ago for ago in HISTORY}
    if watch:
        times |= set(refresh_times(world.crawl(platform, handle, at), at))
    return sorted(times)


def _rounds(
    world: SimWorld, chunk: list[tuple[Platform, str]], plan: list[list[datetime]], start: int,
    stop: int,
) -> list[list[CrawlSnapshot]]:
    """Crawl moments start..stop-1: each profile's r-th crawl, for the profiles that have one
    (each profile at most once per round, so each round is one ingest)."""
    return [
        [world.crawl(pf, h, times[r]) for (pf, h), times in zip(chunk, plan, strict=True)
         if r < len(times)]
        for r in range(start, stop)
    ]


Progress = Callable[[BuildState], None]


async def build(
    db: Database,
    *,
    wait: bool = True,
    replan: tuple[int, int] | None = None,
    progress: Progress | None = None,
) -> BuildState | None:
    """Build what is missing of the planned world, the showcase slice first; None when
    nothing is planned, or when another builder is at work and `wait` is off. `replan`
    (seed, profiles) changes the plan first, under the builder's lock."""
    async with _exclusive(db, wait=wait) as mine:
        if not mine:
            return None
        async with db.transaction() as s:
            if replan is not None:
                await _replan(s, *replan)
            state = await read(s)
            if state is None:
                return None
            await ensure_categories(s)
        handles, first = await asyncio.to_thread(_showcase_first, state.seed, state.profiles,
                                                 state.at)
        async with db.transaction() as s:
            done = await _existing(s, handles)
            planned = await _set(s, ready=len(done))
        if progress:
            progress(planned)
        gate = asyncio.Semaphore(PARALLEL)

        async def one(
            chunk: list[tuple[Platform, str]], watch: frozenset[tuple[Platform, str]]
        ) -> None:
            async with gate:
                new = await _one_batch(db, planned, chunk, watch)
                if progress:
                    progress(new)

        # Picking the watched creators takes a moment: while the showcase slice is built.
        picking = asyncio.create_task(
            asyncio.to_thread(_with_watched, state.seed, handles, first, state.at))
        showcase_ = [h for h in handles[:first] if h not in done]
        if showcase_:
            await one(showcase_, frozenset())  # alone: it is what the first searches wait for
        order = await picking
        later = [h for h in order.handles[order.first :] if h not in done]
        # The watched creators in a batch of their own, started first: each has ~75 crawls,
        # and a batch commits whole, so alone they hold the demo's first rising posts within
        # its first minute instead of waiting for a full batch's other creators.
        first_watch = [h for h in later if h in order.watched]
        rest = [h for h in later if h not in order.watched]
        size = -(-len(rest) // max(1, -(-len(rest) // BATCH)))  # even batches, none tiny
        async with asyncio.TaskGroup() as group:
            if first_watch:
                group.create_task(one(first_watch, order.watched))
            for i in range(0, len(rest), size or 1):
                group.create_task(one(rest[i : i + size], order.watched))
        async with db.transaction() as s:
            state = await read(s)
            assert state is not None
            if state.ready >= state.profiles and not state.complete:
                state = await _set(s, finished_at=datetime.now(UTC))
        return state


async def _one_batch(
    db: Database, plan_: BuildState, chunk: list[tuple[Platform, str]],
    watch: frozenset[tuple[Platform, str]] = frozenset(),
) -> BuildState:
    from sors.platforms.sim.world import SimWorld

    world = SimWorld(plan_.seed)
    at = plan_.at
    async with db.transaction() as s:
        # Someone may have crawled one of these since (a user's crawl): theirs stays.
        there = await _existing(s, chunk)
        todo = [h for h in chunk if h not in there]
        # Generating the posts is pure Python: in a thread, so the demo's requests keep
        # their event loop meanwhile.
        plan = await asyncio.to_thread(
            lambda: [crawl_times(world, pf, h, at, watch=(pf, h) in watch) for pf, h in todo])
        ids: set[str] = set()
        rounds: list[list[CrawlSnapshot]] = []
        final: list[CrawlSnapshot] = []
        for r in range(0, max(map(len, plan), default=0), ROUNDS_AT_ONCE):
            rounds = await asyncio.to_thread(_rounds, world, todo, plan, r, r + ROUNDS_AT_ONCE)
            for moment in rounds:
                ids.update(await ingest_crawls(s, moment))
        if todo:
            # The scheduler's curve statement, for these profiles, before the crawl at `at`:
            # that crawl projects their young posts against the curves (catalog.projections).
            await curves.refresh(s, limit=len(ids), profile_ids=sorted(ids))
            final = await asyncio.to_thread(lambda: [world.crawl(pf, h, at) for pf, h in todo])
            await ingest_crawls(s, final)
            # What their audience says (the scheduler embeds the texts).
            await keep_world_comments(s, world, final, at)
        row = (await s.execute(
            text("UPDATE sim_build SET ready = ready + :n WHERE key = :k RETURNING *"),
            {"n": len(chunk), "k": KEY},
        )).mappings().one()
    # The batch's posts (~15 MB of objects) go, and the heap they leave free goes back.
    del plan, rounds, final
    await asyncio.to_thread(memory.release)
    return BuildState(row["seed"], row["profiles"], row["at"], row["ready"], row["started_at"],
                      row["finished_at"])


async def _set(session: AsyncSession, **values: object) -> BuildState:
    row = await session.get(SimBuild, KEY, with_for_update=True)
    assert row is not None
    for k, v in values.items():
        setattr(row, k, v)
    await session.flush()
    return BuildState.of(row)


async def run_in_background(runtime: Runtime) -> None:
    """The demo's background role, in the runtime of the process that serves it: build the
    rest, log the progress, start over (resuming) after a failure; cancelled when the demo
    stops (the batches in flight roll back)."""
    from sors.catalog.trends.service import clear_trending_cache

    started, wall = time.monotonic(), datetime.now(UTC)

    def report(state: BuildState) -> None:
        clear_trending_cache()  # trending is cached for hours; the world just grew
        if not state.complete:
            log.info("world_building", ready=state.ready, profiles=state.profiles)

    delay = 1.0
    while True:
        try:
            state = await build(runtime.database, progress=report)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("world_build_failed", retry_in=delay)
            await asyncio.sleep(delay)
            delay = min(60.0, delay * 2)
            continue
        if state is not None and state.finished_at is not None and state.finished_at >= wall:
            log.info("world_complete", profiles=state.profiles,
                     seconds=round(time.monotonic() - started, 1))
        return
