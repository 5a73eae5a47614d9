"""Simulated time, stored in the database so every process (API, workers, scheduler, CLI)
agrees. It stands still unless set or advanced (`sors sim clock set/advance`), so a demo or
a test is reproducible."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from sors.kit import clock as clock_mod
from sors.kit.db import Database
from sors.platforms.sim.models import SimState

KEY = "world"
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)\s*([smhdw])$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_duration(value: str) -> timedelta:
    """'36h', '8d', '90m', '2w', '45s'."""
    m = _DURATION.match(value.strip().lower())
    if not m:
        raise ValueError(f"not a duration: {value!r} (use e.g. 36h, 8d, 90m)")
    return timedelta(**{_UNITS[m.group(2)]: float(m.group(1))})


def default_start() -> datetime:
    return datetime.now(UTC).replace(minute=0, second=0, microsecond=0)


async def get_state(session: AsyncSession) -> SimState | None:
    return await session.get(SimState, KEY)


async def ensure_state(
    session: AsyncSession, *, seed: int = 0, at: datetime | None = None
) -> SimState:
    await session.execute(
        insert(SimState)
        .values(key=KEY, now=at or default_start(), seed=seed)
        .on_conflict_do_nothing()
    )
    state = (await session.execute(select(SimState).where(SimState.key == KEY))).scalar_one()
    return state


async def set_time(session: AsyncSession, at: datetime) -> datetime:
    state = await ensure_state(session, at=at)
    state.now = at.astimezone(UTC)
    await session.flush()
    return state.now


async def advance(session: AsyncSession, by: timedelta) -> datetime:
    state = await ensure_state(session)
    state.now = state.now + by
    await session.flush()
    return state.now


class SimClock(clock_mod.Clock):
    """A process's view of simulated time: read from the database at its first refresh
    (the world's state is made then, with `seed`, if the data has none yet) and re-read at
    most once per `ttl` seconds after (doors refresh at request and job boundaries)."""

    def __init__(self, db: Callable[[], Database], *, seed: int = 0, ttl: float = 1.0) -> None:
        self._db = db
        self._seed = seed
        self._ttl = ttl
        self._at: datetime | None = None
        self._read = 0.0

    def now(self) -> datetime:
        if self._at is None:
            raise RuntimeError("the simulated clock has not been read yet: refresh() it first")
        return self._at

    async def refresh(self, *, force: bool = False) -> None:
        if self._at is not None and not force and time.monotonic() - self._read < self._ttl:
            return
        if self._at is None:
            async with self._db().transaction() as s:
                state = await ensure_state(s, seed=self._seed)
                self._at = state.now
        else:
            async with self._db().session() as s:
                stored = await get_state(s)
            if stored is not None:
                self._at = stored.now
        self._read = time.monotonic()
