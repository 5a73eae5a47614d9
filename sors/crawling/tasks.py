"""Crawl jobs: fetch a profile through the platform adapter and ingest it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from sors.catalog.ingest import ingest_crawls
from sors.catalog.models import Post
from sors.jobs.engine import JobContext, JobFailed, handler
from sors.jobs.models import Job
from sors.kit import clock
from sors.platforms.base import ProfileNotFound
from sors.webhooks import events as webhook_events


def adapter_for(ctx: JobContext):
    """The worker's platform adapter. In simulation it is built for the world seed stored
    with the data (read by `sync_clock`): another seed would be another world."""
    seed = getattr(ctx, "_sim_seed", None)
    cached = getattr(ctx, "_adapter", None)
    if cached is None or cached[0] != seed:
        from sors.platforms.registry import get_adapter

        cached = (seed, get_adapter(ctx.settings, sim_seed=seed))
        ctx._adapter = cached  # type: ignore[attr-defined]
    return cached[1]


async def sync_clock(ctx: JobContext) -> None:
    if ctx.settings.platform_source == "sim":
        from sors.platforms.sim.clock import sync_process_clock

        holder = ctx.app_state if ctx.app_state is not None else ctx
        if not hasattr(holder, "db"):
            holder.db = ctx.db
        if not hasattr(holder, "settings"):
            holder.settings = ctx.settings
        if not hasattr(holder, "sim_clock"):
            holder.sim_clock = None
        await sync_process_clock(holder)
        from sors.platforms.sim.clock import get_state

        async with ctx.db.session() as s:
            state = await get_state(s)
        ctx._sim_seed = state.seed if state is not None else ctx.settings.sim_seed  # type: ignore[attr-defined]


async def crawl_and_ingest(ctx: JobContext, platform: str, handle: str) -> dict[str, Any]:
    await sync_clock(ctx)
    try:
        snap = await adapter_for(ctx).fetch_profile(platform, handle, now=clock.now())
    except ProfileNotFound as exc:
        raise JobFailed("profile_not_found", f"No public {platform} profile @{handle}.") from exc
    async with ctx.db.transaction() as s:
        [profile_id] = await ingest_crawls(s, [snap])
        new_posts = (
            await s.execute(
                select(func.count()).select_from(Post).where(
                    Post.profile_id == profile_id, Post.first_seen_at == snap.fetched_at
                )
            )
        ).scalar_one()
        if new_posts:
            await webhook_events.tracking_new_posts(s, profile_id, snap.fetched_at)
    return {"profileId": profile_id, "postsSeen": len(snap.posts), "newPosts": int(new_posts)}


@handler("crawl")
async def crawl(ctx: JobContext, job: Job) -> dict[str, Any]:
    return await crawl_and_ingest(ctx, job.payload["platform"], job.payload["handle"])


@handler("refresh")
async def refresh(ctx: JobContext, job: Job) -> dict[str, Any]:
    return await crawl_and_ingest(ctx, job.payload["platform"], job.payload["handle"])
