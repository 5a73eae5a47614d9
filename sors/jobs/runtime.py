"""Running the background roles: in the API process (`sors serve`, `sors demo`) or alone
(`sors worker`, `sors scheduler`)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Sequence
from typing import Any

from sors.jobs.engine import Worker
from sors.kit.db import Database
from sors.kit.runtime import Runtime


def start_in_process(app_state: Any, runtime: Runtime, roles: Sequence[str]) -> list[asyncio.Task]:
    tasks: list[asyncio.Task] = []
    if "worker" in roles:
        worker = Worker(runtime)
        app_state.worker = worker
        tasks.append(asyncio.create_task(worker.run()))
    if "scheduler" in roles:
        from sors.jobs.scheduler import Scheduler

        scheduler = Scheduler(runtime)
        app_state.scheduler = scheduler
        tasks.append(asyncio.create_task(scheduler.run()))
    return tasks


async def stop_in_process(app_state: Any, tasks: list[asyncio.Task]) -> None:
    """Stop the roles gracefully: the worker finishes running jobs within its grace period
    and hands back the rest (see `Worker.run`)."""
    build = getattr(app_state, "world_build", None)
    if build is not None:
        build.cancel()  # its batches in flight roll back; the next start redoes them
    grace = 0.0
    for name in ("worker", "scheduler"):
        role = getattr(app_state, name, None)
        if role is not None:
            role.stop()
            grace = max(grace, getattr(role, "grace", 0.0))
    if tasks:
        _, late = await asyncio.wait(tasks, timeout=grace + 5)
        for t in late:
            t.cancel()
    with contextlib.suppress(Exception):
        await asyncio.gather(*tasks, return_exceptions=True)


def serve_metrics(host: str, port: int) -> int:
    """Serve this process's Prometheus metrics at http://host:port/metrics (a thread);
    returns the port (useful with port 0)."""
    from prometheus_client import start_http_server

    server, _ = start_http_server(port, addr=host)
    return int(server.server_port)


async def run_standalone(
    runtime: Runtime, role: str, *, concurrency: int | None = None,
    metrics: tuple[str, int] | None = None,
) -> None:
    """`sors worker` / `sors scheduler`: the role alone, on a database of its own."""
    from sors.kit.db import make_engine
    from sors.kit.logging import configure_logging

    settings = runtime.settings
    configure_logging(settings)  # the same JSON logs as the API processes
    if metrics is not None:
        import structlog

        port = serve_metrics(*metrics)
        structlog.get_logger("sors.jobs").info(
            "metrics_listening", role=role, url=f"http://{metrics[0]}:{port}/metrics"
        )
    runtime.db = Database(make_engine(settings))
    if role == "worker":
        runner: Any = Worker(runtime, concurrency=concurrency)
    else:
        from sors.jobs.scheduler import Scheduler

        runner = Scheduler(runtime)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, runner.stop)
    try:
        await runner.run()
    finally:
        await runtime.database.dispose()
        runtime.db = None
