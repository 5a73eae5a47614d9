"""Running queued jobs in tests: a worker in this process on the test runtime."""

from __future__ import annotations

from typing import Any

from sors.jobs.engine import Worker
from sors.kit.runtime import Runtime


def job_worker(runtime: Runtime, *, adapter: Any = None, concurrency: int = 1) -> Worker:
    """A worker on the test runtime. With `adapter`, its jobs fetch from that platform
    adapter (e.g. one that counts or slows down fetches) instead of the registry's."""
    worker = Worker(runtime, concurrency=concurrency)
    if adapter is not None:
        # adapter_for() keeps the adapter it finds for the stored world seed (0 in tests).
        worker.ctx.adapter, worker.ctx.adapter_seed, worker.ctx.world_seed = adapter, 0, 0
    return worker


async def run_jobs_until_idle(
    runtime: Runtime, *, adapter: Any = None, concurrency: int = 1, timeout: float = 60.0,
) -> int:
    """Run due jobs until none is left or `timeout` seconds passed (60: the worker's own
    default); how many ran."""
    worker = job_worker(runtime, adapter=adapter, concurrency=concurrency)
    return await worker.run_until_idle(timeout=timeout)
