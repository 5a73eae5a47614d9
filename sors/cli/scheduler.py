"""`sors scheduler run-once`: run what is due, wait for the jobs it made, say what happened.

A running `sors demo` has its own worker and scheduler on the same database: they may pick
up the jobs enqueued here, or tick first (within 15 s of `sors sim clock advance`). So the
summary is read from the database, whoever did the work, and this command waits until no due
job is left before its last tick. In simulation it reports what happened at the current
simulated moment (time stands still between two advances, so that is well defined and the
same however often the command runs); on real time, what happened while it ran.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import text

from sors.cli.common import console, err, fail, settings, with_runtime
from sors.kit.clock import isoformat
from sors.kit.db import Database
from sors.kit.runtime import Runtime

if TYPE_CHECKING:
    from sors.jobs.engine import Worker
    from sors.jobs.scheduler import Scheduler

WAIT_SECONDS = 1800.0  # a catch-up after `sim clock advance` crawls most of the catalog
SLOTS = 3


@dataclass
class Summary:
    now: str | None
    refreshes: int  # camelCase: these are the --json field names
    newPosts: int
    alertHits: int
    digestsSent: int
    jobsRun: int
    keeperCrawls: int = 0  # the catalog keeper's own crawls (no account charged)
    keeperNewPosts: int = 0
    discovered: int = 0  # new creators crawled into the catalog by the keeper


_COUNTS = text("""
SELECT (SELECT count(*) FROM alert_hits),
       (SELECT count(*) FROM email_outbox WHERE kind = 'alert_digest' AND status = 'sent'),
       clock_timestamp()
""")
_REFRESHES = text("""
SELECT count(*), coalesce(sum((result->>'newPosts')::int), 0)
  FROM jobs WHERE type = 'refresh' AND status = 'completed' AND finished_at >= :since
   AND origin <> 'catalog'
""")
# The keeper's crawls: queued at this simulated instant (sim) or since the start (live).
_KEEPER = text("""
SELECT count(*) FILTER (WHERE NOT j.result ? 'skipped'),
       coalesce(sum((j.result->>'newPosts')::int), 0),
       count(*) FILTER (WHERE c.kind = 'discovery' AND NOT j.result ? 'skipped')
  FROM catalog_crawls c JOIN jobs j ON j.id = c.job_id AND j.status = 'completed'
 WHERE CASE WHEN CAST(:now AS timestamptz) IS NULL THEN j.finished_at >= :since
            ELSE c.enqueued_at = :now END
""")
# The same four numbers for one simulated instant: refreshes whose crawl happened at :now
# (the last refresh job of each tracking entry), hits detected and digests sent at :now.
_AT_SIM_NOW = text("""
WITH refreshed AS (
    SELECT DISTINCT j.id, (j.result->>'newPosts')::int AS new_posts
      FROM tracked_profiles t
      JOIN jobs j ON j.id = t.last_job_id AND j.type = 'refresh' AND j.status = 'completed'
      JOIN profiles p ON p.id = t.profile_id AND p.last_crawled_at = :now
)
SELECT (SELECT count(*) FROM refreshed),
       (SELECT coalesce(sum(new_posts), 0) FROM refreshed),
       (SELECT count(*) FROM alert_hits WHERE detected_at = :now),
       (SELECT count(*) FROM email_outbox
         WHERE kind = 'alert_digest' AND status = 'sent' AND sent_at = :now)
""")
_OPEN_JOBS = text("""
SELECT count(*) FROM jobs
 WHERE status = 'processing' OR (status = 'pending' AND run_after <= now())
""")
_OPEN_JOB_IDS = text("""
SELECT id FROM jobs WHERE status = 'processing' OR (status = 'pending' AND run_after <= now())
""")


async def _counts(db: Database) -> tuple[int, int, datetime]:
    async with db.session() as s:
        hits, digests, at = (await s.execute(_COUNTS)).one()
    return int(hits), int(digests), at


async def _tick(sched: Scheduler) -> dict[str, int]:
    """One tick; waits while another scheduler (a running demo) holds the tick lock."""
    for _ in range(200):
        done = await sched.tick()
        if done:
            return done
        await asyncio.sleep(0.1)
    raise TimeoutError("another scheduler kept the tick lock for 20 s")


async def _drain(db: Database, worker: Worker) -> int:
    """Run due jobs here until none is left, also waiting for jobs another worker holds."""
    ran = 0
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_SECONDS
    while loop.time() < deadline:
        # A few jobs in flight, like a worker's slots: after `sors sim clock advance` the
        # catalog keeper queues a crawl for most of the catalog.
        left = deadline - loop.time()
        ran += sum(await asyncio.gather(*(worker.run_until_idle(timeout=left)
                                          for _ in range(SLOTS))))
        async with db.session() as s:
            if not (await s.execute(_OPEN_JOBS)).scalar_one():
                return ran
        await asyncio.sleep(0.2)
    raise TimeoutError(f"jobs were still running after {WAIT_SECONDS:.0f} s")


class JobProgress:
    """A progress bar on stderr (stdout stays the summary): the due jobs seen so far and how
    many of them are done, whichever worker ran them (a running demo's may). Counted by job
    id, so it holds whatever clock the jobs' times follow. Only on a terminal: a script's
    stderr stays empty."""

    def __init__(self, db: Database) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        self.db = db
        self.seen: set[str] = set()
        self.bar = Progress(
            "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn(), console=err, disable=not err.is_terminal,
        )
        self.task = self.bar.add_task("enqueueing what is due", total=None)

    def phase(self, description: str) -> None:
        self.bar.update(self.task, description=description)

    async def poll(self) -> None:
        async with self.db.session() as s:
            open_ids = set((await s.execute(_OPEN_JOB_IDS)).scalars())
        self.seen |= open_ids
        self.bar.update(self.task, total=len(self.seen), completed=len(self.seen - open_ids))

    async def follow(self) -> None:
        while True:
            await self.poll()
            await asyncio.sleep(0.5)


async def _run(rt: Runtime) -> Summary:
    from sors.jobs.engine import Worker
    from sors.jobs.scheduler import Scheduler

    db = rt.database
    hits0, digests0, since = await _counts(db)
    sched = Scheduler(rt)
    worker = Worker(rt, concurrency=SLOTS)
    progress = JobProgress(db)
    with progress.bar:
        following = asyncio.create_task(progress.follow())
        try:
            await _tick(sched)
            progress.phase("running due jobs")
            ran = await _drain(db, worker)
            progress.phase("enqueueing what the jobs made due")
            await _tick(sched)  # what the jobs made due: detection after crawls, then digests
            progress.phase("running due jobs")
            ran += await _drain(db, worker)
            progress.phase("jobs done")
            await progress.poll()
        finally:
            following.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await following
    if rt.settings.platform_source == "sim":
        await rt.clock.refresh(force=True)
        now = rt.now()
        async with db.session() as session:
            refreshes, new_posts, hits, digests = (
                await session.execute(_AT_SIM_NOW, {"now": now})
            ).one()
            keeper = (await session.execute(_KEEPER, {"now": now, "since": since})).one()
        return Summary(
            now=isoformat(now), refreshes=int(refreshes), newPosts=int(new_posts),
            alertHits=int(hits), digestsSent=int(digests), jobsRun=ran,
            keeperCrawls=int(keeper[0]), keeperNewPosts=int(keeper[1]), discovered=int(keeper[2]),
        )
    hits1, digests1, _ = await _counts(db)
    async with db.session() as session:
        done, new_posts = (await session.execute(_REFRESHES, {"since": since})).one()
        keeper = (await session.execute(_KEEPER, {"now": None, "since": since})).one()
    return Summary(
        now=None, refreshes=int(done), newPosts=int(new_posts),
        alertHits=hits1 - hits0, digestsSent=digests1 - digests0, jobsRun=ran,
        keeperCrawls=int(keeper[0]), keeperNewPosts=int(keeper[1]), discovered=int(keeper[2]),
    )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def run_once(*, as_json: bool) -> None:
    s = settings()
    try:  # the jobs' own info lines would bury the summary: the CLI logs warnings only
        summary = with_runtime(_run)
    except TimeoutError as exc:
        fail(str(exc))
        return
    if as_json:
        print(json.dumps(asdict(summary)))
        return
    lines = []
    if summary.now:
        lines.append(f"simulated time  {summary.now}")
    lines += [
        f"refreshes run   {summary.refreshes}",
        f"new posts found {summary.newPosts}",
        f"alerts fired    {summary.alertHits}"
        + (f"  ({_plural(summary.alertHits, 'post')} matched an alert)"
           if summary.alertHits else ""),
        f"digests sent    {summary.digestsSent}"
        + (f"  (emails in {s.outbox_dir})" if summary.digestsSent and s.email.backend == "file"
           else ""),
        f"catalog kept    {_plural(summary.keeperCrawls, 'profile')} crawled by the keeper"
        f" ({summary.discovered} newly discovered), {summary.keeperNewPosts} new posts",
    ]
    console.print("\n".join(lines), soft_wrap=True, highlight=False)
