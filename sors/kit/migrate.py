"""Run Alembic migrations programmatically (`sors migrate`, app start in embedded mode,
tests)."""

from __future__ import annotations

import asyncio
import warnings
from pathlib import Path

from alembic import command
from alembic.config import Config

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(url: str, revision: str = "heads") -> None:
    command.upgrade(alembic_config(url), revision)


def check(url: str) -> None:
    """Raise when the models and the migrations disagree (`alembic check`)."""
    with warnings.catch_warnings():
        # Alembic cannot compare an expression index carrying an operator class
        # (ix_profiles_name_trgm: lower(display_name) gin_trgm_ops); it skips that index and
        # warns. Nothing is wrong with it, and the warning would be the test run's only one.
        warnings.filterwarnings("ignore", message=r"Expression .* gin_trgm_ops")
        # pgvector's columns (post_embeddings) are not compared with the models at all
        # (migrations/env.py OPTIONAL_TABLES); reflecting them warns about the type first.
        warnings.filterwarnings("ignore", message=r"Did not recognize type '(half)?vec")
        command.check(alembic_config(url))


def revision(url: str, message: str) -> None:
    command.revision(alembic_config(url), message=message, autogenerate=True)


async def upgrade_async(url: str) -> None:
    # Alembic's env.py runs its own event loop; keep it off ours.
    await asyncio.to_thread(upgrade, url)
