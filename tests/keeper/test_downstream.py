"""What keeper crawls feed: new simulated creators from discovery, the tracked updates feed,
alert detection, and `sors catalog status` / the metrics."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from sors.jobs.scheduler import Scheduler
from sors.keeper.status import status
from sors.platforms.sim.discovery import discover
from sors.platforms.sim.world import SimWorld
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.jobs import run_jobs_until_idle
from tests.factories.world import hand_crawl, hand_post, outlier_posts, rows, scalar, set_time
from tests.keeper.helpers import CountingAdapter, profile_with_posts

pytestmark = pytest.mark.usefixtures("sim_time_restored", "keeper_on")

T0 = datetime(2026, 8, 3, 9, 0, tzinfo=UTC)


async def test_discovery_adds_simulated_creators_at_a_budgeted_rate(
    runtime, client, db, app, settings, monkeypatch
) -> None:
    monkeypatch.setattr(settings.keeper, "discoveries_per_hour", 4)
    # Discovery alone: no young-post refreshes of the creators it brings (tests/keeper/
    # test_young.py).
    monkeypatch.setattr(settings.keeper, "young_refreshes_per_tick", 0)
    await set_time(db, T0)
    sched = Scheduler(runtime)
    assert (await sched.tick())["catalog.discover"] == 0  # the first read starts the cursor
    later = T0 + timedelta(days=2)
    await set_time(db, later)
    surfaced = {p: discover(SimWorld(0), p, None, since=T0, now=later, limit=500)
                for p in ("tiktok", "instagram", "youtube")}
    assert all(surfaced.values())

    done = await sched.tick()
    assert done["catalog.discover"] == sum(len(v) for v in surfaced.values())
    assert done["catalog.keeper"] == 12  # 4 per platform this hour
    assert await run_jobs_until_idle(runtime, adapter=CountingAdapter()) == 12
    found = await rows(db, "SELECT platform, handle FROM profiles")
    for platform, handles in surfaced.items():
        mine = [r["handle"] for r in found if r["platform"] == platform]
        # The oldest-surfaced first, four of them, now ordinary catalog profiles.
        assert sorted(mine) == sorted(handles[:4])
    assert await scalar(db, "SELECT count(*) FROM jobs WHERE origin = 'catalog' "
                            "AND type = 'crawl' AND account_id IS NULL") == 12
    # The rest wait their turn: another hour, four more each.
    await set_time(db, later + timedelta(minutes=61))
    assert (await sched.tick())["catalog.keeper"] == 12


async def test_keeper_crawls_feed_the_updates_feed_and_alerts(
    runtime, client, db, app, settings
) -> None:
    handle = "keeper.feeds"
    await set_time(db, T0)
    # Ordinary posts, one of them recent: a hot profile, due again in 24 h.
    posts = [hand_post(handle, i, T0 - timedelta(days=20 - 2 * i)) for i in range(10)]
    from tests.factories.world import ingest

    pid = await ingest(db, hand_crawl(handle, posts, T0))
    owner = "watcher@example.com"
    account_id, key = await create_account(db, credits=50, email=owner)
    h = auth(key)
    r = await client.post("/api/v1/tracking", json={"profileId": pid}, headers=h)  # weekly
    assert r.status_code == 200, r.text
    r = await client.post("/api/v1/alerts", json={"email": owner, "profileId": pid,
                                                  "minOutlierScore": 3, "sendHour": 23},
                          headers=h)  # the digest is due later: the hit stays pending here
    assert r.status_code == 200, r.text
    money_before = await balance_and_ledger_sum(db, account_id)
    ledger_rows = await scalar(db, "SELECT count(*) FROM ledger_entries")

    # A day later only the keeper is due (the paid refresh is weekly); its crawl finds a
    # new outlier.
    t1 = T0 + timedelta(hours=25)
    await set_time(db, t1)
    sched = Scheduler(runtime)
    first = await sched.tick()
    assert first["catalog.keeper"] == 1 and first["monitoring.refresh"] == 0
    fresh = outlier_posts(handle, t1)

    adapter = CountingAdapter(snapshots=lambda p, hd, now: hand_crawl(hd, [*posts, *fresh], now))
    assert await run_jobs_until_idle(runtime, adapter=adapter) == 1
    [job] = await rows(db, "SELECT origin, status, result FROM jobs WHERE type = 'refresh'")
    assert job["origin"] == "catalog" and job["status"] == "completed"
    assert job["result"]["newPosts"] == len(fresh)
    second = await sched.tick()
    assert second["alerts.detect"] >= 1

    r = await client.get("/api/v1/alerts", headers=h)
    [alert] = r.json()["results"]
    assert alert["pendingHits"] >= 1
    r = await client.get("/api/v1/tracking/updates", headers=h)
    got = {p["platform_post_id"] for p in r.json()["results"]}
    assert got == {p.platform_post_id for p in fresh}
    # The operator's crawl cost the account nothing.
    assert await balance_and_ledger_sum(db, account_id) == money_before
    assert await scalar(db, "SELECT count(*) FROM ledger_entries") == ledger_rows


async def test_catalog_status_and_metrics(runtime, client, db, app, settings) -> None:
    await set_time(db, T0)
    for i in range(3):
        await profile_with_posts(db, f"status.hot{i}", T0, [1])
    await profile_with_posts(db, "status.quiet", T0, [200])
    t1 = T0 + timedelta(days=2)
    await set_time(db, t1)
    await Scheduler(runtime).tick()
    async with db.session() as s:
        st = await status(s, t1, settings)
    tt = st["platforms"]["tiktok"]
    assert tt["tiers"]["hot"]["profiles"] == 3 and tt["tiers"]["hot"]["withinTarget"] == 0
    assert tt["tiers"]["silent"] == {"profiles": 1, "withinTarget": 1, "share": 1.0,
                                     "targetHours": 336.0, "oldest": "2026-08-03T09:00:00Z"}
    assert tt["lastHour"]["pending"] == 3 and tt["budget"]["usedLastHour"] == 3
    assert tt["budget"]["perHour"] == 5000

    await run_jobs_until_idle(runtime, adapter=CountingAdapter())
    r = await client.get("/metrics")
    body = r.text
    assert 'sors_catalog_staleness_seconds_count{platform="tiktok"} 4.0' in body
    # Three just crawled (age 0), the quiet one 2 days old.
    assert 'sors_catalog_staleness_seconds_bucket{le="3600",platform="tiktok"} 3.0' in body
    assert 'sors_catalog_keeper_crawls_last_hour{outcome="completed",platform="tiktok"} 3.0' in body
    assert 'sors_catalog_keeper_crawls_total{outcome="crawled",platform="tiktok"}' in body
