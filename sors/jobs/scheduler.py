"""The scheduler only decides what is due and enqueues it; the work runs in jobs. Every tick
runs under a PostgreSQL advisory lock, so two schedulers never do the same tick twice.

Due work is contributed by domains as scheduled checks, named in the runtime's registries
(`sors.wiring`); each takes a session, the tick's (possibly simulated) time and the runtime,
and enqueues what is due.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from datetime import datetime

import structlog
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.kit.runtime import Runtime

log = structlog.get_logger("sors.scheduler")
LOCK_ID = 0x5052_5301  # any constant shared by every scheduler of this database

DueFn = Callable[[AsyncSession, datetime, Runtime], Awaitable[int]]


class Scheduler:
    def __init__(self, runtime: Runtime, *, interval: float = 15.0) -> None:
        if not runtime.registries.checks:
            raise RuntimeError("no scheduled checks registered: build the runtime with sors.wiring")
        self.runtime = runtime
        self.interval = interval
        self._stop = asyncio.Event()

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
        rt = self.runtime
        await rt.clock.refresh()  # simulated time lives in the database
        done: dict[str, int] = {}
        async with rt.database.transaction() as s:
            got = (
                await s.execute(text("SELECT pg_try_advisory_xact_lock(:k)"), {"k": LOCK_ID})
            ).scalar()
            if not got:
                return done  # another scheduler is ticking right now
            now = rt.now()
            for name, fn in rt.registries.checks:
                done[name] = await fn(s, now, rt)
        return done
