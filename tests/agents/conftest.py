"""A real `sors serve` process on a loopback port, over the test database, for the MCP
tests: the official MCP client talks to it over Streamable HTTP, as an agent would."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from sors.config import Settings
from sors.kit.db import Database
from tests.conftest import KEEP_TABLES
from tests.factories import reset_tables
from tests.factories.cluster import free_port, tail


@pytest.fixture(scope="module")
async def clean_after_serve(db: Database, app) -> AsyncIterator[None]:
    """Truncate once the server is gone: its worker and scheduler hold locks a TRUNCATE
    would deadlock with, so tests against it do not use the per-test `clean`."""
    yield
    await reset_tables(db, KEEP_TABLES)
    await app.state.limiter.reset()


@pytest.fixture(scope="module")
def sors_serve(settings: Settings, pg_url: str, clean_after_serve: None) -> Iterator[str]:
    port = free_port()
    data = Path(tempfile.mkdtemp(prefix="sors-mcp-"))
    log = data / "serve.log"
    env = {
        **os.environ,
        "SORS_DATABASE_URL": pg_url,
        "SORS_DATA_DIR": str(data),
        "SORS_PLATFORM_SOURCE": "sim",
        "SORS_SECRET_KEY": settings.resolved_secret_key,
        "SORS_BASE_URL": f"http://127.0.0.1:{port}",
        "SORS_LOG_LEVEL": "WARNING",
        "SORS_RATE_LIMIT_PER_MINUTE": "100000",
        # The walk registers a loopback webhook receiver (nothing listens; deliveries fail).
        "SORS_WEBHOOKS_ALLOW_HTTP": "true",
        "SORS_WEBHOOKS_ALLOW_LOOPBACK": "true",
    }
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "sors.cli.main", "serve", "--host", "127.0.0.1",
             "--port", str(port)],
            env=env, stdout=out, stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("sors serve did not start:\n" + tail(log))
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


@asynccontextmanager
async def mcp_session(base: str, key: str | None) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(base + "/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session
