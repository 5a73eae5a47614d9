"""Shared CLI plumbing: settings, database, running async code."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import typer
from rich.console import Console

from sors.config import Settings, get_settings
from sors.kit import migrate
from sors.kit.db import Database, database_url, make_engine, to_plain_url

T = TypeVar("T")
console = Console()
err = Console(stderr=True)


def settings() -> Settings:
    return get_settings()


def ensure_migrated(s: Settings) -> str:
    url = database_url(s)
    migrate.upgrade(url)
    return url


def with_db(fn: Callable[[Database], Awaitable[T]], *, migrate_first: bool = True) -> T:
    s = settings()
    url = ensure_migrated(s) if migrate_first else database_url(s)

    async def run() -> T:
        db = Database(make_engine(s, url))
        try:
            return await fn(db)
        finally:
            await db.dispose()

    return asyncio.run(run())


def fail(message: str, code: int = 1) -> None:
    err.print(f"[red]error:[/red] {message}")
    raise typer.Exit(code)


__all__ = ["console", "ensure_migrated", "fail", "settings", "to_plain_url", "with_db"]
