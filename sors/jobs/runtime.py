"""Running the background roles: in the API process (`sors serve`, `sors demo`) or alone
(`sors worker`, `sors scheduler`)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from typing import Any

from sors.config import Settings
from sors.jobs.engine import JobContext, Worker
from sors.kit.db import Database


def start_in_process(app_state: Any, roles: list[str]) -> list[asyncio.Task]:
    tasks: list[asyncio.Task] = []
    if "worker" in roles:
        worker = Worker(JobContext(db=app_state.db, settings=app_state.settings, app_state=app_state))
        app_state.worker = worker
        tasks.append(asyncio.create_task(worker.run()))
    if "scheduler" in roles:
        from sors.jobs.scheduler import Scheduler

        scheduler = Scheduler(app_state.db, app_state.settings)
        app_state.scheduler = scheduler
        tasks.append(asyncio.create_task(scheduler.run()))
    return tasks


async def stop_in_process(app_state: Any, tasks: list[asyncio.Task]) -> None:
    for name in ("worker", "scheduler"):
        role = getattr(app_state, name, None)
        if role is not None:
            role.stop()
    for t in tasks:
        t.cancel()
    with contextlib.suppress(Exception):
        await asyncio.gather(*tasks, return_exceptions=True)


async def run_standalone(settings: Settings, role: str, *, concurrency: int | None = None) -> None:
    from sors.kit.db import make_engine
    from sors.kit.logging import configure_logging

    configure_logging(settings)  # the same JSON logs as the API processes
    db = Database(make_engine(settings))
    if role == "worker":
        runner: Any = Worker(JobContext(db=db, settings=settings), concurrency=concurrency)
    else:
        from sors.jobs.scheduler import Scheduler

        runner = Scheduler(db, settings)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, runner.stop)
    try:
        await runner.run()
    finally:
        await db.dispose()
