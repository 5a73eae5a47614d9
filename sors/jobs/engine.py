"""The worker: claims jobs with SKIP LOCKED, runs them with a heartbeat, settles them, and
reaps jobs whose worker died (no heartbeat for `job_stall_seconds`): retried while attempts
remain, else failed and refunded. Any number of workers on any number of machines can share
one PostgreSQL; LISTEN/NOTIFY wakes them, polling is the fallback.

Stopping (`stop()`, e.g. on SIGTERM) is graceful: no new claims, running jobs get `grace`
seconds to finish, and whatever still runs then is handed back to the queue at once."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import psycopg
import structlog

from sors.config import Settings
from sors.jobs import service
from sors.kit import clock, memory
from sors.kit.db import Database, to_plain_url
from sors.kit.ids import new_id
from sors.kit.metrics import JOBS
from sors.platforms import registry
from sors.platforms.base import PlatformError
from sors.queue import repository as repo
from sors.queue.models import Job

log = structlog.get_logger("sors.jobs")


class JobFailed(Exception):
    """A permanent failure with a code the caller sees in the job's `error`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class RetryableJobError(Exception):
    def __init__(self, code: str, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after


@dataclass
class JobContext:
    db: Database
    settings: Settings
    app_state: Any = None  # adapters, engines: built once per worker


async def sync_service_clock(ctx: JobContext) -> None:
    """Bring the process's service clock (`kit.clock`) up to date before a job: in
    simulation the time lives in the database, and the job's own timestamps (started,
    finished, its ledger rows and mail) must read the simulated time like everything else."""
    if ctx.settings.platform_source != "sim":
        return
    holder = ctx.app_state if ctx.app_state is not None else ctx
    if not hasattr(holder, "db"):
        holder.db = ctx.db
    if not hasattr(holder, "settings"):
        holder.settings = ctx.settings
    if not hasattr(holder, "sim_clock"):
        holder.sim_clock = None
    await registry.sync_clock(holder)


Handler = Callable[[JobContext, Job], Awaitable[dict[str, Any]]]
HANDLERS: dict[str, Handler] = {}


def handler(job_type: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        HANDLERS[job_type] = fn
        return fn

    return register


def require_handlers() -> None:
    """A worker with nothing registered would claim jobs it cannot run: the door that starts
    it imports `sors.wiring` (every task module) first."""
    if not HANDLERS:
        raise RuntimeError("no job handlers registered: import sors.wiring before starting a worker")


class Worker:
    def __init__(self, ctx: JobContext, *, concurrency: int | None = None,
                 types: list[str] | None = None, poll: float = 1.0,
                 grace: float | None = None) -> None:
        self.ctx = ctx
        self.concurrency = concurrency or ctx.settings.worker_concurrency
        self.grace = ctx.settings.worker_grace_seconds if grace is None else grace
        self.types = types
        self.poll = poll
        self.id = f"{socket.gethostname()}:{os.getpid()}:{new_id('w')[-6:]}"
        self._wake = asyncio.Event()
        self._stop = asyncio.Event()
        require_handlers()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()

    async def run(self) -> None:
        slots = [asyncio.create_task(self._slot(i)) for i in range(self.concurrency)]
        helpers = [asyncio.create_task(self._listen()), asyncio.create_task(self._reaper())]
        try:
            await self._stop.wait()
            log.info("worker_stopping", worker=self.id, grace_seconds=self.grace)
            # Slots leave after their current job; jobs still running after the grace period
            # are cancelled, and `run_one` hands each back.
            _, late = await asyncio.wait(slots, timeout=self.grace)
            for t in late:
                t.cancel()
        finally:
            for t in slots + helpers:
                t.cancel()
            await asyncio.gather(*slots, *helpers, return_exceptions=True)

    async def run_until_idle(self, timeout: float = 60.0) -> int:
        """Run due jobs until none is left (tests, `scheduler run-once`). Returns the count."""
        done = 0
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            if not await self.run_one():
                break
            done += 1
        return done

    async def _slot(self, index: int) -> None:
        while not self._stop.is_set():
            try:
                ran = await self.run_one()
            except Exception:
                log.exception("worker_slot_error", worker=self.id)
                ran = False
            if not ran:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), timeout=self.poll)

    async def _listen(self) -> None:
        url = to_plain_url(str(self.ctx.db.engine.url.render_as_string(hide_password=False)))
        while not self._stop.is_set():
            try:
                async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {repo.NOTIFY_CHANNEL}")
                    async for _ in conn.notifies():
                        self._wake.set()
            except asyncio.CancelledError:
                raise
            except Exception:  # the poll keeps jobs moving while LISTEN reconnects
                await asyncio.sleep(2)

    async def _reaper(self) -> None:
        interval = max(1.0, self.ctx.settings.job_stall_seconds / 4)
        while not self._stop.is_set():
            with contextlib.suppress(Exception):
                await reap(self.ctx.db, self.ctx.settings.job_stall_seconds)
            await asyncio.sleep(interval)

    async def run_one(self) -> bool:
        if self._stop.is_set():
            return False
        await sync_service_clock(self.ctx)
        async with self.ctx.db.transaction() as s:
            job_id = await repo.claim(s, self.id, self.types, at=clock.now())
        if job_id is None:
            return False
        if self._stop.is_set():  # stopped while claiming: not ours to start any more
            async with self.ctx.db.transaction() as s:
                await repo.hand_back(s, job_id, self.id)
            return False
        async with self.ctx.db.session() as s:
            job = await repo.get(s, job_id)
        assert job is not None
        beat = asyncio.create_task(self._heartbeat(job_id))
        try:
            outcome = await self._execute(job)
        except asyncio.CancelledError:
            async with self.ctx.db.transaction() as s:
                await repo.hand_back(s, job_id, self.id)
            log.info("job_handed_back", job=job_id, worker=self.id)
            raise
        finally:
            beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beat
        await self._settle(job_id, job.attempts, outcome)
        # What the job freed goes back to the system (a transcription leaves ~230 MB of
        # freed heap behind otherwise); in a thread: trimming a large heap takes milliseconds.
        await asyncio.to_thread(memory.release)
        return True

    async def _execute(self, job: Job) -> tuple[str, Any]:
        fn = HANDLERS.get(job.type)
        if fn is None:
            return "fail", ("unsupported_job", f"No handler for {job.type} jobs.")
        try:
            return "ok", await fn(self.ctx, job)
        except JobFailed as exc:
            return "fail", (exc.code, exc.message)
        except RetryableJobError as exc:
            return "retry", (exc.code, exc.message, exc.retry_after)
        except PlatformError as exc:
            if exc.retryable:
                return "retry", (exc.code, str(exc), exc.retry_after)
            return "fail", (exc.code, str(exc))
        except Exception as exc:
            log.error("job_crashed", job=job.id, type=job.type, error=repr(exc),
                      trace=traceback.format_exc(limit=5))
            return "retry", ("internal_error", "The job hit an unexpected error.", None)

    async def _settle(self, job_id: str, attempts: int, outcome: tuple[str, Any]) -> None:
        kind, data = outcome
        async with self.ctx.db.transaction() as s:
            job = await repo.get(s, job_id, for_update=True)
            if job is None or job.status != "processing" or job.worker_id != self.id:
                return  # the reaper gave it to someone else; their result wins
            if kind == "ok":
                await service.complete(s, job, data)
            elif kind == "retry" and attempts < job.max_attempts:
                code, message, retry_after = data
                delay = service.backoff(attempts)
                if retry_after:
                    delay = max(delay, timedelta(seconds=retry_after))
                await service.retry_later(s, job, delay=delay, error={"code": code, "message": message})
                kind = "retry"
            else:
                code, message = data[0], data[1]
                await service.fail(s, job, code=code, message=message)
                kind = "failed"
        JOBS.labels(job.type if job else "?", {"ok": "completed"}.get(kind, kind)).inc()

    async def _heartbeat(self, job_id: str) -> None:
        interval = max(0.5, self.ctx.settings.job_stall_seconds / 3)
        while True:
            await asyncio.sleep(interval)
            with contextlib.suppress(Exception):
                async with self.ctx.db.transaction() as s:
                    await repo.heartbeat(s, job_id, self.id)


async def reap(db: Database, stall_seconds: int) -> int:
    """Jobs whose worker stopped beating: back to pending while attempts remain, else failed
    (and refunded). Returns how many were handled."""
    async with db.transaction() as s:
        jobs = await repo.stalled(s, stall_seconds)
        for job in jobs:
            if job.attempts < job.max_attempts:
                await service.retry_later(
                    s, job, delay=timedelta(0),
                    error={"code": "worker_lost", "message": "The worker stopped; retrying."},
                )
            else:
                await service.fail(s, job, code="worker_lost",
                                   message="The worker running this job stopped too often.")
        return len(jobs)
