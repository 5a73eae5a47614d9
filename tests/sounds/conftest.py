"""A simulated catalog for sounds and hashtags: the first TikTok creators of four niches of
the demo world, crawled once, the usage rollup and boilerplate computed as the scheduler would.
The shared simulated clock is put back afterwards."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from sors.catalog.ingest.service import ingest_crawls
from sors.catalog.usage import boilerplate, rollup
from sors.kit.db import Database
from sors.platforms.sim import clock as sim_clock
from sors.platforms.sim.world import SimWorld
from tests.conftest import KEEP_TABLES
from tests.factories import auth, create_account, reset_tables
from tests.factories.world import fresh_sim_clock, set_time

WORLD = SimWorld(0)
AT = datetime(2026, 6, 12, tzinfo=UTC)
NICHE = "education"
NICHES = (NICHE, "finance", "travel", "comedy")
CREATORS = 8  # per niche


def niche_handles(niche: str, n: int) -> list[str]:
    handles = [h for p, h in WORLD.sample_handles(400) if p == "tiktok"]
    return [h for h in handles if WORLD.niche_of("tiktok", h).split(".")[0] == niche][:n]


@dataclass
class Niche:
    client: httpx.AsyncClient
    db: Database
    key: str
    account_id: str
    handles: list[str]

    @property
    def headers(self) -> dict[str, str]:
        return auth(self.key)


@pytest.fixture(scope="package")
async def niche(app: Any, db: Database) -> AsyncIterator[Niche]:
    await reset_tables(db, KEEP_TABLES)
    async with db.session() as s:
        state = await sim_clock.get_state(s)
    await set_time(db, AT)
    handles = [h for n in NICHES for h in niche_handles(n, CREATORS)]
    async with db.transaction() as s:
        await ingest_crawls(s, [WORLD.crawl("tiktok", h, AT) for h in handles])
    async with db.transaction() as s:
        while (await rollup.roll(s, AT, limit=100)).days:
            pass
        await boilerplate.recompute(s, AT)
    account_id, key = await create_account(db, credits=1_000)
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 5603))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield Niche(client, db, key, account_id, handles)
    await reset_tables(db, KEEP_TABLES)
    if state is not None:
        await set_time(db, state.now)
    app.state.runtime.clock = fresh_sim_clock(db)
