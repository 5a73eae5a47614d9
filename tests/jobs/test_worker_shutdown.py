"""A `sors worker` on SIGTERM stops claiming, finishes its running job within the grace
period (or hands it back at once when the grace runs out) and serves /metrics when asked.
Real processes on the test database; the simulated platform takes 5 s to answer."""

from __future__ import annotations

import os
import signal
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from sors.jobs import service as jobs
from tests.factories.cluster import SorsProcess, free_port


async def _job(db, handle: str) -> str:
    async with db.transaction() as s:
        job, _ = await jobs.enqueue(
            s, type="crawl", account_id=None, payload={"platform": "tiktok", "handle": handle},
            credits=0, now=datetime.now(UTC), max_attempts=4,
        )
    return job.id


async def _state(db, job_id: str) -> tuple[str, int]:
    async with db.session() as s:
        row = (await s.execute(text("SELECT status, attempts FROM jobs WHERE id = :j"),
                               {"j": job_id})).one()
    return row[0], int(row[1])


async def _wait_for(db, job_id: str, status: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if (await _state(db, job_id))[0] == status:
            return
        time.sleep(0.1)
    raise AssertionError(f"{job_id} not {status} within {timeout} s: {await _state(db, job_id)}")


def _worker(settings, tmp_path: Path, grace: float, metrics_port: int) -> SorsProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SORS_")}
    env.update({
        "SORS_DATABASE_URL": settings.database.url, "SORS_DATA_DIR": str(tmp_path),
        "SORS_PLATFORM_SOURCE": "sim", "SORS_SECRET_KEY": "worker-test-secret",
        "SORS_SIM_LATENCY_SECONDS": "5", "SORS_WORKER_GRACE_SECONDS": str(grace),
        "SORS_LOG_LEVEL": "INFO",
    })
    args = ["worker", "--concurrency", "1", "--metrics-port", str(metrics_port)]
    return SorsProcess("worker", args, env, tmp_path)


@pytest.mark.parametrize("grace", [30.0, 1.0])
async def test_sigterm_finishes_or_hands_back_and_takes_nothing_new(
    grace: float, db, settings, clean, tmp_path: Path
) -> None:
    running = await _job(db, f"slow.one{int(grace)}")
    port = free_port()
    worker = _worker(settings, tmp_path, grace, port)
    try:
        await _wait_for(db, running, "processing", 120)
        queued = await _job(db, f"slow.two{int(grace)}")
        metrics = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5)
        assert metrics.status_code == 200 and "sors_jobs_total" in metrics.text

        os.kill(worker.pid, signal.SIGTERM)
        if grace < 5:  # the 5 s job cannot finish in time: it must be back in the queue
            await _wait_for(db, running, "pending", grace + 4)  # not after job_stall_seconds
        worker.proc.wait(timeout=60)
        assert worker.proc.returncode == 0, worker.describe()
    finally:
        worker.stop()

    if grace > 5:  # the 5 s job fits in the grace period: it completes
        assert await _state(db, running) == ("completed", 1), worker.describe()
    else:  # it did not: handed back at once (checked above), the attempt not counted
        assert await _state(db, running) == ("pending", 0), worker.describe()
    assert await _state(db, queued) == ("pending", 0)  # never claimed after the signal
