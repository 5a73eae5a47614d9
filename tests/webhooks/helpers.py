"""Driving webhook deliveries in tests: the scheduler, endpoints, and reading the log (the
worker: tests.factories.jobs)."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import text

from sors.jobs.scheduler import Scheduler
from tests.factories import auth


async def tick(runtime) -> dict[str, int]:
    return await Scheduler(runtime).tick()


async def create_endpoint(
    client: httpx.AsyncClient, key: str, url: str, **body: Any
) -> dict[str, Any]:
    r = await client.post("/api/v1/webhooks", json={"url": url, **body}, headers=auth(key))
    assert r.status_code == 200, r.text
    return r.json()


async def deliveries(
    client: httpx.AsyncClient, key: str, endpoint_id: str, **params: Any
) -> list[dict]:
    r = await client.get(
        f"/api/v1/webhooks/{endpoint_id}/deliveries", params=params, headers=auth(key))
    assert r.status_code == 200, r.text
    return r.json()["results"]


async def count(db, sql: str, **params: Any) -> int:
    async with db.session() as s:
        return int((await s.execute(text(sql), params)).scalar() or 0)


async def alert_and_tracking(client: httpx.AsyncClient, db, app, key: str) -> dict[str, Any]:
    """The alerts scenario's world at its start (the clock set there): an alert on a creator
    who posts an outlier by day 1, 12:00 UTC, and the tracking of one who publishes by then.
    Returns the handles, their profile ids and the alert's id."""
    from tests.alerts.scenario import T0, day_at, pick_new_posts, pick_outlier
    from tests.factories.world import seed_profile, set_time

    outlier, feed = pick_outlier(), pick_new_posts("feed.a", day_at(1, 12))
    await set_time(db, T0)
    pids = {h: await seed_profile(db, "tiktok", h, T0) for h in (outlier, feed)}
    r = await client.post("/api/v1/alerts", json={
        "email": "owner@example.com", "platform": "tiktok", "handle": outlier,
        "timezone": "UTC", "sendHour": 23,
    }, headers=auth(key))
    assert r.status_code == 200, r.text
    alert_id = r.json()["alert"]["alertId"]
    r = await client.post("/api/v1/tracking", json={"profileId": pids[feed], "frequency": "daily"},
                          headers=auth(key))
    assert r.status_code == 200, r.text
    return {"outlier": outlier, "feed": feed, "pids": pids, "alertId": alert_id}
