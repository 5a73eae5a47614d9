"""The runtime context: what a process runs with, built once by its door — the app factory
(`sors serve`, `sors demo`, the tests), `sors worker`, `sors scheduler`, each CLI command — and
passed to what needs it: the settings, the clock, the database and the registries of job
handlers, scheduled checks and in-process listeners. Nothing reads these from a module
global, so a test builds a runtime of its own and every part sees the same one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sors.config import Settings
from sors.kit.clock import Clock
from sors.kit.db import Database

# A job handler takes the job context and the job; a scheduled check a session, the tick's
# time and the runtime, and returns how many items it queued; a listener what its event
# carries. Their exact types belong to the floors that call them (`sors.jobs`).
Handler = Callable[..., Awaitable[Any]]
Check = Callable[..., Awaitable[int]]
Listener = Callable[..., Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class Registries:
    """Named explicitly by the one wiring module (`sors.wiring`): a missing module fails at
    import, and nothing is found by name at run time."""

    handlers: Mapping[str, Handler] = field(default_factory=dict)
    checks: tuple[tuple[str, Check], ...] = ()
    listeners: Mapping[str, tuple[Listener, ...]] = field(default_factory=dict)

    def listening(self, event: str) -> tuple[Listener, ...]:
        return self.listeners.get(event, ())


@dataclass(slots=True)
class Runtime:
    settings: Settings
    clock: Clock
    registries: Registries = field(default_factory=Registries)
    # Opened by the door that owns it (the app's lifespan, a worker command); a runtime that
    # has none yet refuses to hand one out.
    db: Database | None = None

    @property
    def database(self) -> Database:
        if self.db is None:
            raise RuntimeError("this runtime's database is not open yet")
        return self.db

    def now(self) -> datetime:
        return self.clock.now()
