"""Database plumbing: declarative base, engine and session factory.

PostgreSQL only. `SORS_DATABASE_URL` points at any PostgreSQL; unset, an embedded server is
started on demand in DATA_DIR/pg and shared by every process using that data dir.
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

import orjson
from sqlalchemy import BigInteger, DateTime, MetaData
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase

from sors.config import Settings

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {  # noqa: RUF012
        datetime: DateTime(timezone=True),
        int: BigInteger,
    }


def _dumps(obj: Any) -> str:
    return orjson.dumps(obj).decode()


def to_async_url(url: str) -> str:
    for prefix in ("postgresql+psycopg://", "postgresql+asyncpg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    raise ValueError("SORS_DATABASE_URL must be a postgresql:// URL")


def to_plain_url(url: str) -> str:
    """libpq form (for psycopg direct connections and procrastinate)."""
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


def start_embedded(data_dir: Path) -> str:
    """Start (or join) the embedded server of this data dir; returns its libpq URL."""
    import psycopg

    from sors.kit import embedded

    admin = embedded.start(data_dir)  # this process now holds the server (see kit/embedded)
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = 'sors'").fetchone()
        if not exists:
            try:
                conn.execute("CREATE DATABASE sors")
            except psycopg.errors.DuplicateDatabase:
                pass  # another process of this data dir won the race
    return admin.replace("/postgres?", "/sors?", 1)


_resolved: dict[str, str] = {}


def database_url(settings: Settings) -> str:
    """The SQLAlchemy URL to use, starting the embedded server when needed."""
    if settings.database.url:
        return to_async_url(settings.database.url)
    key = str(settings.data_dir.resolve())
    if key not in _resolved:
        _resolved[key] = to_async_url(start_embedded(settings.data_dir))
    return _resolved[key]


def make_engine(settings: Settings, url: str | None = None) -> AsyncEngine:
    engine = create_async_engine(
        url or database_url(settings),
        pool_size=settings.database.pool_size,
        max_overflow=settings.database.max_overflow,
        pool_timeout=settings.database.pool_timeout,
        json_serializer=_dumps,
        json_deserializer=orjson.loads,
    )
    _ping_when_idle(engine, settings.database.ping_after_idle_seconds)
    return engine


def _ping_when_idle(engine: AsyncEngine, idle_seconds: float) -> None:
    """Check a pooled connection before handing it out only when it may have gone stale.

    SQLAlchemy's `pool_pre_ping` pings on every checkout: a round trip (and the transaction's
    BEGIN one earlier) on every request. A connection handed back less than `idle_seconds`
    ago was working then; one the server closed since is known to libpq (`pgconn.status`) as
    soon as it read the close, and is replaced here too. What remains — the server restarted
    within the last few seconds while the connection sat in the pool — fails that one
    statement; the error invalidates the connection (a request gets the 503 with Retry-After
    of kit.errors) and the pool replaces it."""
    import psycopg
    from sqlalchemy import event, exc

    pool = engine.sync_engine.pool

    @event.listens_for(pool, "checkin")
    def _returned(dbapi_connection: Any, record: Any) -> None:
        record.info["sors.returned"] = time.monotonic()

    @event.listens_for(pool, "checkout")
    def _check(dbapi_connection: Any, record: Any, proxy: Any) -> None:
        pg = dbapi_connection.driver_connection
        if pg.closed or pg.pgconn.status != psycopg.pq.ConnStatus.OK:
            raise exc.DisconnectionError("connection closed")
        returned = record.info.get("sors.returned")
        if returned is not None and time.monotonic() - returned < idle_seconds:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as e:  # the pool retries with a fresh connection
            raise exc.DisconnectionError(str(e)) from e


class Database:
    """One engine + session factory per process (or per test session)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.sessionmaker = async_sessionmaker(engine, expire_on_commit=False, autoflush=False)

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        async with self.sessionmaker() as session:
            yield session

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """A session that commits when the block ends cleanly (tasks, CLI)."""
        async with self.sessionmaker() as session, session.begin():
            yield session

    async def dispose(self) -> None:
        await self.engine.dispose()


async def driver(session: AsyncSession) -> Any:
    """The session's own psycopg connection, inside the session's transaction.

    For the few statements on the hottest paid paths (`GET /posts/{id}`, the charge): the
    ORM's per-statement work (building, compiling and caching a statement, processing the
    result) costs several times the round trip itself (docs/PERFORMANCE.md, "Billing
    overhead"). Statements run here are plain SQL with `%(name)s` parameters; psycopg
    prepares them on the server after a few runs. The transaction is the session's: its
    commit or rollback ends what ran here too.
    """
    # Asking the session costs more than the statements it is for; the answer holds for the
    # session's current transaction (a commit may hand the connection back to the pool).
    tx = session.sync_session.get_transaction()
    known = session.info.get("sors.driver")
    if tx is not None and known is not None and known[0] is tx:
        return known[1]
    conn = await session.connection()
    pg = (await conn.get_raw_connection()).driver_connection
    session.info["sors.driver"] = (session.sync_session.get_transaction(), pg)
    return pg


def plain_sql(stmt: Any) -> str:
    """A SQLAlchemy statement as the SQL text `driver` runs (named `%(name)s` parameters),
    compiled once at import: one definition of the columns, no per-call compile."""
    from sqlalchemy.dialects.postgresql import psycopg as pg_dialect

    return str(stmt.compile(dialect=pg_dialect.dialect()))


def binary_sql(stmt: Any) -> str:
    """`plain_sql(stmt)` with every parameter sent in binary (`%(name)b`), for statements
    whose parameters are arrays of thousands of values (ingest's `unnest` batches): psycopg
    dumps a list in binary ~7x faster than as an escaped text literal, which was most of a
    crawl batch's Python time (docs/PERFORMANCE.md, "Ingest at a million posts"). A list
    must hold one Python type (`catalog.bulk.columns` makes sure of it)."""
    return re.sub(r"%\((\w+)\)s", r"%(\1)b", plain_sql(stmt))


async def execute_rows(
    session: AsyncSession, sql: str, params: Mapping[str, object]
) -> list[tuple[Any, ...]]:
    """Run `sql` through `driver` in the session's transaction; its rows as tuples (none for
    a statement that returns none). Pending ORM changes are flushed first, as
    `session.execute` would."""
    if session.new or session.dirty or session.deleted:
        await session.flush()
    pg = await driver(session)
    async with pg.cursor() as cur:
        await cur.execute(sql, params)
        return await cur.fetchall() if cur.description is not None else []


class RidesAlong(Protocol):
    """A statement that rides along a read's statement (a paid read's charge,
    `billing.service.RideAlong`): it rewrites the read into one joined statement and takes
    its own part of the row back."""

    def joined(self, sql: str, params: Mapping[str, object]) -> tuple[str, Mapping[str, object]]:
        ...

    def taken(self, row: dict[str, Any] | None) -> dict[str, Any] | None: ...


async def fetch_one(
    session: AsyncSession, sql: str, params: Mapping[str, object], *,
    ride_along: RidesAlong | None = None,
) -> dict[str, Any] | None:
    """One row as a dict (None: no row), through `driver`; with `ride_along`, that statement
    carried in the same round trip."""
    from psycopg.rows import dict_row

    pg = await driver(session)
    if ride_along is not None:
        sql, params = ride_along.joined(sql, params)
    async with pg.cursor(row_factory=dict_row) as cur:
        await cur.execute(sql, params)
        row = await cur.fetchone()
    return row if ride_along is None else ride_along.taken(row)


async def fetch_all(
    session: AsyncSession, sql: str, params: Mapping[str, object]
) -> list[dict[str, Any]]:
    """Every row as a dict, through `driver`."""
    from psycopg.rows import dict_row

    pg = await driver(session)
    async with pg.cursor(row_factory=dict_row) as cur:
        await cur.execute(sql, params)
        return await cur.fetchall()


_SHAPES: dict[tuple[Any, ...], str] = {}
_SHAPES_MAX = 2048


def shape_of(params: Mapping[str, object]) -> tuple[tuple[str, str], ...]:
    """What a statement's text depends on in its parameters: their names and value types."""
    return tuple((name, type(value).__name__) for name, value in params.items())


def sql_for_shape(key: tuple[Any, ...], build: Any) -> str:
    """`plain_sql(build())`, compiled once per statement shape (`key`: what the statement's
    text depends on, e.g. which filters are present and how many values a list has).

    For statements built per request from a few optional filters (searches): building a
    statement and letting the ORM cache, run and process it costs several times its round
    trip. The statement's text depends only on the shape, its values travel as named
    parameters; the cache is bounded (shapes are few; the bound keeps a caller that varies
    them from growing it)."""
    sql = _SHAPES.get(key)
    if sql is None:
        if len(_SHAPES) >= _SHAPES_MAX:
            _SHAPES.clear()
        sql = _SHAPES[key] = plain_sql(build())
    return sql


__all__ = ["Base", "BigInteger", "Database", "database_url", "make_engine"]
