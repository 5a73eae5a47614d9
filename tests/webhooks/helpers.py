"""Driving webhook deliveries in tests: the scheduler, endpoints, and reading the log (the
worker: tests.factories.jobs)."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import text

from sors.jobs.scheduler import Scheduler
from tests.factories import auth


async def tick(db, settings) -> dict[str, int]:
    return await Scheduler(db, settings).tick()


async def create_endpoint(client: httpx.AsyncClient, key: str, url: str, **body: Any) -> dict[str, Any]:
    r = await client.post("/api/v1/webhooks", json={"url": url, **body}, headers=auth(key))
    assert r.status_code == 200, r.text
    return r.json()


async def deliveries(client: httpx.AsyncClient, key: str, endpoint_id: str, **params: Any) -> list[dict]:
    r = await client.get(f"/api/v1/webhooks/{endpoint_id}/deliveries", params=params, headers=auth(key))
    assert r.status_code == 200, r.text
    return r.json()["results"]


async def count(db, sql: str, **params: Any) -> int:
    async with db.session() as s:
        return int((await s.execute(text(sql), params)).scalar() or 0)
