"""A small simulated history for rising posts: two creator crawled the way a monitored
creator's young posts are (at about 1, 3, 6, 12, 24, 48 and 72 hours of each post's age, and
at 7 days), with the creator curves recomputed after every crawl as the
scheduler would. Built once for the package; the `client` fixture's truncation is avoided
by a package-scoped client, as tests/catalog does."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from sors.catalog.ingest import curves
from sors.catalog.ingest.service import ingest_crawls
from sors.kit.db import Database
from sors.platforms.sim.clock import set_time
from sors.platforms.sim.world import SimWorld
from tests.conftest import KEEP_TABLES
from tests.factories import auth, create_account, reset_tables

WORLD = SimWorld(0)
# rise.t245 (TikTok, a post every ~1.1 days): late take-offs published on 28 May, 4 and
# 7 June, a fading spike on 10 June.
HANDLE = "rise.t245"
START = datetime(2026, 5, 16, tzinfo=UTC)
END = datetime(2026, 6, 12, 12, tzinfo=UTC)
AGES_HOURS = (1.1, 3.1, 6.1, 12.1, 24.1, 48.1, 72.1, 168.1)


def crawl_times(handle: str) -> list[datetime]:
    """When the creator is crawled: at each age of AGES_HOURS of every post since START."""
    snap = WORLD.crawl("tiktok", handle, END)
    times = {END}
    for p in snap.posts:
        if p.published_at < START:
            continue
        for h in AGES_HOURS:
            at = p.published_at + timedelta(hours=h)
            if at <= END:
                times.add(at.replace(microsecond=0))
    return sorted(times)


_STATE = text("""
SELECT p.platform_post_id, p.extra ->> 'sim_shape' AS shape,
       (p.extra ->> 'sim_slot')::int AS slot, p.published_at, p.views,
       p.rising, p.rising_score, p.projection
FROM posts p WHERE p.projection IS NOT NULL
""")


async def build(db: Database, handle: str, until: datetime = END) -> list[dict[str, Any]]:
    """Crawl the creator at each of its crawl times up to `until`; returns every projected
    post's state after each crawl (with `at`, the crawl time)."""
    timeline: list[dict[str, Any]] = []
    for at in crawl_times(handle):
        if at > until:
            break
        async with db.transaction() as s:
            await ingest_crawls(s, [WORLD.crawl("tiktok", handle, at)])
        async with db.transaction() as s:
            await curves.refresh(s, limit=100)
        async with db.session() as s:
            timeline += [{**r._mapping, "at": at} for r in (await s.execute(_STATE)).all()]
    return timeline


@dataclass
class History:
    client: httpx.AsyncClient
    db: Database
    app: Any
    key: str
    account_id: str
    timeline: list[dict[str, Any]]

    @property
    def headers(self) -> dict[str, str]:
        return auth(self.key)

    async def rows(self, sql: str, **params: Any) -> list[dict[str, Any]]:
        async with self.db.session() as s:
            return [dict(r._mapping) for r in (await s.execute(text(sql), params)).all()]


@pytest.fixture(scope="package")
async def history(app: Any, db: Database) -> AsyncIterator[History]:
    await reset_tables(db, KEEP_TABLES)
    async with db.transaction() as s:
        await set_time(s, END)
    timeline = await build(db, HANDLE)
    account_id, key = await create_account(db, credits=100_000)
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 5602))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield History(client, db, app, key, account_id, timeline)
    await reset_tables(db, KEEP_TABLES)
