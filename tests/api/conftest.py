"""A real sors server on a loopback port over a small simulated world, for the tests that
read the live OpenAPI document (generated client, Schemathesis, bodies vs models)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest
import uvicorn
from sqlalchemy import text

from sors.catalog.trends.service import clear_trending_cache
from sors.config import Settings
from sors.demo.seed import seed_world
from sors.kit.db import Database
from sors.platforms.sim.clock import set_time
from tests.conftest import KEEP_TABLES
from tests.factories import create_account, reset_tables

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


@dataclass
class Served:
    url: str
    key: str
    account_id: str
    db: Database
    settings: Settings


def _serve(app) -> Iterator[str]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on",
                       loop="asyncio")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not server.started and time.time() < deadline:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
async def served(settings: Settings, db: Database) -> AsyncIterator[Served]:
    """The world: 20 simulated profiles through the real seed path; an account with plenty
    of credits (a fuzzer must not run into 402); rate limits high enough for a fuzzer.
    Per test: the other tests' cleanup truncates every table."""
    from sors.app import create_app

    await reset_tables(db, KEEP_TABLES)
    clear_trending_cache()
    async with db.transaction() as s:
        await set_time(s, NOW)
    await seed_world(db, settings=settings, profiles=20, seed=5, now=NOW)
    account_id, key = await create_account(db, credits=10_000_000)
    async with db.transaction() as s:  # the operator: GET /sources answers it too
        await s.execute(text("UPDATE accounts SET is_operator = true WHERE id = :a"),
                        {"a": account_id})
    fast = settings.with_values(
        rate_limit_per_minute=1_000_000, rate_limit_ip_per_minute=1_000_000,
        # Webhook endpoints on loopback (nothing delivers: no worker runs here).
        webhooks_allow_http=True, webhooks_allow_loopback=True,
    )
    app = create_app(fast)  # its own engine: the server runs on its own event loop
    gen = _serve(app)
    url = next(gen)
    try:
        yield Served(url, key, account_id, db, fast)
    finally:
        next(gen, None)
        await reset_tables(db, KEEP_TABLES)
        clear_trending_cache()
