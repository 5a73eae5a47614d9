"""crawl_profile: a tracked profile answers at once; otherwise one crawl job per account and
handle is queued (a repeat while it is open returns the same job, free)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.models import Profile
from sors.jobs import service as jobs
from sors.queue.models import Job


@dataclass(frozen=True)
class CrawlRequestOutcome:
    profile_id: str | None
    job: Job | None
    new_job: bool


async def active_profile_id(session: AsyncSession, platform: str, handle: str) -> str | None:
    stmt = select(Profile.id).where(
        Profile.platform == platform, Profile.handle == handle, Profile.is_active
    )
    return (await session.execute(stmt)).scalar()


async def request_crawl(
    session: AsyncSession, *, account_id: str, platform: str, handle: str, credits: int
) -> CrawlRequestOutcome:
    existing = await active_profile_id(session, platform, handle)
    if existing:
        return CrawlRequestOutcome(existing, None, False)
    job, created = await jobs.enqueue(
        session,
        type="crawl",
        account_id=account_id,
        payload={"platform": platform, "handle": handle},
        credits=credits,
        dedupe_key=f"crawl:{account_id}:{platform}:{handle}",
        target=f"{platform}:{handle}",
    )
    return CrawlRequestOutcome(None, job, created)
