"""crawl_profile: a tracked profile answers at once; otherwise one crawl job per account and
handle is queued (a repeat while it is open returns the same job, free)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from sors.catalog.models import Profile
from sors.catalog.records.errors import ShortLinkNotSupported, UnsupportedUrl
from sors.jobs import service as jobs
from sors.kit.errors import ValidationFailed
from sors.platforms import urls
from sors.platforms.base import Platform
from sors.platforms.handles import InvalidHandle, normalize_handle
from sors.queue.models import Job


@dataclass(frozen=True)
class CrawlRequestOutcome:
    profile_id: str | None
    job: Job | None
    new_job: bool


def crawl_target(
    platform: Platform | None, handle: str | None, url: str | None
) -> tuple[Platform, str]:
    """(platform, canonical handle) named by `url` (parsed by the URL parser tracking and
    alerts use: a profile URL or a post URL naming its owner; nothing is fetched) or by
    `platform` and `handle`; given both ways, they must agree."""
    if (platform is None) != (handle is None):
        field = "handle" if handle is None else "platform"
        raise ValidationFailed.single(field, "platform and handle must be given together.")
    named: tuple[Platform, str] | None = None
    if platform is not None and handle is not None:
        try:
            named = (platform, normalize_handle(platform, handle))
        except InvalidHandle as exc:
            raise ValidationFailed.single("handle", str(exc)) from exc
    if url is None:
        if named is None:
            msg = "Name the profile with url, or with platform and handle."
            raise ValidationFailed([{"field": f, "message": msg}
                                    for f in ("url", "platform", "handle")])
        return named
    try:
        parsed = urls.parse_profile_url(url)
    except urls.ShortLinkNotSupported as exc:
        raise ShortLinkNotSupported(str(exc)) from exc
    except urls.UrlError as exc:
        raise UnsupportedUrl(str(exc)) from exc
    if named is not None and named != (parsed.platform, parsed.handle):
        raise ValidationFailed.single("url", "url and platform/handle name different profiles.")
    return parsed.platform, parsed.handle


async def active_profile_id(session: AsyncSession, platform: str, handle: str) -> str | None:
    stmt = select(Profile.id).where(
        Profile.platform == platform, Profile.handle == handle, Profile.is_active
    )
    return (await session.execute(stmt)).scalar()


async def request_crawl(
    session: AsyncSession, *, account_id: str, platform: str, handle: str, credits: int,
    now: datetime, max_attempts: int,
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
        now=now,
        max_attempts=max_attempts,
    )
    return CrawlRequestOutcome(None, job, created)
