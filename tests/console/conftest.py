"""A small simulated world for the console tests, crawled five times over three weeks so posts
have a growth history, plus a console client that keeps its cookies like a browser."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from sors.catalog.trends.service import clear_trending_cache
from sors.config import Settings
from sors.demo.seed import seed_world
from sors.kit.db import Database
from sors.platforms.sim.clock import ensure_state, set_time
from tests.conftest import KEEP_TABLES
from tests.factories import create_account, reset_tables

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
PROFILES = 12


@dataclass
class ConsoleWorld:
    app: Any
    db: Database
    now: datetime


async def seed_console_world(db: Database, settings: Settings) -> None:
    for days_ago in (21, 14, 7, 3, 0):  # five crawls: recent posts get a growth curve
        at = NOW - timedelta(days=days_ago)
        async with db.transaction() as s:
            await set_time(s, at)
            # The world's seed lives with the simulated clock: workers crawl and fetch media
            # from that same world, so the posts seeded here exist for them too.
            seed = (await ensure_state(s)).seed
        await seed_world(db, settings=settings, profiles=PROFILES, seed=seed,
                         now=at)
    clear_trending_cache()


@pytest.fixture(scope="package")
async def world(app: Any, db: Database) -> AsyncIterator[ConsoleWorld]:
    await seed_console_world(db, app.state.runtime.settings)
    yield ConsoleWorld(app, db, NOW)
    await reset_tables(db, KEEP_TABLES)
    await app.state.limiter.reset()


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([0-9a-f]+)"', html)
    assert found, "no CSRF field on the page"
    return found.group(1)


@pytest.fixture
async def account(world: ConsoleWorld) -> tuple[str, str]:
    return await create_account(world.db, credits=1000)


@pytest.fixture
async def browser_client(world: ConsoleWorld) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=world.app, client=("127.0.0.1", 5556))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


async def sign_in(c: httpx.AsyncClient, key: str) -> httpx.Response:
    return await c.post("/app/signin", data={"api_key": key, "next": "/app/outliers"})


@pytest.fixture
async def client_pair(world: ConsoleWorld) -> tuple[tuple[str, str], tuple[str, str]]:
    one = await create_account(world.db, credits=1000, email="console@example.com")
    two = await create_account(world.db, credits=1000, email="api@example.com")
    return one, two
