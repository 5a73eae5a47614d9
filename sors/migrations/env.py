from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.ext.asyncio import create_async_engine

from sors.models_registry import METADATA

config = context.config
target_metadata = METADATA


# Tables that exist only where an optional extension does (pgvector): their migration
# manages them, not the models (catalog/embeddings.py reads and writes them in SQL).
OPTIONAL_TABLES = {"post_embeddings", "embedding_backfill", "post_embeddings_pending",
                   "post_embeddings_hot", "post_embeddings_recent"}


def _include(obj, name, type_, reflected, compare_to):
    if type_ == "table" and name in OPTIONAL_TABLES:
        return False
    table = getattr(getattr(obj, "table", None), "name", None)
    return table not in OPTIONAL_TABLES


def _configure(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        compare_type=True,
        include_object=_include,
    )


def run_offline() -> None:
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata,
                      literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


async def run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_async_engine(config.get_main_option("sqlalchemy.url"))
    async with engine.connect() as conn:
        await conn.run_sync(_run_sync)
    await engine.dispose()


def _run_sync(connection) -> None:
    _configure(connection)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_offline()
else:
    asyncio.run(run_online())
