"""Rising posts of the whole catalog: the keeper looks at young posts early (a budget per
tick), so a breakout is found for a creator nobody tracks, with no account, job charge or
ledger row; without the budget, the same hours find nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest

from sors.keeper import status as keeper_status
from tests.factories import auth, create_account
from tests.factories.world import rows, run_once, set_time
from tests.rising.conftest import build
from tests.rising.test_api import ALERT_AT, BREAKOUT_AT, CREATOR

pytestmark = pytest.mark.usefixtures("sim_time_restored", "keeper_on", "clean")

# The scheduler's ticks after the breakout is published: past 1, 3, 6 and 12 hours of its
# age. The catalog has not seen it at the first: the creator's next post is due by its
# cadence then (sors.keeper.young).
TICKS = [BREAKOUT_AT + timedelta(hours=h, minutes=5) for h in (1, 3, 6, 12)]


async def _rising(client, db) -> list[dict]:
    _, key = await create_account(db, credits=100)
    r = await client.post("/api/v1/trends/rising", json={"platforms": ["tiktok"]},
                          headers=auth(key))
    assert r.status_code == 200, r.text
    return [p for p in r.json()["posts"] if p["handle"] == CREATOR]


async def _hours_after_the_breakout(db, runtime, monkeypatch, young_per_tick: int) -> None:
    # The creator's past (young-age crawls, its curve) up to 90 minutes before the breakout;
    # nobody tracks it or has an alert on it.
    await build(db, CREATOR, until=ALERT_AT)
    monkeypatch.setattr(runtime.settings.keeper, "young_refreshes_per_tick", young_per_tick)
    assert runtime.settings.keeper.enabled
    for at in TICKS:
        await set_time(db, at)
        await run_once(runtime)


async def test_a_breakout_is_found_for_a_creator_nobody_tracks(
    client, db, runtime, monkeypatch
) -> None:
    await _hours_after_the_breakout(db, runtime, monkeypatch, young_per_tick=100)
    # One young-post refresh at each tick (discovery meanwhile brings other creators).
    young = await rows(db, "SELECT enqueued_at FROM catalog_crawls "
                           "WHERE kind = 'young' AND handle = :h ORDER BY enqueued_at", h=CREATOR)
    assert [r["enqueued_at"] for r in young] == TICKS
    assert await rows(db, "SELECT 1 FROM jobs WHERE account_id IS NOT NULL "
                          "OR credits_charged <> 0") == []
    assert await rows(db, "SELECT 1 FROM tracked_profiles") == []
    [post] = await _rising(client, db)
    assert post["published_at"] == BREAKOUT_AT.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert post["projection"]["rising"] is True
    assert len(post["snapshots"]) >= 2

    # The operator sees the budget and what it did.
    async with db.session() as s:
        seen = await keeper_status.status(s, TICKS[-1], runtime.settings)
    y = seen["platforms"]["tiktok"]["young"]
    assert y["perTick"] == runtime.settings.keeper.young_refreshes_per_tick
    assert y["lastHour"] >= 1  # the tick past 12 h; the others are older than an hour


async def test_without_the_young_budget_the_same_hours_find_nothing(
    client, db, runtime, monkeypatch
) -> None:
    await _hours_after_the_breakout(db, runtime, monkeypatch, young_per_tick=0)
    assert await rows(db, "SELECT 1 FROM catalog_crawls WHERE kind = 'young'") == []
    assert await _rising(client, db) == []
