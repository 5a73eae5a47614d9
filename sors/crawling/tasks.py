"""Crawl jobs: fetch a profile through the platform adapter and ingest it."""

from __future__ import annotations

from sqlalchemy import func, select

from sors.catalog.ingest import freshness, spend
from sors.catalog.ingest.service import ingest_crawls
from sors.catalog.models import Post, Profile
from sors.crawling import exclusive
from sors.crawling.outcome import CrawlJobResult, Skipped
from sors.jobs.engine import JobContext, JobFailed
from sors.jobs.platform import adapter_for, sync_world
from sors.monitoring import service as monitoring
from sors.platforms import shared_pacing
from sors.platforms.base import (
    EmptyAnswer,
    Platform,
    PlatformError,
    ProfileNotFound,
    platform_of,
)
from sors.queue.models import Job


async def crawl_and_ingest(ctx: JobContext, job: Job) -> CrawlJobResult:
    """Fetch and ingest one profile, never twice at once: a crawl holds the profile's lock
    while it fetches. A keeper crawl that finds the profile busy steps aside; a paid crawl
    waits, and when another crawl of the profile completed after this job was queued it
    takes that crawl's result instead of fetching again (one fetch, both jobs answered)."""
    platform, handle = platform_of(job.payload["platform"]), job.payload["handle"]
    target = job.target or f"{platform}:{handle}"
    catalog = job.origin == "catalog"
    # Keeper crawls' requests yield to users' in the shared platform pacing.
    token = shared_pacing.background.set(catalog)
    try:
        async with exclusive.profile_lock(ctx.db, target, wait=not catalog) as held:
            if not held:
                return {"profileId": job.payload.get("profileId"), "postsSeen": 0,
                        "newPosts": 0, "skipped": Skipped.PROFILE_BUSY}
            async with ctx.db.session() as s:
                earlier = await exclusive.completed_since(s, target, job.id, job.created_at)
            if earlier is not None:
                if catalog:
                    earlier["coalesced"] = True
                return earlier
            return await _fetch_and_ingest(ctx, job, platform, handle)
    finally:
        shared_pacing.background.reset(token)


async def _fetch_and_ingest(
    ctx: JobContext, job: Job, platform: Platform, handle: str
) -> CrawlJobResult:
    await sync_world(ctx)
    now = ctx.now()
    try:
        snap = await adapter_for(ctx).fetch_profile(platform, handle, now=now)
    except PlatformError as exc:
        if exc.source_run is not None:  # a failed provider run is paid for all the same
            async with ctx.db.transaction() as s:
                await spend.record_run(s, exc.source_run, job_id=job.id, platform=platform,
                                       handle=handle, at=now)
        if isinstance(exc, EmptyAnswer) and not await _has_posts(ctx, platform, handle):
            raise JobFailed(
                "profile_not_found",
                f"No public {platform} profile @{handle}: the source found nothing for it.",
            ) from exc
        if not isinstance(exc, ProfileNotFound):
            raise
        known = job.payload.get("profileId")
        if job.origin == "catalog" and known:
            # The keeper's own check found the profile gone: it is deactivated (frozen
            # stats) and looked at monthly; the job itself completes.
            async with ctx.db.transaction() as s:
                await freshness.deactivate(s, known, now)
            return {"profileId": known, "postsSeen": 0, "newPosts": 0,
                    "skipped": Skipped.PROFILE_NOT_FOUND}
        raise JobFailed("profile_not_found", f"No public {platform} profile @{handle}.") from exc
    async with ctx.db.transaction() as s:
        if snap.source_run is not None:
            await spend.record_run(s, snap.source_run, job_id=job.id, platform=platform,
                                   handle=handle, at=now)
        await freshness.reactivate(s, snap.profile.platform, snap.profile.handle)
        [profile_id] = await ingest_crawls(
            s, [snap], min_age_hours=ctx.settings.jobs.baseline_min_age_hours,
            policy=freshness.Policy.from_settings(ctx.settings),
        )
        new_posts = (
            await s.execute(
                select(func.count()).select_from(Post).where(
                    Post.profile_id == profile_id, Post.first_seen_at == snap.fetched_at
                )
            )
        ).scalar_one()
        if new_posts:
            await monitoring.announce_new_posts(s, profile_id, snap.fetched_at,
                                                ctx.settings.jobs.baseline_min_age_hours)
        await monitoring.announce_changes(s, profile_id, snap.profile.handle,
                                          snap.profile.platform, snap.fetched_at)
        result: CrawlJobResult = {"profileId": profile_id, "postsSeen": len(snap.posts),
                                  "newPosts": int(new_posts), "source": snap.source}
        if snap.source_run is not None:  # a data provider's: what its run cost
            result["sourceCostUsd"] = snap.source_run.cost_usd
        await exclusive.record_crawl(s, job.id, result, ctx.now())
    return result


async def _has_posts(ctx: JobContext, platform: str, handle: str) -> bool:
    """Whether the catalog knows the profile with posts: an empty answer for it is then a
    failing source, not a profile that does not exist."""
    async with ctx.db.session() as s:
        found = await s.scalar(
            select(func.count()).select_from(Post).join(Profile, Profile.id == Post.profile_id)
            .where(Profile.platform == platform, Profile.handle == handle, Profile.is_active)
        )
    return bool(found)


async def _counted(ctx: JobContext, job: Job) -> CrawlJobResult:
    if job.origin != "catalog":
        return await crawl_and_ingest(ctx, job)
    from sors.keeper.status import KEEPER_CRAWLS

    platform = job.payload["platform"]
    try:
        result = await crawl_and_ingest(ctx, job)
    except Exception:
        KEEPER_CRAWLS.labels(platform, "error").inc()
        raise
    outcome = result.get("skipped") or ("coalesced" if result.get("coalesced") else "crawled")
    KEEPER_CRAWLS.labels(platform, outcome).inc()
    return result


async def crawl(ctx: JobContext, job: Job) -> CrawlJobResult:
    return await _counted(ctx, job)


async def refresh(ctx: JobContext, job: Job) -> CrawlJobResult:
    return await _counted(ctx, job)


# The jobs this module runs, by type (named in sors.wiring's registries).
HANDLERS = {"crawl": crawl, "refresh": refresh}
