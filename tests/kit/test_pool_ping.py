"""Pooled connections are pinged before use only when they sat idle (kit.db.make_engine):
a connection the server dropped while idle is replaced before a request sees it, and a
connection in steady use is handed out without the extra round trip."""

from __future__ import annotations

import psycopg
from sqlalchemy import text

from sors.config import Settings
from sors.kit.db import Database, make_engine


def _counting_pings(db: Database) -> list[int]:
    pings: list[int] = []
    dialect = db.engine.dialect
    original = dialect.do_ping

    def counted(conn):
        pings.append(1)
        return original(conn)

    dialect.do_ping = counted  # type: ignore[method-assign]
    return pings


async def _backend_pid(db: Database) -> int:
    async with db.session() as s:
        return int((await s.execute(text("SELECT pg_backend_pid()"))).scalar_one())


async def test_a_connection_dropped_while_idle_is_replaced(settings: Settings, pg_url: str) -> None:
    db = Database(make_engine(settings.with_values(**{"db_ping_after_idle_seconds": 0.0}), pg_url))
    try:
        first = await _backend_pid(db)
        plain = pg_url.replace("postgresql+psycopg://", "postgresql://")
        with psycopg.connect(plain, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (first,))
        # The pooled connection is dead; the ping finds it and the pool connects anew.
        assert await _backend_pid(db) != first
    finally:
        await db.dispose()


async def test_a_connection_in_use_is_not_pinged(settings: Settings, pg_url: str) -> None:
    db = Database(make_engine(settings.with_values(**{"db_ping_after_idle_seconds": 60.0}), pg_url))
    try:
        pings = _counting_pings(db)
        pid = await _backend_pid(db)  # a new connection: pinged once
        for _ in range(5):
            assert await _backend_pid(db) == pid
        assert len(pings) == 1
    finally:
        await db.dispose()
    db = Database(make_engine(settings.with_values(**{"db_ping_after_idle_seconds": 0.0}), pg_url))
    try:
        pings = _counting_pings(db)
        for _ in range(3):
            await _backend_pid(db)
        assert len(pings) == 3  # 0: every checkout pings, as pool_pre_ping did
    finally:
        await db.dispose()
