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
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum

import psycopg
import structlog

from sors.config import Settings
from sors.jobs import service
from sors.kit import memory
from sors.kit.db import Database, to_plain_url
from sors.kit.ids import new_id
from sors.kit.metrics import JOBS
from sors.kit.runtime import Runtime
from sors.platforms.base import PlatformAdapter, PlatformError
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
    """What a worker's jobs run with: the process's runtime, and the platform adapter built
    once per worker (in simulation, for the seed of the world stored with the data)."""

    runtime: Runtime
    adapter: PlatformAdapter | None = None
    adapter_seed: int | None = None
    world_seed: int | None = None  # in simulation, the stored world's (jobs.platform)

    @property
    def settings(self) -> Settings:
        return self.runtime.settings

    @property
    def db(self) -> Database:
        return self.runtime.database

    def now(self) -> datetime:
        return self.runtime.now()


# A handler returns the job's result: JSON as its kind writes it.
Handler = Callable[[JobContext, Job], Awaitable[Mapping[str, object]]]


class Settle(StrEnum):
    """How a job ended this attempt."""

    DONE = "completed"
    RETRY = "retry"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class Outcome:
    settle: Settle
    result: Mapping[str, object] = field(default_factory=dict)
    code: str = ""
    message: str = ""
    retry_after: float | None = None


def handlers_of(runtime: Runtime) -> Mapping[str, Handler]:
    """The job handlers the door registered (`sors.wiring`); a worker with none would claim
    jobs it cannot run."""
    handlers = runtime.registries.handlers
    if not handlers:
        raise RuntimeError("no job handlers registered: build the runtime with sors.wiring")
    return handlers


class Worker:
    def __init__(self, runtime: Runtime, *, concurrency: int | None = None,
                 types: list[str] | None = None, poll: float = 1.0,
                 grace: float | None = None) -> None:
        self.ctx = JobContext(runtime)
        self.handlers = handlers_of(runtime)
        jobs = runtime.settings.jobs
        self.concurrency = concurrency or jobs.worker_concurrency
        self.grace = jobs.worker_grace_seconds if grace is None else grace
        self.types = types
        self.poll = poll
        self.id = f"{socket.gethostname()}:{os.getpid()}:{new_id('w')[-6:]}"
        self._wake = asyncio.Event()
        self._stop = asyncio.Event()

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
        interval = max(1.0, self.ctx.settings.jobs.stall_seconds / 4)
        while not self._stop.is_set():
            try:
                await self.ctx.runtime.clock.refresh()  # it may run before any job did
                await reap(self.ctx.db, self.ctx.settings.jobs.stall_seconds, self.ctx.now())
            except Exception:  # the next round tries again; say why this one did not
                log.exception("reaper_failed", worker=self.id)
            await asyncio.sleep(interval)

    async def run_one(self) -> bool:
        if self._stop.is_set():
            return False
        await self.ctx.runtime.clock.refresh()  # simulated time lives in the database
        async with self.ctx.db.transaction() as s:
            job_id = await repo.claim(s, self.id, self.types, at=self.ctx.now())
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

    async def _execute(self, job: Job) -> Outcome:
        fn = self.handlers.get(job.type)
        if fn is None:
            return Outcome(Settle.FAILED, code="unsupported_job",
                           message=f"No handler for {job.type} jobs.")
        try:
            return Outcome(Settle.DONE, await fn(self.ctx, job))
        except JobFailed as exc:
            return Outcome(Settle.FAILED, code=exc.code, message=exc.message)
        except RetryableJobError as exc:
            return Outcome(Settle.RETRY, code=exc.code, message=exc.message,
                           retry_after=exc.retry_after)
        except PlatformError as exc:
            return Outcome(Settle.RETRY if exc.retryable else Settle.FAILED, code=exc.code,
                           message=str(exc), retry_after=exc.retry_after)
        except Exception as exc:
            log.error("job_crashed", job=job.id, type=job.type, error=repr(exc),
                      trace=traceback.format_exc(limit=5))
            return Outcome(Settle.RETRY, code="internal_error",
                           message="The job hit an unexpected error.")

    async def _settle(self, job_id: str, attempts: int, outcome: Outcome) -> None:
        settled = outcome.settle
        async with self.ctx.db.transaction() as s:
            job = await repo.get(s, job_id, for_update=True)
            if job is None or job.status != "processing" or job.worker_id != self.id:
                return  # the reaper gave it to someone else; their result wins
            now = self.ctx.now()
            if settled is Settle.DONE:
                await service.complete(s, job, outcome.result, now)
            elif settled is Settle.RETRY and attempts < job.max_attempts:
                delay = service.backoff(attempts)
                if outcome.retry_after:
                    delay = max(delay, timedelta(seconds=outcome.retry_after))
                await service.retry_later(
                    s, job, delay=delay, error={"code": outcome.code, "message": outcome.message})
            else:
                await service.fail(s, job, code=outcome.code, message=outcome.message, now=now)
                settled = Settle.FAILED
        JOBS.labels(job.type if job else "?", settled.value).inc()

    async def _heartbeat(self, job_id: str) -> None:
        interval = max(0.5, self.ctx.settings.jobs.stall_seconds / 3)
        while True:
            await asyncio.sleep(interval)
            try:
                async with self.ctx.db.transaction() as s:
                    await repo.heartbeat(s, job_id, self.id)
            except Exception:  # a missed beat; the reaper waits several before acting
                log.exception("heartbeat_failed", job=job_id, worker=self.id)


async def reap(db: Database, stall_seconds: int, now: datetime) -> int:
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
                                   message="The worker running this job stopped too often.",
                                   now=now)
        return len(jobs)
