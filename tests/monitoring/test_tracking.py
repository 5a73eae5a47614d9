"""Tracking over HTTP: naming a profile, cadence, untracking, the updates feed, and the
scheduler's paid refreshes (charge, refund on failure, pause, resume, no double work)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from sors.catalog.ingest.service import ingest_crawls
from sors.jobs.scheduler import Scheduler
from sors.platforms.sim.world import SimWorld
from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.accounts import sim_now
from tests.factories.jobs import run_jobs_until_idle
from tests.factories.world import (
    hand_crawl,
    hand_post,
    rows,
    run_once,
    scalar,
    seed_profile,
    set_time,
)

pytestmark = pytest.mark.usefixtures("sim_time_restored")

T0 = datetime(2026, 5, 4, 6, 0, tzinfo=UTC)


async def test_track_by_id_handle_or_url_and_update_cadence(
    client: httpx.AsyncClient, db, app
) -> None:
    await set_time(db, T0)
    pid = await seed_profile(db, "tiktok", "track.me", T0)
    _, key = await create_account(db, credits=0)
    h = auth(key)

    [own_key] = (await client.get("/api/v1/keys", headers=h)).json()["results"]
    r = await client.post("/api/v1/tracking", json={"profileId": pid}, headers=h)
    assert r.status_code == 200, r.text
    entry = r.json()
    assert entry == {
        "profileId": pid,
        "platform": "tiktok",
        "handle": "track.me",
        "followerCount": entry["followerCount"],
        "frequency": "weekly",
        "nextCrawlAt": "2026-05-11T06:00:00Z",
        "lastCheckedAt": "2026-05-04T06:00:00Z",
        "pausedReason": None,
        "startedBy": "user",
        "keyId": own_key["keyId"],  # its refreshes are charged through the calling key
        "createdAt": "2026-05-04T06:00:00Z",
    }
    assert isinstance(entry["followerCount"], int)
    assert r.headers["x-credits-charged"] == "0"  # managing tracking is free

    # Again, by handle (with @) and by URL: the same entry, cadence updated.
    r = await client.post(
        "/api/v1/tracking",
        json={"platform": "tiktok", "handle": "@Track.Me", "frequency": "daily"},
        headers=h,
    )
    assert r.status_code == 200 and r.json()["frequency"] == "daily"
    assert r.json()["nextCrawlAt"] == "2026-05-05T06:00:00Z"
    r = await client.post(
        "/api/v1/tracking",
        json={"url": "https://www.tiktok.com/@track.me", "frequency": "every_3_days"},
        headers=h,
    )
    assert r.status_code == 200 and r.json()["frequency"] == "every_3_days"
    # A post URL names its owner too.
    post_url = await scalar(db, "SELECT url FROM posts WHERE profile_id = :p LIMIT 1", p=pid)
    r = await client.post("/api/v1/tracking", json={"url": post_url}, headers=h)
    assert r.status_code == 200 and r.json()["frequency"] == "weekly"

    listed = (await client.get("/api/v1/tracking", headers=h)).json()
    assert [e["profileId"] for e in listed["results"]] == [pid]


async def test_unknown_profiles_and_bad_input(client: httpx.AsyncClient, db, app) -> None:
    await set_time(db, T0)
    pid = await seed_profile(db, "youtube", "known.channel", T0)
    _, key = await create_account(db)
    h = auth(key)

    for body in (
        {"profileId": "prf_nope"},
        {"platform": "tiktok", "handle": "never.crawled"},
        {"url": "https://www.instagram.com/nobody.here/"},
    ):
        r = await client.post("/api/v1/tracking", json=body, headers=h)
        assert r.status_code == 404, body
        assert r.json()["code"] == "profile_not_found"
        assert "POST /api/v1/crawls" in r.json()["detail"]  # points to crawl_profile

    bad = [
        {},  # nothing names a profile
        {"platform": "tiktok"},  # handle missing
        {"handle": "known.channel"},  # platform missing
        {"platform": "tiktok", "handle": "bad handle!"},
        {"platform": "myspace", "handle": "tom"},
        {"profileId": pid, "frequency": "hourly"},
        {"profileId": 42},
        {"profileId": pid, "platform": "tiktok", "handle": "someone.else"},  # disagree
    ]
    for body in bad:
        r = await client.post("/api/v1/tracking", json=body, headers=h)
        if body.get("handle") == "someone.else":
            assert r.status_code == 404  # the handle names no stored profile
            continue
        assert r.status_code == 422, (body, r.text)
        assert r.json()["code"] == "validation_error"
    r = await client.post(
        "/api/v1/tracking", json={"url": "https://vm.tiktok.com/ZMabc/"}, headers=h
    )
    assert r.status_code == 422 and r.json()["code"] == "short_link_not_supported"
    r = await client.post("/api/v1/tracking", json={"url": "https://example.com/@x"}, headers=h)
    assert r.status_code == 422 and r.json()["code"] == "unsupported_url"
    assert (await client.post("/api/v1/tracking", json={"profileId": pid})).status_code == 401
    assert (await client.get("/api/v1/tracking", headers=h)).json() == {"results": []}


async def test_untrack_by_query_or_body(client: httpx.AsyncClient, db, app) -> None:
    await set_time(db, T0)
    pid = await seed_profile(db, "instagram", "untrack.me", T0)
    _, key = await create_account(db)
    _, other = await create_account(db)
    h = auth(key)
    await client.post("/api/v1/tracking", json={"profileId": pid}, headers=h)

    # Another account cannot untrack it (not monitored by that account).
    r = await client.delete(f"/api/v1/tracking?profileId={pid}", headers=auth(other))
    assert r.status_code == 404 and r.json()["code"] == "not_found"

    r = await client.delete(f"/api/v1/tracking?profileId={pid}", headers=h)
    assert r.status_code == 200 and r.json() == {"profileId": pid, "status": "untracked"}
    r = await client.delete(f"/api/v1/tracking?profileId={pid}", headers=h)
    assert r.status_code == 404 and r.json()["code"] == "not_found"

    await client.post("/api/v1/tracking", json={"profileId": pid}, headers=h)
    r = await client.request("DELETE", "/api/v1/tracking", json={"profileId": pid}, headers=h)
    assert r.status_code == 200 and r.json()["status"] == "untracked"
    r = await client.delete("/api/v1/tracking", headers=h)
    assert r.status_code == 422
    # The profile and its posts stay searchable.
    assert await scalar(db, "SELECT count(*) FROM posts WHERE profile_id = :p", p=pid) > 0


async def test_updates_feed_hands_out_each_new_post_once_oldest_first(
    client: httpx.AsyncClient, db, app
) -> None:
    await set_time(db, T0)
    handle = "feed.case"
    posts = [hand_post(handle, i, T0 - timedelta(days=10 - i)) for i in range(5)]
    async with db.transaction() as s:
        [pid] = await ingest_crawls(s, [hand_crawl(handle, posts, T0)])
    _, key = await create_account(db)
    h = auth(key)
    await client.post("/api/v1/tracking", json={"profileId": pid}, headers=h)
    # Posts stored before tracking started are not updates.
    assert (await client.get("/api/v1/tracking/updates", headers=h)).json() == {
        "results": [],
        "hasMore": False,
    }

    t1, t2 = T0 + timedelta(hours=5), T0 + timedelta(hours=9)
    posts += [hand_post(handle, 10 + i, T0 + timedelta(hours=i)) for i in range(3)]
    async with db.transaction() as s:
        await ingest_crawls(s, [hand_crawl(handle, posts, t1)])
    posts += [hand_post(handle, 20 + i, T0 + timedelta(hours=6 + i)) for i in range(2)]
    async with db.transaction() as s:
        await ingest_crawls(s, [hand_crawl(handle, posts, t2)])
    expected = [
        r["id"]
        for r in await rows(
            db,
            "SELECT id FROM posts WHERE profile_id = :p AND first_seen_at > :t "
            "ORDER BY first_seen_at, id",
            p=pid,
            t=T0,
        )
    ]
    assert len(expected) == 5

    r = await client.get("/api/v1/tracking/updates?limit=2", headers=h)
    body = r.json()
    assert r.status_code == 200 and body["hasMore"] is True
    assert [p["id"] for p in body["results"]] == expected[:2]
    flat = body["results"][0]
    # The flattened post shape: owner fields at the top level, no nested profile.
    assert flat["profile_id"] == pid and flat["handle"] == handle and "profile" not in flat
    assert {
        "follower_count",
        "display_name",
        "is_active",
        "outlier_scores",
        "first_seen_at",
    } <= set(flat)

    body = (await client.get("/api/v1/tracking/updates", headers=h)).json()
    assert [p["id"] for p in body["results"]] == expected[2:] and body["hasMore"] is False
    assert (await client.get("/api/v1/tracking/updates", headers=h)).json()["results"] == []
    # limit is clamped, not refused
    assert (await client.get("/api/v1/tracking/updates?limit=0", headers=h)).status_code == 200
    assert (await client.get("/api/v1/tracking/updates?limit=1000", headers=h)).status_code == 200


async def test_due_refresh_is_charged_queued_and_run(
    client: httpx.AsyncClient, db, runtime, app, settings
) -> None:
    await set_time(db, T0)
    pid = await seed_profile(db, "tiktok", "refresh.me", T0)
    account_id, key = await create_account(db, credits=25)
    h = auth(key)
    await client.post("/api/v1/tracking", json={"profileId": pid, "frequency": "daily"}, headers=h)

    first, ran, _ = await run_once(runtime)
    assert first["monitoring.refresh"] == 0 and ran == 0  # not due yet

    await set_time(db, T0 + timedelta(days=1, minutes=1))
    first, ran, second = await run_once(runtime)
    assert first["monitoring.refresh"] == 1 and ran == 1 and second["monitoring.refresh"] == 0
    job = (await rows(db, "SELECT * FROM jobs WHERE account_id = :a", a=account_id))[0]
    assert job["type"] == "refresh" and job["status"] == "completed", job
    assert job["credits_charged"] == 10
    st = (await client.get(f"/api/v1/jobs/{job['id']}", headers=h)).json()
    assert st["type"] == "refresh" and st["result"]["profileId"] == pid
    assert await balance_and_ledger_sum(db, account_id) == (15, 15)
    ledger = await rows(
        db,
        "SELECT skill, job_ref, delta FROM ledger_entries "
        "WHERE kind = 'charge' AND account_id = :a",
        a=account_id,
    )
    assert ledger == [{"skill": "tracking_refresh", "job_ref": job["id"], "delta": -10}]
    entry = (await client.get("/api/v1/tracking", headers=h)).json()["results"][0]
    assert entry["nextCrawlAt"] == "2026-05-06T06:01:00Z"
    assert entry["lastCheckedAt"] == "2026-05-05T06:01:00Z"

    # Ran again the same minute: nothing is due, nothing charged.
    first, ran, _ = await run_once(runtime)
    assert first["monitoring.refresh"] == 0 and ran == 0

    # Next day the balance (15) pays one more; the day after it cannot: paused, nothing runs.
    await set_time(db, T0 + timedelta(days=2, minutes=1))
    await run_once(runtime)
    await set_time(db, T0 + timedelta(days=3, minutes=1))
    first, ran, _ = await run_once(runtime)
    assert first["monitoring.refresh"] == 0 and ran == 0
    entry = (await client.get("/api/v1/tracking", headers=h)).json()["results"][0]
    assert entry["pausedReason"] == "insufficient_credits" and entry["nextCrawlAt"] is None
    assert await balance_and_ledger_sum(db, account_id) == (5, 5)
    await set_time(db, T0 + timedelta(days=5))
    first, ran, _ = await run_once(runtime)
    assert ran == 0 and first["monitoring.resume"] == 0
    assert await balance_and_ledger_sum(db, account_id) == (5, 5)

    # Credits arriving from anywhere (here an operator grant) resume it, due at once.
    from sors.billing import service as billing

    async with db.transaction() as s:
        await billing.grant(s, account_id, 100, reason="support", now=await sim_now(db))
    first, ran, _ = await run_once(runtime)
    assert first["monitoring.resume"] == 1 and first["monitoring.refresh"] == 1 and ran == 1
    entry = (await client.get("/api/v1/tracking", headers=h)).json()["results"][0]
    assert entry["pausedReason"] is None and entry["nextCrawlAt"] == "2026-05-10T06:00:00Z"
    assert await balance_and_ledger_sum(db, account_id) == (95, 95)


async def test_failed_refresh_is_refunded_once(
    client: httpx.AsyncClient, db, runtime, app, settings
) -> None:
    # A stored profile that the platform no longer has: its refresh crawl fails for good.
    await set_time(db, T0)
    async with db.transaction() as s:
        [pid] = await ingest_crawls(
            s, [hand_crawl("ghost.gone", [hand_post("ghost.gone", 1, T0 - timedelta(days=1))], T0)]
        )
    account_id, key = await create_account(db, credits=10)
    await client.post(
        "/api/v1/tracking", json={"profileId": pid, "frequency": "daily"}, headers=auth(key)
    )
    await set_time(db, T0 + timedelta(days=1))
    first, ran, _ = await run_once(runtime)
    assert first["monitoring.refresh"] == 1 and ran == 1
    job = (
        await rows(
            db,
            "SELECT status, error, credits_refunded FROM jobs WHERE account_id = :a",
            a=account_id,
        )
    )[0]
    assert job["status"] == "failed" and job["error"]["code"] == "profile_not_found"
    assert job["credits_refunded"] == 10
    assert await balance_and_ledger_sum(db, account_id) == (10, 10)
    kinds = await rows(
        db, "SELECT kind FROM ledger_entries WHERE account_id = :a ORDER BY id", a=account_id
    )
    assert [k["kind"] for k in kinds] == ["grant", "charge", "refund"]


async def test_two_schedulers_never_refresh_an_entry_twice(
    client: httpx.AsyncClient, db, runtime, app, settings
) -> None:
    await set_time(db, T0)
    handles = [f"race.case{i}" for i in range(6)]
    world = SimWorld(0)
    async with db.transaction() as s:
        pids = await ingest_crawls(s, [world.crawl("tiktok", h, T0) for h in handles])
    account_id, key = await create_account(db, credits=1000)
    for pid in pids:
        await client.post(
            "/api/v1/tracking", json={"profileId": pid, "frequency": "daily"}, headers=auth(key)
        )
    await set_time(db, T0 + timedelta(days=1))
    a, b = Scheduler(runtime), Scheduler(runtime)
    results = await asyncio.gather(a.tick(), b.tick(), a.tick(), b.tick())
    assert sum(r.get("monitoring.refresh", 0) for r in results) == len(pids)
    assert await scalar(db, "SELECT count(*) FROM jobs WHERE type = 'refresh'") == len(pids)
    assert await balance_and_ledger_sum(db, account_id) == (1000 - 10 * len(pids),) * 2
    assert await run_jobs_until_idle(runtime) == len(pids)
