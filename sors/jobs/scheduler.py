"""The scheduler only decides what is due and enqueues it; the work runs in jobs. Every tick
runs under a PostgreSQL advisory lock, so two schedulers never do the same tick twice.

Due work is contributed by domains through `register(fn)`; each fn takes a session and the
current (possibly simulated) time and enqueues what is due.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from datetime import datetime

import structlog
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.config import Settings
from sors.kit import clock
from sors.kit.db import Database
from sors.platforms import registry

log = structlog.get_logger("sors.scheduler")
LOCK_ID = 0x5052_5301  # any constant shared by every scheduler of this database

DueFn = Callable[[AsyncSession, datetime], Awaitable[int]]
_DUE: list[tuple[str, DueFn]] = []


def register(name: str) -> Callable[[DueFn], DueFn]:
    def deco(fn: DueFn) -> DueFn:
        _DUE.append((name, fn))
        return fn

    return deco


def require_due() -> None:
    """The door that starts a scheduler imports `sors.wiring` (every schedule module) first."""
    if not _DUE:
        raise RuntimeError("no scheduled checks registered: import sors.wiring first")


class Scheduler:
    def __init__(self, db: Database, settings: Settings, *, interval: float = 15.0) -> None:
        self.db = db
        self.settings = settings
        self.interval = interval
        self._stop = asyncio.Event()
        require_due()

    def stop(self) -> None:
        self._stop.set()

    async def run(self) -> None:
        while not self._stop.is_set():
            try:
                await self.tick()
            except Exception:
                log.exception("scheduler_tick_failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), timeout=self.interval)

    async def tick(self) -> dict[str, int]:
        """Run every due check once. Returns how many items each check enqueued."""
        if self.settings.platform_source == "sim":
            from types import SimpleNamespace

            holder = getattr(self, "_holder", None) or SimpleNamespace(
                db=self.db, settings=self.settings, sim_clock=None
            )
            self._holder = holder
            await registry.sync_clock(holder)
        done: dict[str, int] = {}
        async with self.db.transaction() as s:
            got = (await s.execute(text("SELECT pg_try_advisory_xact_lock(:k)"), {"k": LOCK_ID})).scalar()
            if not got:
                return done  # another scheduler is ticking right now
            now = clock.now()
            for name, fn in _DUE:
                done[name] = await fn(s, now)
        return done
