"""The job queue's own rules: one open job per dedupe key, claims that skip what another
worker holds, and a job handed back (its worker stopping) that is due again at once."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sors.kit.db import Database
from sors.queue import repository as queue
from sors.queue.models import NewJob
from tests.factories.world import scalar

pytestmark = pytest.mark.usefixtures("clean")
AT = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def _job(job_id: str, dedupe_key: str | None = None) -> NewJob:
    return NewJob(id=job_id, account_id=None, type="crawl", payload={"handle": job_id},
                  credits_charged=0, max_attempts=4, dedupe_key=dedupe_key, created_at=AT)


async def test_an_open_dedupe_key_takes_no_second_job_until_the_first_ends(db: Database) -> None:
    async with db.transaction() as s:
        assert await queue.insert_job(s, _job("job_a", "crawl:x"))
        assert not await queue.insert_job(s, _job("job_b", "crawl:x"))
        assert (await queue.open_job_by_dedupe(s, "crawl:x")).id == "job_a"
        job = await queue.get(s, "job_a")
        job.status = "completed"
        await s.flush()
        assert await queue.insert_job(s, _job("job_c", "crawl:x"))


async def test_claims_skip_held_jobs_and_a_handed_back_job_is_due_again(db: Database) -> None:
    async with db.transaction() as s:
        await queue.insert_job(s, _job("job_a"))
        await queue.insert_job(s, _job("job_b"))
    async with db.transaction() as first:
        mine = await queue.claim(first, "w1", None, at=AT)
        async with db.transaction() as second:  # the first claim's row stays locked
            theirs = await queue.claim(second, "w2", None, at=AT)
    assert {mine, theirs} == {"job_a", "job_b"}
    async with db.transaction() as s:
        assert await queue.claim(s, "w3", None, at=AT) is None
        await queue.hand_back(s, mine, "w1")
    assert await scalar(db, "SELECT attempts FROM jobs WHERE id = :j", j=mine) == 0
    async with db.transaction() as s:
        assert await queue.claim(s, "w3", ["crawl"], at=AT) == mine
