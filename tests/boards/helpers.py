"""Boards in tests: a catalog to save from, and boards made through the API."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx

from sors.kit.db import Database
from tests.factories import auth
from tests.factories.world import hand_crawl, ingest, outlier_posts, rows, scalar

T0 = datetime(2026, 7, 6, 10, 0, tzinfo=UTC)


async def catalog(db: Database, handle: str = "fit.anna") -> tuple[str, list[str]]:
    """A profile with eleven posts (one an outlier): (profile id, post ids best first)."""
    profile_id = await ingest(db, hand_crawl(handle, outlier_posts(handle, T0), T0))
    found = await rows(db, "SELECT id FROM posts WHERE profile_id = :p ORDER BY views DESC, id",
                       p=profile_id)
    return profile_id, [r["id"] for r in found]


async def create_board(client: httpx.AsyncClient, key: str, name: str = "Hooks") -> dict[str, Any]:
    r = await client.post("/api/v1/boards", json={"name": name}, headers=auth(key))
    assert r.status_code == 200, r.text
    return r.json()


async def save(client: httpx.AsyncClient, key: str, board_id: str, **body: Any) -> dict[str, Any]:
    r = await client.post(f"/api/v1/boards/{board_id}/items", json=body, headers=auth(key))
    assert r.status_code == 200, r.text
    return r.json()


async def count(db: Database, table: str) -> int:
    return int(await scalar(db, f"SELECT count(*) FROM {table}"))
