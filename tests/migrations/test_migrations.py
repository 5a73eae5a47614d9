from __future__ import annotations

import asyncio

from sors.kit import migrate


async def test_models_and_migrations_agree(pg_url: str) -> None:
    # `alembic check`: autogenerate finds nothing to change against a database at head.
    await asyncio.to_thread(migrate.check, pg_url)
