"""Plan limits through HTTP: the watchlist limit caps tracked profiles (`plan_limit_reached`
names the limit and the plan that lifts it); an upgrade lifts it; a downgrade pauses the
newest entries (nothing deleted) and an upgrade resumes them; the limits a 30-day API spend
earns appear when the spend crosses the plan's threshold and go when it falls."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from sors.billing import service as billing
from sors.billing.models import ChargeRequest
from tests.factories import auth, create_account
from tests.factories.world import (  # noqa: F401 - sim_time_restored is a fixture
    run_once,
    seed_profile,
    set_time,
    sim_time_restored,
)
from tests.subscriptions.test_local import status, subscribe

pytestmark = pytest.mark.usefixtures("sim_time_restored")

T0 = datetime(2026, 8, 3, 9, 0, tzinfo=UTC)


async def track(client: httpx.AsyncClient, key: str, pid: str) -> httpx.Response:
    return await client.post(
        "/api/v1/tracking", json={"profileId": pid, "frequency": "weekly"}, headers=auth(key)
    )


async def paused(client: httpx.AsyncClient, key: str) -> dict[str, str | None]:
    entries = (await client.get("/api/v1/tracking", headers=auth(key))).json()["results"]
    return {e["profileId"]: e["pausedReason"] for e in entries}


async def change(client: httpx.AsyncClient, key: str, plan: str) -> None:
    r = await client.post(
        "/api/v1/subscriptions/change", json={"planId": plan}, headers=auth(key)
    )
    assert r.status_code == 200, r.text


async def test_the_eleventh_profile_on_creator_is_refused_until_an_upgrade(
    client: httpx.AsyncClient, db, app
) -> None:
    await set_time(db, T0)
    pids = [await seed_profile(db, "tiktok", f"limit.{i}", T0) for i in range(11)]
    _, key = await create_account(db, credits=1000)
    await subscribe(client, key, "creator")
    for pid in pids[:10]:
        await set_time(db, T0 + timedelta(minutes=len(await paused(client, key))))
        assert (await track(client, key, pid)).status_code == 200
    r = await track(client, key, pids[10])
    assert r.status_code == 403, r.text
    problem = r.json()
    assert problem["code"] == "plan_limit_reached"
    assert (problem["limit"], problem["limitValue"], problem["planId"]) == (
        "watchlistLimit", 10, "creator"
    )
    assert problem["upgradePlanId"] == "pro" and "Pro plan lifts it" in problem["detail"]
    assert len(await paused(client, key)) == 10
    # Tracking an already tracked profile again (a new cadence) is no new entry.
    assert (await track(client, key, pids[0])).status_code == 200

    await change(client, key, "pro")
    assert (await track(client, key, pids[10])).status_code == 200

    # Down again: the newest entry pauses, nothing is deleted.
    await set_time(db, T0 + timedelta(hours=1))
    await change(client, key, "creator")
    states = await paused(client, key)
    assert len(states) == 11
    assert [p for p, reason in states.items() if reason] == [pids[10]]
    assert states[pids[10]] == "plan_limit"
    # Untracking one makes room: the paused one resumes.
    r = await client.request(
        "DELETE", "/api/v1/tracking", params={"profileId": pids[3]}, headers=auth(key)
    )
    assert r.status_code == 200
    assert set((await paused(client, key)).values()) == {None}
    assert (await track(client, key, pids[3])).status_code == 403  # full again

    # Up again: everything resumes, due at once.
    await change(client, key, "pro")
    assert (await track(client, key, pids[3])).status_code == 200
    await change(client, key, "creator")
    assert sum(1 for r in (await paused(client, key)).values() if r) == 1
    await change(client, key, "pro")
    entries = (await client.get("/api/v1/tracking", headers=auth(key))).json()["results"]
    assert all(e["pausedReason"] is None for e in entries)
    resumed = next(e for e in entries if e["profileId"] == pids[3])
    assert resumed["nextCrawlAt"] == "2026-08-03T10:00:00Z"


async def test_limits_earned_by_spend_come_and_go_with_the_30_day_spend(
    client: httpx.AsyncClient, db, runtime, app, settings
) -> None:
    start = datetime.now(UTC).replace(microsecond=0)
    await set_time(db, start)
    pids = [await seed_profile(db, "tiktok", f"spend.{i}", start) for i in range(2)]
    account_id, key = await create_account(db, credits=10_000)
    before = settings.subscriptions.api_only_watchlist_limit
    settings.subscriptions.api_only_watchlist_limit = 1
    try:
        assert (await track(client, key, pids[0])).status_code == 200
        r = await track(client, key, pids[1])
        assert r.status_code == 403 and r.json()["planId"] is None
        assert r.json()["upgradePlanId"] == "creator"

        # $60 of API calls in 30 days earns the Creator workspace.
        async with db.transaction() as s:
            await billing.charge(s, ChargeRequest(account_id, 6000, "search_outliers", start))
        s = await status(client, key)
        assert (s["appliedPlanId"], s["appliedBecause"], s["apiSpendUsd30d"]) == (
            "creator", "spend", 60.0
        )
        assert s["planId"] is None and s["limits"]["watchlistLimit"] == 10
        assert (await track(client, key, pids[1])).status_code == 200

        # 31 days on, the spend has left the window: back to the API-only limit, and the
        # daily check pauses the newest entry.
        await set_time(db, start + timedelta(days=31))
        s = await status(client, key)
        assert (s["appliedPlanId"], s["limits"]["watchlistLimit"]) == (None, 1)
        await run_once(runtime)
        states = await paused(client, key)
        assert states == {pids[0]: None, pids[1]: "plan_limit"}
    finally:
        settings.subscriptions.api_only_watchlist_limit = before


async def test_followed_profile_limit_caps_profiles_with_an_active_alert(
    client: httpx.AsyncClient, db, app, settings
) -> None:
    await set_time(db, T0)
    pids = [await seed_profile(db, "tiktok", f"follow.{i}", T0) for i in range(3)]
    _, key = await create_account(db, credits=1000, email="owner@example.com")
    settings.subscriptions.api_only_followed_profile_limit = 2
    try:
        for pid in pids[:2]:
            r = await client.post(
                "/api/v1/alerts", json={"profileId": pid, "email": "owner@example.com"},
                headers=auth(key),
            )
            assert r.status_code == 200, r.text
        # Another alert on a followed profile is no new followed profile.
        r = await client.post(
            "/api/v1/alerts", json={"profileId": pids[0], "email": "second@example.com"},
            headers=auth(key),
        )
        assert r.status_code == 200, r.text
        r = await client.post(
            "/api/v1/alerts", json={"profileId": pids[2], "email": "owner@example.com"},
            headers=auth(key),
        )
        assert r.status_code == 403 and r.json()["code"] == "plan_limit_reached"
        assert (r.json()["limit"], r.json()["limitValue"]) == ("followedProfileLimit", 2)
        await subscribe(client, key, "creator")  # 25 followed profiles
        r = await client.post(
            "/api/v1/alerts", json={"profileId": pids[2], "email": "owner@example.com"},
            headers=auth(key),
        )
        assert r.status_code == 200, r.text
    finally:
        settings.subscriptions.api_only_followed_profile_limit = None
