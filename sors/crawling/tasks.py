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


def adapter_for(ctx: JobContext):
    adapter = getattr(ctx, "_adapter", None)
    if adapter is None:
        from sors.platforms.registry import get_adapter

        adapter = get_adapter(ctx.settings)
        ctx._adapter = adapter  # type: ignore[attr-defined]
    return adapter


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
    return {"profileId": profile_id, "postsSeen": len(snap.posts), "newPosts": int(new_posts)}


@handler("crawl")
async def crawl(ctx: JobContext, job: Job) -> dict[str, Any]:
    return await crawl_and_ingest(ctx, job.payload["platform"], job.payload["handle"])


@handler("refresh")
async def refresh(ctx: JobContext, job: Job) -> dict[str, Any]:
    return await crawl_and_ingest(ctx, job.payload["platform"], job.payload["handle"])
