"""remix_post and get_remix_result: queue a remix job, read its result."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.models import Post
from sors.jobs import service as jobs
from sors.jobs.errors import JobNotFound
from sors.queue.models import Job
from sors.remix import repository as repo
from sors.remix.schemas import RemixResult, remix_result


async def request_remix(
    session: AsyncSession,
    *,
    account_id: str,
    post: Post,
    target_niche: str,
    tone: str | None,
    credits: int,
    now: datetime,
    max_attempts: int,
) -> Job:
    """Every remix request is its own job (another niche or tone is another remix); a
    client retrying one request uses an Idempotency-Key."""
    job, _ = await jobs.enqueue(
        session,
        type="remix",
        account_id=account_id,
        payload={"postId": post.id},
        credits=credits,
        now=now,
        max_attempts=max_attempts,
    )
    await repo.add(session, job_id=job.id, post_id=post.id, target_niche=target_niche, tone=tone)
    return job


async def remix_result_for(session: AsyncSession, account_id: str, job_ref: str) -> RemixResult:
    found = await repo.with_job(session, job_ref)
    # Another account's remix, or a job that is not a remix, looks exactly like a missing one.
    if found is None or found[0].account_id != account_id:
        raise JobNotFound(f"No remix job {job_ref!r} for this account.")
    job, record = found
    return remix_result(job, record)
