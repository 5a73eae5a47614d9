"""Clocks: what "now" is for a process, handed to code through its runtime
(`sors.kit.runtime.Runtime.clock`) so tests and the simulation can move time.

Real deployments use the system clock. In simulation the current time lives in the
database (the `sim_state` table) so every process agrees; the simulated clock
(`sors.platforms.sim.clock.SimClock`) caches it briefly and re-reads it when refreshed.
"""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    return datetime.now(UTC)


class Clock:
    """The system clock. Subclasses override `now()`, and `refresh()` where the time lives
    elsewhere (doors call it at each request and job boundary)."""

    def now(self) -> datetime:
        return utcnow()

    async def refresh(self, *, force: bool = False) -> None:
        """Catch up with where the time is kept; the system clock always is."""


class FrozenClock(Clock):
    """A settable clock for tests and simulation."""

    def __init__(self, at: datetime) -> None:
        self._at = at

    def now(self) -> datetime:
        return self._at

    def set(self, at: datetime) -> None:
        self._at = at


def isoformat(dt: datetime | None) -> str | None:
    """ISO 8601 in UTC with a trailing Z, as the contract wants."""
    if dt is None:
        return None
    return dt.astimezone(UTC).isoformat().replace("+00:00", "Z")
