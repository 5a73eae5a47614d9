"""Shared CLI plumbing: settings, the data dir, database, running async code."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import typer
from rich.console import Console

from sors.config import Settings
from sors.kit import migrate
from sors.kit.clock import Clock
from sors.kit.db import Database, database_url, make_engine, to_plain_url
from sors.kit.runtime import Runtime

T = TypeVar("T")
console = Console()
err = Console(stderr=True)

DATA_DIR_NAME = ".sors"
HOW_TO_POINT = (
    "Run the command in the directory where you started `sors demo` (or below it), or point "
    "to the data: `sors --data-dir PATH …` or `export SORS_DATA_DIR=PATH`."
)


def settings() -> Settings:
    """This command's settings: the environment, with the data dir the callback chose."""
    return Settings()


def runtime(s: Settings, db: Database | None = None) -> Runtime:
    """A command's runtime (the CLI is a door: it builds what the code it calls runs with)."""
    from sors import wiring
    from sors.platforms.registry import process_clock

    rt = Runtime(s, Clock(), wiring.REGISTRIES, db)
    rt.clock = process_clock(s, lambda: rt.database)
    return rt


def find_data_dir(start: Path) -> Path | None:
    """The nearest `.sors` directory at or above `start`, as git finds `.git`."""
    for d in (start, *start.parents):
        candidate = d / DATA_DIR_NAME
        if candidate.is_dir():
            return candidate
    return None


def use_data_dir(explicit: Path | None) -> Path:
    """Decide the data dir once per command and make every Settings() see it.

    `--data-dir` wins, then SORS_DATA_DIR (Typer reads it into `explicit`), then the nearest
    `.sors` above the working directory, then `./.sors` (created by commands that start a
    service)."""
    if explicit is not None:
        chosen = explicit.expanduser().resolve()
    else:
        cwd = Path.cwd()
        chosen = (find_data_dir(cwd) or cwd / DATA_DIR_NAME).resolve()
    os.environ["SORS_DATA_DIR"] = str(chosen)
    return chosen


def require_data(s: Settings) -> None:
    """Refuse (with how to fix it) when there is no database to talk to: no external
    SORS_DATABASE_URL and no embedded one in the data dir. Starting one here would leave an
    empty, unrelated data dir behind."""
    if s.database.url or (s.data_dir / "pg").is_dir():
        return
    fail(f"no sors data in {s.data_dir}. {HOW_TO_POINT}")


def ensure_migrated(s: Settings) -> str:
    url = database_url(s)
    migrate.upgrade(url)
    _optional_schema(url)
    return url


def _optional_schema(url: str) -> None:
    """What the migrations skip where an extension was missing, made once it is installed
    (pgvector: search by meaning)."""
    import psycopg

    from sors.catalog.vectors.schema import ensure_schema

    with psycopg.connect(to_plain_url(url), autocommit=True) as conn:
        ensure_schema(conn)


def with_db(
    fn: Callable[[Database], Awaitable[T]], *, migrate_first: bool = True, create: bool = False
) -> T:
    s = settings()
    if not create:
        require_data(s)
    url = ensure_migrated(s) if migrate_first else database_url(s)

    async def run() -> T:
        db = Database(make_engine(s, url))
        try:
            return await fn(db)
        finally:
            await db.dispose()

    return asyncio.run(run())


def with_runtime(
    fn: Callable[[Runtime], Awaitable[T]], *, migrate_first: bool = True, create: bool = False
) -> T:
    """Run `fn` with this command's runtime, its database open (and migrated first)."""

    async def run(db: Database) -> T:
        rt = runtime(settings(), db)
        await rt.clock.refresh()
        return await fn(rt)

    return with_db(run, migrate_first=migrate_first, create=create)


def fail(message: str, code: int = 1) -> None:
    err.print(f"[red]error:[/red] {message}", soft_wrap=True)
    raise typer.Exit(code)


__all__ = [
    "console", "ensure_migrated", "err", "fail", "find_data_dir", "require_data", "runtime",
    "settings", "to_plain_url", "use_data_dir", "with_db", "with_runtime",
]
