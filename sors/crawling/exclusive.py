"""One crawl of a profile at a time, across every worker process: a PostgreSQL advisory
lock per "platform:handle", held on its own connection while the crawl fetches and ingests
(a worker that dies drops its connection, and with it the lock)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime

import orjson
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from sors.crawling.outcome import CrawlJobResult
from sors.kit.db import Database

# Two-key form: the first key names this use, so other advisory locks never collide.
_NAMESPACE = 0x5052_4C4B


@asynccontextmanager
async def profile_lock(db: Database, target: str, *, wait: bool) -> AsyncIterator[bool]:
    """Yields True while holding the profile's lock. With `wait=False`, yields False at once
    when another crawl holds it."""
    async with db.engine.connect() as raw:
        conn = await raw.execution_options(isolation_level="AUTOCOMMIT")
        params = {"ns": _NAMESPACE, "t": target}
        if wait:
            await conn.execute(text("SELECT pg_advisory_lock(:ns, hashtext(:t))"), params)
            held = True
        else:
            held = bool((await conn.execute(
                text("SELECT pg_try_advisory_lock(:ns, hashtext(:t))"), params)).scalar())
        try:
            yield held
        finally:
            if held:
                await conn.execute(text("SELECT pg_advisory_unlock(:ns, hashtext(:t))"), params)


# A crawl records its result (and when it fetched) in its own job row in the transaction
# that ingests, before it lets go of the lock: whoever takes the lock next sees it, even
# before the worker settles the job as completed.
_RECORD = text("""
UPDATE jobs SET result = CAST(:result AS jsonb),
       payload = payload || jsonb_build_object('crawledAt', CAST(:at AS timestamptz))
 WHERE id = :me
""")
_COMPLETED_SINCE = text("""
SELECT result FROM jobs
 WHERE target = :target AND id <> :me AND type IN ('crawl', 'refresh')
   AND status IN ('processing', 'completed') AND result ? 'profileId'
   AND CAST(payload->>'crawledAt' AS timestamptz) >= :since
 ORDER BY CAST(payload->>'crawledAt' AS timestamptz) DESC LIMIT 1
""")


async def record_crawl(
    session: AsyncSession, job_id: str, result: CrawlJobResult, at: datetime
) -> None:
    """`at`: the service clock's time, as the jobs' `created_at` it is compared with
    (simulated time in simulation)."""
    await session.execute(_RECORD, {"me": job_id, "result": orjson.dumps(result).decode(),
                                    "at": at})


async def completed_since(
    session: AsyncSession, target: str, job_id: str, since: datetime
) -> CrawlJobResult | None:
    """The result of a crawl of this profile that fetched after `since` (this job's
    creation), whoever asked for it."""
    row = (await session.execute(
        _COMPLETED_SINCE, {"target": target, "me": job_id, "since": since})).first()
    if row is None:
        return None
    r = row[0]
    return {"profileId": r["profileId"], "postsSeen": r["postsSeen"], "newPosts": r["newPosts"]}
