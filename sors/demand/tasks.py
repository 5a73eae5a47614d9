"""`comments` jobs: fetch a post's comments through the platform adapter's source, record
what a data provider's run cost, keep the comments typed and embedded. A failing source
fails the job (refunded once by the job engine) or retries it when the failure may pass."""

from __future__ import annotations

from typing import TypedDict

from sors.catalog.ingest import spend
from sors.catalog.models import Post, Profile
from sors.demand import service
from sors.jobs.engine import JobContext, JobFailed
from sors.jobs.platform import adapter_for, sync_world
from sors.platforms.base import CommentsSnapshot, PlatformError, PostRef, platform_of
from sors.queue.models import Job


class CommentsJobResult(TypedDict):
    postId: str
    commentsSeen: int
    newComments: int
    source: str | None
    sourceCostUsd: float | None


async def fetch_comments(ctx: JobContext, job: Job) -> CommentsJobResult:
    post_id, limit = job.payload["postId"], int(job.payload["limit"])
    async with ctx.db.session() as s:
        post = await s.get(Post, post_id)
        profile = await s.get(Profile, post.profile_id) if post is not None else None
    if post is None or profile is None:
        raise JobFailed("post_not_found", f"No post {post_id} in the catalog any more.")
    ref = PostRef(platform=platform_of(post.platform), platform_post_id=post.platform_post_id,
                  url=post.url, content_type=post.content_type, handle=profile.handle,
                  published_at=post.published_at, extra=post.extra or {})
    await sync_world(ctx)
    fetch = getattr(adapter_for(ctx), "fetch_comments", None)
    if fetch is None:
        raise JobFailed("comments_unsupported", "This source cannot fetch comments.")
    now = ctx.now()
    try:
        snap: CommentsSnapshot = await fetch(ref, limit=limit, now=now)
    except PlatformError as exc:
        if exc.source_run is not None:  # a failed provider run is paid for all the same
            async with ctx.db.transaction() as s:
                await spend.record_run(s, exc.source_run, job_id=job.id, platform=post.platform,
                                       handle=profile.handle, at=now)
        raise
    labelled = await service.label_comments(ctx.settings, snap.comments)
    async with ctx.db.transaction() as s:
        if snap.source_run is not None:
            await spend.record_run(s, snap.source_run, job_id=job.id, platform=post.platform,
                                   handle=profile.handle, at=now)
        kept = await service.keep(s, labelled, now=now, settings=ctx.settings,
                                  source=snap.source or "sim")
    return {"postId": post_id, "commentsSeen": len(snap.comments), "newComments": kept.new,
            "source": snap.source,
            "sourceCostUsd": snap.source_run.cost_usd if snap.source_run else None}


# The jobs this module runs, by type (named in sors.wiring's registries).
HANDLERS = {"comments": fetch_comments}
