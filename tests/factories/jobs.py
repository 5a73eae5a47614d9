"""Running queued jobs in tests: a worker in this process on the test database."""

from __future__ import annotations

from typing import Any

from sors.config import Settings
from sors.jobs.engine import JobContext, Worker
from sors.kit.db import Database


def job_worker(
    db: Database, settings: Settings, *, adapter: Any = None, concurrency: int = 1
) -> Worker:
    """A worker on the test database. With `adapter`, its jobs fetch from that platform
    adapter (e.g. one that counts or slows down fetches) instead of the registry's."""
    ctx = JobContext(db=db, settings=settings)
    if adapter is not None:
        # adapter_for() keeps the adapter it finds for the stored world seed (0 in tests).
        ctx._adapter = (0, adapter)  # type: ignore[attr-defined]
    return Worker(ctx, concurrency=concurrency)


async def run_jobs_until_idle(
    db: Database, settings: Settings, *, adapter: Any = None, concurrency: int = 1,
    timeout: float = 60.0,
) -> int:
    """Run due jobs until none is left or `timeout` seconds passed (60: the worker's own
    default); how many ran."""
    worker = job_worker(db, settings, adapter=adapter, concurrency=concurrency)
    return await worker.run_until_idle(timeout=timeout)
