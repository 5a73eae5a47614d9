"""One clock for the whole service, so tests and the simulation can move time.

Real deployments use the system clock. In simulation the current time lives in the database
(`sim_clock` table) so every process agrees; `SimClock` caches it briefly per process.
"""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    return datetime.now(UTC)


class Clock:
    """The system clock. Subclasses override `now()`."""

    def now(self) -> datetime:
        return utcnow()


class FrozenClock(Clock):
    """A settable clock for tests and simulation."""

    def __init__(self, at: datetime) -> None:
        self._at = at

    def now(self) -> datetime:
        return self._at

    def set(self, at: datetime) -> None:
        self._at = at


_clock: Clock = Clock()


def get_clock() -> Clock:
    return _clock


def set_clock(clock: Clock) -> None:
    global _clock
    _clock = clock


def now() -> datetime:
    return _clock.now()


def isoformat(dt: datetime | None) -> str | None:
    """ISO 8601 in UTC with a trailing Z, as the contract wants."""
    if dt is None:
        return None
    return dt.astimezone(UTC).isoformat().replace("+00:00", "Z")
