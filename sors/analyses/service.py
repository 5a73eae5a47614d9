"""The breakdown of a post: queue it (analyze_post), read it (get_analysis_result,
get_post), and the hook library (search_hooks). The `analysis` job computes it
(sors.analyses.breakdown); a language model may only phrase the summary (engine_llm).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from sors.analyses import repository as repo
from sors.analyses.schemas import AnalysisResult, HookCreator, HookItem, HookPage, HookSearchIn
from sors.catalog.models import Post
from sors.catalog.records.analysis_schemas import Analysis
from sors.catalog.records.fields import RESULT_WINDOW
from sors.catalog.records.paging import page_window, since
from sors.catalog.records.service import analysis_for
from sors.enrichment.schemas import JobState, poll_error
from sors.jobs import service as jobs
from sors.jobs.errors import JobNotFound
from sors.kit.clock import isoformat
from sors.platforms import taxonomy
from sors.queue.models import Job

# What the summary's language model may use (the breakdown's facts, not its wording).
EVIDENCE = frozenset({"score", "peerCount", "analysedPeerCount", "outlierCount", "hook",
                      "stoodOut", "basis", "comparison", "findings", "audienceDemand"})


def evidence_of(analysis: Analysis) -> dict[str, object]:
    """The facts the summary may use, as the language model reads them (JSON)."""
    facts: dict[str, object] = analysis.model_dump(mode="json", include=set(EVIDENCE),
                                                   exclude_unset=True)
    return facts


# ---- requests ------------------------------------------------------------------------------


async def request_analysis(
    session: AsyncSession, *, account_id: str, post: Post, credits: int, now: datetime,
    max_attempts: int,
) -> Job:
    """Every request is its own job: the creator's usual moves as they post, so a breakdown
    asked again is computed again (a client retrying one request uses an Idempotency-Key)."""
    job, _ = await jobs.enqueue(
        session,
        type="analysis",
        account_id=account_id,
        payload={"postId": post.id},
        credits=credits,
        now=now,
        max_attempts=max_attempts,
    )
    return job


async def analysis_result_for(
    session: AsyncSession, account_id: str, job_ref: str
) -> AnalysisResult:
    job = await repo.analysis_job(session, job_ref)
    # Another account's job, or a job that is not an analysis, looks exactly like a missing one.
    if job is None or job.account_id != account_id:
        raise JobNotFound(f"No analysis job {job_ref!r} for this account.")
    post_id = job.payload["postId"]
    done = JobState(job.status) is JobState.COMPLETED
    analysis = await analysis_for(session, post_id) if done else None
    return AnalysisResult(
        jobRef=job.id,
        status=job.status,
        postId=post_id,
        analysis=None if analysis is None else Analysis.model_validate(analysis),
        error=poll_error(job),
    )


# ---- the hook library ----------------------------------------------------------------------


def hook_item(row: repo.HookRow) -> HookItem:
    record, post, profile, score = row
    hook = (record.features or {}).get("hook") or {}
    source = hook.get("source") if isinstance(hook, dict) else None
    return HookItem(
        hookType=record.hook_type,
        text=record.hook_text,
        source=source if source in ("speech", "on_screen_text", "caption") else None,
        postId=post.id,
        url=post.url,
        platform=post.platform,
        contentType=post.content_type,
        publishedAt=isoformat(post.published_at),
        views=post.views,
        outlierScore=None if score is None else round(float(score), 2),
        creator=HookCreator(profileId=profile.id, platform=profile.platform,
                            handle=profile.handle, displayName=profile.display_name),
    )


async def search_hooks(session: AsyncSession, body: HookSearchIn, now: datetime) -> HookPage:
    page, size = body.page_number, body.page_size
    window = page_window(page, size)
    rows, total = await repo.search_hooks(
        session,
        query=body.query,
        hook_types=body.hookTypes,
        platforms=body.platforms,
        category_ids=taxonomy.descendants(body.categoryId) if body.categoryId else None,
        min_score=body.minOutlierScore,
        since=since(body.timeFrame, now),
        sort_by=body.sortBy or "score",
        limit=window.limit,
        offset=window.offset,
    )
    return HookPage(
        results=[hook_item(r) for r in rows],
        page=page,
        pageSize=size,
        total=min(total, RESULT_WINDOW),
        totalCapped=total > RESULT_WINDOW,
        hasMore=window.offset + window.limit < min(total, RESULT_WINDOW),
    )
