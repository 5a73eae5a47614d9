"""Driving the simulated world in tests (monitoring, alerts, webhooks, the keeper, …): its
clock, seeded and hand-made crawls, and what `sors scheduler run-once` does (tick, run the
queued jobs, tick again)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import text

from sors.catalog.ingest.service import ingest_crawls
from sors.jobs.scheduler import Scheduler
from sors.kit.db import Database
from sors.kit.runtime import Runtime
from sors.platforms.base import CrawlSnapshot, PostSnapshot, ProfileSnapshot
from sors.platforms.sim import clock as sim_clock
from sors.platforms.sim.clock import SimClock
from sors.platforms.sim.world import SimWorld
from tests.factories.jobs import run_jobs_until_idle


def fresh_sim_clock(db: Database) -> SimClock:
    """The tests' clock: simulated time read afresh at every refresh (every request, job and
    tick), so a test that moves it sees the new time at once."""
    return SimClock(lambda: db, ttl=0)


async def set_time(db: Database, at: datetime) -> None:
    """Move simulated time (what `sors sim clock set` does); the test runtime's clock reads
    it at its next refresh (every request, job and tick)."""
    async with db.transaction() as s:
        await sim_clock.set_time(s, at)


async def run_once(runtime: Runtime) -> tuple[dict[str, int], int, dict[str, int]]:
    """`sors scheduler run-once`: tick, run the jobs it queued, tick again."""
    sched = Scheduler(runtime)
    first = await sched.tick()
    ran = await run_jobs_until_idle(runtime, timeout=120)
    second = await sched.tick()
    return first, ran, second


async def seed_profile(db: Database, platform: str, handle: str, at: datetime) -> str:
    """Crawl a simulated profile into the catalog at `at`; its profile id."""
    snap = SimWorld(0).crawl(platform, handle, at)  # type: ignore[arg-type]
    async with db.transaction() as s:
        [pid] = await ingest_crawls(s, [snap])
    return pid


async def scalar(db: Database, sql: str, **params: Any) -> Any:
    async with db.session() as s:
        return (await s.execute(text(sql), params)).scalar()


async def rows(db: Database, sql: str, **params: Any) -> list[dict[str, Any]]:
    async with db.session() as s:
        return [dict(r._mapping) for r in (await s.execute(text(sql), params)).all()]


@pytest.fixture
async def sim_time_restored(db: Database, app: Any) -> AsyncIterator[None]:
    """Put the shared simulated clock back where the test found it."""
    async with db.session() as s:
        state = await sim_clock.get_state(s)
        before = state.now if state else None
    yield
    if before is not None:
        async with db.transaction() as s:
            await sim_clock.set_time(s, before)
    app.state.runtime.clock = fresh_sim_clock(db)


# ---- hand-made crawls ---------------------------------------------------------------------


def hand_post(handle: str, n: int, published: datetime, views: int = 1000) -> PostSnapshot:
    ppid = str((int(published.timestamp()) << 32) | n)
    return PostSnapshot(
        platform="tiktok",
        platform_post_id=ppid,
        url=f"https://www.tiktok.com/@{handle}/video/{ppid}",
        content_type="video",
        caption=f"post {n} by {handle}",
        published_at=published,
        duration_seconds=20.0,
        views=views,
        likes=views // 20,
        comments=views // 200,
        shares=views // 500,
        thumbnail_url=None,
    )


def hand_crawl(handle: str, posts: list[PostSnapshot], at: datetime) -> CrawlSnapshot:
    profile = ProfileSnapshot(
        platform="tiktok",
        handle=handle,
        platform_user_id=f"uid-{handle}",
        display_name=handle.title(),
        bio="a hand-made test profile",
        avatar_url=None,
        follower_count=5000,
    )
    return CrawlSnapshot(profile=profile, posts=tuple(posts), fetched_at=at)


def outlier_posts(handle: str, at: datetime, *, big: int = 20_000) -> list[PostSnapshot]:
    """Ten ordinary posts and one that does `big` views (a 7x outlier at the default)."""
    posts = [hand_post(handle, i, at - timedelta(days=20 - i)) for i in range(10)]
    return [*posts, hand_post(handle, 99, at - timedelta(days=1), views=big)]


async def ingest(db: Database, snap: CrawlSnapshot) -> str:
    async with db.transaction() as s:
        [pid] = await ingest_crawls(s, [snap])
    return pid
