"""Simulated time, stored in the database so every process (API, workers, scheduler, CLI)
agrees. It stands still unless set or advanced (`sors sim clock set/advance`), so a demo or
a test is reproducible."""

from __future__ import annotations

import re
import time
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
    """The process's view of simulated time, re-read from the database at most once per
    `ttl` seconds (at request and task boundaries)."""

    def __init__(self, at: datetime, ttl: float = 1.0) -> None:
        self._at = at
        self._read = time.monotonic()
        self._ttl = ttl

    def now(self) -> datetime:
        return self._at

    async def refresh(self, db: Database, *, force: bool = False) -> None:
        if not force and time.monotonic() - self._read < self._ttl:
            return
        async with db.session() as s:
            state = await get_state(s)
        if state is not None:
            self._at = state.now
        self._read = time.monotonic()


async def install(db: Database, *, seed: int = 0) -> SimClock:
    """Make simulated time the process clock (sim mode)."""
    async with db.transaction() as s:
        state = await ensure_state(s, seed=seed)
    sim = SimClock(state.now)
    clock_mod.set_clock(sim)
    return sim


async def sync_process_clock(app_state: object) -> None:
    """Called at each request/task boundary in sim mode: install or refresh the clock."""
    sim = getattr(app_state, "sim_clock", None)
    db = app_state.db  # type: ignore[attr-defined]
    if sim is None or clock_mod.get_clock() is not sim:
        sim = await install(db, seed=app_state.settings.sim_seed)  # type: ignore[attr-defined]
        app_state.sim_clock = sim  # type: ignore[attr-defined]
    else:
        await sim.refresh(db)
