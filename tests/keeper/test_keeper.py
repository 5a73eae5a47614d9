"""The catalog keeper: tiers, most-overdue-first, the per-platform budget, no duplicate
refresh under two schedulers, no ledger rows, and a paid crawl never running beside a
keeper crawl of the same profile."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker

from sors.catalog.ingest.freshness import Policy
from sors.jobs.scheduler import Scheduler
from sors.keeper import service as keeper
from tests.factories import auth, create_account
from tests.factories.jobs import job_worker, run_jobs_until_idle
from tests.factories.world import rows, scalar, seed_profile, set_time
from tests.keeper.helpers import CountingAdapter, profile_with_posts

pytestmark = pytest.mark.usefixtures("sim_time_restored", "keeper_on")

T0 = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)


async def _tiers(db) -> dict[str, str]:
    return {r["handle"]: r["catalog_tier"] for r in await rows(
        db, "SELECT handle, catalog_tier FROM profiles")}


async def test_tiers_from_each_crawl_and_most_overdue_first(client, db, app, settings) -> None:
    await set_time(db, T0)
    await profile_with_posts(db, "hot.recent", T0, [2, 10, 20])
    await profile_with_posts(db, "plain.active", T0, [20, 40, 60])
    await profile_with_posts(db, "quiet.one", T0, [100, 120])
    gone = await profile_with_posts(db, "gone.away", T0, [3])
    async with db.transaction() as s:
        from sors.catalog.ingest.freshness import deactivate

        await deactivate(s, gone, T0)
    # An outlier published in the last 30 days makes a profile hot too.
    from tests.factories.world import hand_crawl, hand_post, ingest

    posts = [hand_post("outlier.maker", i, T0 - timedelta(days=15 + i)) for i in range(8)]
    posts.append(hand_post("outlier.maker", 99, T0 - timedelta(days=12), views=50_000))
    await ingest(db, hand_crawl("outlier.maker", posts, T0))
    assert await _tiers(db) == {
        "hot.recent": "hot", "outlier.maker": "hot", "plain.active": "active",
        "quiet.one": "silent", "gone.away": "inactive",
    }

    async def due_at(at: datetime) -> list[tuple[str, str]]:
        async with db.session() as s:
            found = await keeper.overdue(s, "tiktok", at, Policy.from_settings(settings), 10,
                                         simulated=True)
        return [(d.handle, d.tier) for d in found]

    assert await due_at(T0 + timedelta(hours=23)) == []
    hot = await due_at(T0 + timedelta(hours=25))
    assert sorted(hot) == [("hot.recent", "hot"), ("outlier.maker", "hot")]
    # Four days on, the hot ones are 3 days late and the active one 1 day: hot first.
    four = await due_at(T0 + timedelta(days=4))
    assert [t for _, t in four] == ["hot", "hot", "active"]
    # 31 days on: every tier is due, in order of lateness (hot 30 d, active 28 d, silent
    # 17 d, inactive 1 d).
    month = await due_at(T0 + timedelta(days=31))
    assert [t for _, t in month] == ["hot", "hot", "active", "silent", "inactive"]
    async with db.session() as s:
        top2 = await keeper.overdue(s, "tiktok", T0 + timedelta(days=31),
                                    Policy.from_settings(settings), 2, simulated=True)
    assert {d.tier for d in top2} == {"hot"}

    # Operator settings change the targets at once: active every 12 h.
    settings.keeper.target_active_hours = 12
    try:
        assert ("plain.active", "active") in await due_at(T0 + timedelta(hours=13))
    finally:
        settings.keeper.target_active_hours = 72


async def test_budget_per_platform_per_hour_and_no_ledger(runtime, client, db, app, settings,
                                                          monkeypatch) -> None:
    monkeypatch.setattr(settings.keeper, "crawls_per_hour_tiktok", 3)
    monkeypatch.setattr(settings.keeper, "crawls_per_hour_youtube", 10)
    monkeypatch.setattr(settings.keeper, "discovery", False)  # refreshes only, here
    await set_time(db, T0)
    for i in range(5):
        await profile_with_posts(db, f"budget.tt{i}", T0, [1, 5])
    for handle in ("budget-yt-a", "budget-yt-b"):
        await seed_profile(db, "youtube", handle, T0)
    _, key = await create_account(db, credits=100)
    ledger_before = await scalar(db, "SELECT count(*) FROM ledger_entries")

    await set_time(db, T0 + timedelta(days=2))
    sched = Scheduler(runtime)
    first = await sched.tick()
    assert first["catalog.keeper"] == 5
    per = {r["platform"]: r["n"] for r in await rows(
        db, "SELECT payload->>'platform' AS platform, count(*) AS n FROM jobs GROUP BY 1")}
    assert per == {"tiktok": 3, "youtube": 2}
    jobs = await rows(db, "SELECT type, origin, account_id, credits_charged FROM jobs")
    assert {(j["type"], j["origin"], j["account_id"], j["credits_charged"]) for j in jobs} == {
        ("refresh", "catalog", None, 0)}

    # Within the same hour nothing more for TikTok, even after its jobs ran.
    assert await run_jobs_until_idle(runtime, adapter=CountingAdapter()) == 5
    await set_time(db, T0 + timedelta(days=2, minutes=59))
    assert (await sched.tick())["catalog.keeper"] == 0
    # An hour after the first three, the other two.
    await set_time(db, T0 + timedelta(days=2, hours=1, minutes=1))
    assert (await sched.tick())["catalog.keeper"] == 2
    assert await scalar(db, "SELECT count(*) FROM jobs WHERE payload->>'platform' = 'tiktok'") == 5

    assert await scalar(db, "SELECT count(*) FROM ledger_entries") == ledger_before
    r = await client.get("/api/v1/credits", headers=auth(key))
    assert r.json()["balance"] == 100


async def test_two_schedulers_never_queue_one_refresh_twice(
    runtime, client, db, app, settings
) -> None:
    await set_time(db, T0)
    for i in range(30):
        await profile_with_posts(db, f"twice.{i}", T0, [1])
    now = T0 + timedelta(days=2)
    await set_time(db, now)
    maker = async_sessionmaker(db.engine, expire_on_commit=False, autoflush=False)
    # Two keepers at once, without the scheduler's tick lock, and two whole ticks at once.
    passes = await asyncio.gather(
        keeper.keep(maker, now, settings), keeper.keep(maker, now, settings),
        Scheduler(runtime).tick(), Scheduler(runtime).tick(),
    )
    queued = sum(p["tiktok"].refreshes for p in passes[:2]) + sum(
        t.get("catalog.keeper", 0) for t in passes[2:])
    assert queued == 30
    dupes = await rows(db, "SELECT target, count(*) AS n FROM jobs GROUP BY target "
                           "HAVING count(*) > 1")
    assert dupes == []
    assert await scalar(db, "SELECT count(*) FROM catalog_crawls") == 30


async def test_a_paid_refresh_and_a_keeper_crawl_of_one_profile_fetch_once(
    runtime, client, db, app, settings
) -> None:
    await set_time(db, T0)
    pid = await seed_profile(db, "tiktok", "shared.target", T0)
    _, key = await create_account(db, credits=100)
    r = await client.post("/api/v1/tracking", json={"profileId": pid, "frequency": "daily"},
                          headers=auth(key))
    assert r.status_code == 200, r.text

    # The keeper queues first; the paid refresh comes due right after (another tick).
    now = T0 + timedelta(days=1, hours=1)
    await set_time(db, now)
    maker = async_sessionmaker(db.engine, expire_on_commit=False, autoflush=False)
    assert (await keeper.keep(maker, now, settings))["tiktok"].refreshes == 1
    assert (await Scheduler(runtime).tick())["monitoring.refresh"] == 1
    jobs = {j["origin"]: j for j in await rows(db, "SELECT id, origin, status FROM jobs")}
    assert set(jobs) == {"catalog", "monitoring"}

    # Two workers take both jobs at once; the platform is asked once.
    adapter = CountingAdapter(delay=0.5)
    w1, w2 = job_worker(runtime, adapter=adapter), job_worker(runtime, adapter=adapter)
    await asyncio.gather(w1.run_one(), w2.run_one())
    assert adapter.fetches == [("tiktok", "shared.target")]
    done = {j["origin"]: j for j in await rows(
        db, "SELECT origin, status, result, credits_charged, credits_refunded FROM jobs")}
    assert done["monitoring"]["status"] == "completed"
    assert done["monitoring"]["result"]["profileId"] == pid
    monitoring = done["monitoring"]
    assert (monitoring["credits_charged"], monitoring["credits_refunded"]) == (10, 0)
    assert done["catalog"]["status"] == "completed"
    assert done["catalog"]["credits_charged"] == 0

    # And the keeper queues nothing for a profile whose paid refresh is open.
    later = now + timedelta(days=2)
    await set_time(db, later)
    assert (await Scheduler(runtime).tick())["monitoring.refresh"] == 1
    assert (await keeper.keep(maker, later, settings))["tiktok"].refreshes == 0


async def test_a_keeper_crawl_that_finds_the_profile_gone_deactivates_it(
    runtime, client, db, app, settings
) -> None:
    await set_time(db, T0)
    pid = await profile_with_posts(db, "vanished.one", T0, [1, 3])
    await set_time(db, T0 + timedelta(days=2))
    await Scheduler(runtime).tick()

    def gone(platform, handle, now):
        from sors.platforms.base import ProfileNotFound

        raise ProfileNotFound("no such profile")

    assert await run_jobs_until_idle(runtime, adapter=CountingAdapter(snapshots=gone)) == 1
    [p] = await rows(db, "SELECT is_active, catalog_tier FROM profiles WHERE id = :i", i=pid)
    assert (p["is_active"], p["catalog_tier"]) == (False, "inactive")
    [job] = await rows(db, "SELECT status, result FROM jobs")
    assert job["status"] == "completed" and job["result"]["skipped"] == "profile_not_found"


async def test_the_simulated_keeper_never_refreshes_an_imported_creator(db, settings,
                                                                        clean) -> None:
    """An imported real creator cannot be reached from the simulated world: refreshing it
    there would invent posts and mark the real ones deleted."""
    from dataclasses import replace

    from tests.factories.world import hand_crawl, hand_post, ingest

    at = T0
    real = replace(hand_crawl("imported.creator", [hand_post("imported.creator", 1, at)], at),
                   source="import")
    await ingest(db, real)
    async with db.session() as s:
        late = at + timedelta(days=60)
        simulated = await keeper.overdue(s, "tiktok", late, Policy.from_settings(settings), 50,
                                         simulated=True)
        live = await keeper.overdue(s, "tiktok", late, Policy.from_settings(settings), 50,
                                    simulated=False)
    assert "imported.creator" not in [d.handle for d in simulated]
    assert "imported.creator" in [d.handle for d in live]


async def test_the_keeper_stops_at_the_providers_daily_budget(db, settings, clean) -> None:
    """Live, with TikTok on the Apify source: once today's runs cost the budget, the keeper
    queues no TikTok crawl until the next UTC day; other platforms are not held back."""
    from dataclasses import replace

    from sors.catalog.ingest import spend
    from sors.platforms.base import SourceRun
    from tests.factories.world import hand_crawl, hand_post, ingest

    live = settings.with_values(**{
        "platform_source": "live", "apify_token": "apify_api_x", "apify_daily_usd_budget": 1.0,
        "youtube_source": "web"})
    from tests.conftest import KEEP_TABLES
    from tests.factories import reset_tables

    await reset_tables(db, KEEP_TABLES)  # earlier tests here leave profiles behind
    for platform_handle in ("imported.one", "imported.two"):
        await ingest(db, replace(hand_crawl(platform_handle, [hand_post(platform_handle, 1, T0)],
                                            T0), source="import"))
    later = T0 + timedelta(days=40)
    policy = Policy.from_settings(live)

    async def keep() -> int:
        async with db.transaction() as s:
            return (await keeper.keep_platform(s, "tiktok", later, live, policy)).refreshes

    async with db.transaction() as s:
        await spend.record_run(s, SourceRun("apify", "r1", 0.6, "SUCCEEDED", 35), job_id=None,
                               platform="tiktok", handle="a.b", at=later - timedelta(hours=1))
        # Yesterday's spend does not count against today's budget.
        await spend.record_run(s, SourceRun("apify", "r0", 5.0, "SUCCEEDED", 35), job_id=None,
                               platform="tiktok", handle="a.b", at=later - timedelta(days=1))
        assert not await keeper.over_provider_budget(s, "tiktok", later, live)
    async with db.transaction() as s:
        await spend.record_run(s, SourceRun("apify", "r2", 0.4, "FAILED", 0), job_id=None,
                               platform="tiktok", handle="a.b", at=later - timedelta(minutes=5))
    assert await keep() == 0  # $1.00 spent today: at the budget
    async with db.transaction() as s:
        assert await keeper.over_provider_budget(s, "tiktok", later, live)
        # Without a budget, or on a platform not sourced from the provider: not held back.
        assert not await keeper.over_provider_budget(s, "youtube", later, live)
        assert not await keeper.over_provider_budget(
            s, "tiktok", later, live.with_values(**{"apify_daily_usd_budget": None}))
    assert await keep() == 0
    async with db.transaction() as s:
        nothing = await keeper.over_provider_budget(s, "tiktok", later + timedelta(days=1), live)
    assert nothing is False
    next_day = later + timedelta(days=1)
    async with db.transaction() as s:
        queued = await keeper.keep_platform(s, "tiktok", next_day, live, policy)
    assert queued.refreshes == 2  # a new UTC day: the two imported creators are refreshed
