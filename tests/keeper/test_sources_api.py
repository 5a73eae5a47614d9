"""GET /api/v1/sources: the operator's account sees each platform's source and checks (what
`sors doctor` says) and today's provider spend; any other account gets 404."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
from sqlalchemy import update

from sors.accounts.models import Account
from sors.catalog.ingest import spend
from sors.platforms.base import SourceRun
from sors.platforms.sim import clock as sim_clock
from tests.factories import auth, create_account


async def test_only_the_operator_sees_the_sources_and_the_days_spend(
    client: httpx.AsyncClient, db
) -> None:
    _, stranger = await create_account(db, credits=5)
    r = await client.get("/api/v1/sources", headers=auth(stranger))
    assert r.status_code == 404 and r.json()["code"] == "not_found"

    operator_id, key = await create_account(db, credits=5)
    async with db.transaction() as s:
        await s.execute(update(Account).where(Account.id == operator_id).values(is_operator=True))
        now = (await sim_clock.get_state(s)).now  # the service's "today" in simulation
        for n, cost in enumerate((0.25, 0.5)):
            await spend.record_run(s, SourceRun("apify", f"run{n}", cost, "SUCCEEDED", 10),
                                   job_id=None, platform="tiktok", handle="a.b", at=now)
        # yesterday's run is not today's spend
        await spend.record_run(s, SourceRun("apify", "old", 9.0, "SUCCEEDED", 10), job_id=None,
                               platform="tiktok", handle="a.b", at=datetime(2020, 1, 1, tzinfo=UTC))
    r = await client.get("/api/v1/sources", headers=auth(key))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["platformSource"] == "sim"
    assert [p["platform"] for p in body["platforms"]] == ["tiktok", "instagram", "youtube"]
    assert all(p["checks"] and p["reason"] for p in body["platforms"])
    assert body["spend"] == {"provider": "apify", "spentTodayUsd": 0.75, "runsToday": 2,
                             "dailyBudgetUsd": None}
    # Free: nothing charged.
    assert r.headers.get("x-credits-charged") in (None, "0")
