from __future__ import annotations

import asyncio

import psycopg

from sors.kit import migrate
from sors.kit.db import to_plain_url


async def test_models_and_migrations_agree(pg_url: str) -> None:
    # `alembic check`: autogenerate finds nothing to change against a database at head.
    await asyncio.to_thread(migrate.check, pg_url)


async def test_posts_are_vacuumed_after_one_percent_changed(pg_url: str) -> None:
    # Crawls rewrite posts' rows; index-only scans need their pages vacuumed again soon
    # (migration 0030), not after the default fifth of the table.
    async with await psycopg.AsyncConnection.connect(to_plain_url(pg_url)) as conn:
        row = await (await conn.execute(
            "SELECT reloptions FROM pg_class WHERE oid = 'posts'::regclass"
        )).fetchone()
    assert row is not None
    assert set(row[0]) >= {
        "autovacuum_vacuum_scale_factor=0.01",
        "autovacuum_vacuum_insert_scale_factor=0.01",
        "autovacuum_analyze_scale_factor=0.02",
    }
