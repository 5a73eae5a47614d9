"""Scheduled refreshes are charged through the key that saved the tracking entry, within its
daily spend cap: a capped key cannot make the scheduler spend past its cap; what the cap
refuses pauses (`spend_cap`, with a `tracking.paused` event) and resumes the next UTC day;
a revoked key's entries pause instead of spending; and an account without a plan tracks at
most 25 profiles."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from tests.factories import auth, balance_and_ledger_sum, create_account
from tests.factories.world import rows, run_once, scalar, seed_profile, set_time
from tests.webhooks.conftest import loopback_allowed, receiver  # noqa: F401
from tests.webhooks.helpers import create_endpoint

pytestmark = pytest.mark.usefixtures("sim_time_restored")

T0 = datetime(2026, 5, 4, 6, 0, tzinfo=UTC)
DAY1 = T0 + timedelta(days=1, minutes=1)  # 2026-05-05 06:01: the first refreshes are due
DAY2 = datetime(2026, 5, 6, 0, 1, tzinfo=UTC)  # one minute into the next UTC day


async def _key(client: httpx.AsyncClient, owner: str, **body: object) -> dict:
    r = await client.post("/api/v1/keys", json={"name": "agent", **body}, headers=auth(owner))
    assert r.status_code == 201, r.text
    return r.json()


async def _track(client: httpx.AsyncClient, key: str, pid: str) -> dict:
    r = await client.post(
        "/api/v1/tracking", json={"profileId": pid, "frequency": "daily"}, headers=auth(key)
    )
    assert r.status_code == 200, r.text
    return r.json()


async def _entries(client: httpx.AsyncClient, key: str) -> dict[str, dict]:
    r = await client.get("/api/v1/tracking", headers=auth(key))
    return {e["profileId"]: e for e in r.json()["results"]}


async def _spent(db, key_id: str) -> dict[str, int]:
    """Credits charged through the key, per UTC day of the ledger."""
    got = await rows(
        db, "SELECT (created_at AT TIME ZONE 'UTC')::date AS day, -sum(delta) AS spent "
        "FROM ledger_entries WHERE key_id = :k AND kind = 'charge' GROUP BY 1", k=key_id)
    return {str(r["day"]): int(r["spent"]) for r in got}


async def test_a_capped_keys_tracking_stays_within_its_cap_pauses_and_resumes_next_day(
    client: httpx.AsyncClient, db, runtime, app, receiver  # noqa: F811
) -> None:
    await set_time(db, T0)
    pids = [await seed_profile(db, "tiktok", f"capped.track{i}", T0) for i in range(3)]
    account_id, owner = await create_account(db, credits=1000, email="owner@example.com")
    ep = await create_endpoint(client, owner, receiver.url, events=["tracking.paused"])
    agent = await _key(client, owner, dailyCreditCap=10)
    for pid in pids:
        entry = await _track(client, agent["apiKey"], pid)
        assert entry["keyId"] == agent["keyId"]

    # Day 1: three refreshes due, the key may spend 10 a day: one is charged through it, the
    # other two pause with the cap as their reason.
    await set_time(db, DAY1)
    first, _, _ = await run_once(runtime)
    assert first["monitoring.refresh"] == 1
    assert await _spent(db, agent["keyId"]) == {"2026-05-05": 10}
    assert await scalar(db, "SELECT spent FROM api_key_spend WHERE key_id = :k",
                        k=agent["keyId"]) == 10
    entries = await _entries(client, owner)
    paused = [p for p, e in entries.items() if e["pausedReason"] == "spend_cap"]
    assert len(paused) == 2 and all(entries[p]["nextCrawlAt"] is None for p in paused)
    [refreshed] = [p for p in pids if p not in paused]
    assert entries[refreshed]["pausedReason"] is None
    assert await balance_and_ledger_sum(db, account_id) == (990, 990)

    # One event per paused entry, saying why, through which key, and when it resumes.
    events = [r.verify(ep["secret"]) for r in receiver.of_type("tracking.paused")]
    assert sorted(e["data"]["profileId"] for e in events) == sorted(paused)
    assert all(e["data"]["reason"] == "spend_cap" and e["data"]["keyId"] == agent["keyId"]
               and e["data"]["resumesAt"] == "2026-05-06T00:00:00Z" for e in events)

    # Later that UTC day nothing resumes: the cap has not started again.
    await set_time(db, DAY1 + timedelta(hours=12))
    first, _, _ = await run_once(runtime)
    assert first["monitoring.resume_next_day"] == 0 and first["monitoring.refresh"] == 0

    # The next UTC day both resume (due at once); the cap pays one of them, the other pauses
    # again, and the entry refreshed yesterday finds the cap spent at its own time.
    await set_time(db, DAY2)
    first, _, _ = await run_once(runtime)
    assert first["monitoring.resume_next_day"] == 2 and first["monitoring.refresh"] == 1
    await set_time(db, DAY1 + timedelta(days=1))
    first, _, _ = await run_once(runtime)
    assert first["monitoring.refresh"] == 0
    assert await _spent(db, agent["keyId"]) == {"2026-05-05": 10, "2026-05-06": 10}
    entries = await _entries(client, owner)
    assert sorted(e["pausedReason"] or "" for e in entries.values()) == [
        "", "spend_cap", "spend_cap"]
    jobs = await rows(db, "SELECT payload->>'profileId' AS pid FROM jobs WHERE type = 'refresh'")
    assert {j["pid"] for j in jobs} - {refreshed}, "a paused entry was refreshed after resuming"
    assert await balance_and_ledger_sum(db, account_id) == (980, 980)


async def test_a_revoked_keys_entries_pause_and_another_key_takes_them_over(
    client: httpx.AsyncClient, db, runtime, app
) -> None:
    await set_time(db, T0)
    pid = await seed_profile(db, "tiktok", "revoked.track", T0)
    account_id, owner = await create_account(db, credits=100)
    agent = await _key(client, owner)
    await _track(client, agent["apiKey"], pid)
    r = await client.delete(f"/api/v1/keys/{agent['keyId']}", headers=auth(owner))
    assert r.status_code == 200, r.text

    # Nothing is charged through a revoked key: the entry pauses instead.
    await set_time(db, DAY1)
    first, ran, _ = await run_once(runtime)
    assert first["monitoring.refresh"] == 0 and ran == 0
    entry = (await _entries(client, owner))[pid]
    assert entry["pausedReason"] == "key_revoked" and entry["nextCrawlAt"] is None
    assert entry["keyId"] == agent["keyId"]
    assert await balance_and_ledger_sum(db, account_id) == (100, 100)
    await set_time(db, DAY2 + timedelta(days=1))  # days pass: it stays paused
    first, _, _ = await run_once(runtime)
    assert first["monitoring.refresh"] == 0
    assert (await _entries(client, owner))[pid]["pausedReason"] == "key_revoked"

    # Saving it again with a live key makes that key its payer and resumes it at once.
    [own] = (await client.get("/api/v1/keys", headers=auth(owner))).json()["results"]
    entry = await _track(client, owner, pid)
    assert entry["keyId"] == own["keyId"] and entry["pausedReason"] is None
    first, ran, _ = await run_once(runtime)
    assert first["monitoring.refresh"] == 1 and ran == 1
    [charge] = await rows(db, "SELECT key_id, delta FROM ledger_entries WHERE kind = 'charge'")
    assert charge == {"key_id": own["keyId"], "delta": -10}
    assert await balance_and_ledger_sum(db, account_id) == (90, 90)


async def test_an_account_without_a_plan_tracks_at_most_25_profiles(
    client: httpx.AsyncClient, db, settings
) -> None:
    assert settings.subscriptions.api_only_watchlist_limit == 25  # the default
    await set_time(db, T0)
    pids = [f"prf_watch{i:03d}" for i in range(26)]
    async with db.transaction() as s:
        from sqlalchemy import text

        for i, pid in enumerate(pids):
            await s.execute(text(
                "INSERT INTO profiles (id, platform, handle, last_crawled_at)"
                " VALUES (:i, 'tiktok', :h, :t)"), {"i": pid, "h": f"watch.{i}", "t": T0})
    _, key = await create_account(db, credits=0)
    for pid in pids[:25]:
        await _track(client, key, pid)
    r = await client.post("/api/v1/tracking", json={"profileId": pids[25]}, headers=auth(key))
    assert r.status_code == 403, r.text
    body = r.json()
    assert body["code"] == "plan_limit_reached" and body["limit"] == "watchlistLimit"
    assert body["limitValue"] == 25 and body["planId"] is None
    assert len(await _entries(client, key)) == 25
