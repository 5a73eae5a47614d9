"""The demo's world build (sors.demo.worldbuild) against real PostgreSQL: it builds the
planned world at the plan's moment whatever the simulated clock says, resumes with only what
is missing, grows without touching what is there, keeps a profile someone crawled first, and
yields to another builder."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text

from sors.catalog.ingest.service import ingest_crawls
from sors.demo import worldbuild
from sors.kit.db import Database
from sors.platforms.base import PLATFORMS
from sors.platforms.sim import clock as sim_clock
from sors.platforms.sim.world import SimWorld

pytestmark = pytest.mark.usefixtures("clean")

SEED = 5
AT = datetime(2026, 9, 22, 10, tzinfo=UTC)


def _first_crawls(profiles: int) -> dict[tuple[str, str], datetime]:
    """When the build first crawls each planned profile: the oldest HISTORY crawl, or a
    watched creator's first young-post refresh."""
    world, order = SimWorld(SEED), worldbuild._order(SEED, profiles, AT)
    return {(p, h): worldbuild.crawl_times(world, p, h, AT, watch=(p, h) in order.watched)[0]
            for p, h in order.handles}


async def _profiles(db: Database) -> dict[tuple[str, str], tuple[str, datetime, datetime]]:
    async with db.session() as s:
        rows = await s.execute(text(
            "SELECT platform, handle, id, first_seen_at, last_crawled_at FROM profiles"))
    return {(r[0], r[1]): (r[2], r[3], r[4]) for r in rows}


async def test_builds_at_the_plans_moment_resumes_and_grows(db: Database) -> None:
    async with db.transaction() as s:
        await sim_clock.ensure_state(s, seed=SEED, at=AT)
        await sim_clock.advance(s, timedelta(days=5))  # the user moved the clock meanwhile
        planned = await worldbuild.plan(s, seed=SEED, profiles=6, at=AT)
    assert (planned.ready, planned.complete) == (0, False)

    seen: list[int] = []
    built = await worldbuild.build(db, progress=lambda st: seen.append(st.ready))
    assert built is not None and built.complete and built.ready == 6
    assert seen[0] == 0 and seen[-1] == 6 and seen == sorted(seen)
    first = await _profiles(db)
    assert set(first) == set(SimWorld(SEED).sample_handles(6))
    assert {k: (f, c) for k, (_, f, c) in first.items()} == {
        k: (t, AT) for k, t in _first_crawls(6).items()}

    again = await worldbuild.build(db)  # nothing missing: nothing crawled again
    assert again is not None and again.complete and again.ready == 6
    assert await _profiles(db) == first

    grown = await worldbuild.build(db, replan=(SEED, 9))
    assert grown is not None and grown.complete and (grown.ready, grown.profiles) == (9, 9)
    now = await _profiles(db)
    assert set(now) == set(SimWorld(SEED).sample_handles(9))
    assert {k: now[k] for k in first} == first  # the first six untouched
    assert {k: (f, c) for k, (_, f, c) in now.items()} == {
        k: (t, AT) for k, t in _first_crawls(9).items()}


async def test_a_profile_crawled_before_the_build_reaches_it_is_kept(db: Database) -> None:
    world = SimWorld(SEED)
    platform, handle = world.sample_handles(4)[-1]
    later = AT + timedelta(days=1)
    async with db.transaction() as s:
        await ingest_crawls(s, [world.crawl(platform, handle, later)])  # a user's crawl
        await worldbuild.plan(s, seed=SEED, profiles=4, at=AT)
    built = await worldbuild.build(db)
    assert built is not None and built.complete and built.ready == 4
    profiles = await _profiles(db)
    assert len(profiles) == 4
    assert profiles[(platform, handle)][1:] == (later, later)


async def test_another_builder_at_work_is_waited_for_or_left_alone(db: Database) -> None:
    async with db.transaction() as s:
        await worldbuild.plan(s, seed=SEED, profiles=2, at=AT)
    async with db.engine.connect() as other:
        await other.execute(text("SELECT pg_advisory_lock(:k)"), {"k": worldbuild._LOCK})
        assert await worldbuild.build(db, wait=False) is None
        await other.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": worldbuild._LOCK})
    built = await worldbuild.build(db, wait=False)
    assert built is not None and built.complete


async def test_nothing_planned_builds_nothing(db: Database) -> None:
    assert await worldbuild.build(db) is None
    assert await _profiles(db) == {}


def test_the_showcase_comes_first_and_covers_every_platform_then_the_watched_creators() -> None:
    order = worldbuild._order(0, 2000, AT)
    assert sorted(order.handles) == sorted(SimWorld(0).sample_handles(2000))
    showcase = order.handles[: order.first]
    assert 0 < order.first <= 2 * len(PLATFORMS)
    assert {p for p, _ in showcase} == set(PLATFORMS)
    # The watched creators (young-post refreshes) next, a few, none of the showcase.
    watched = order.handles[order.first : order.first + len(order.watched)]
    assert set(watched) == order.watched and 0 < len(watched) <= 12
