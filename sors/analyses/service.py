"""The breakdown of a post against its creator's usual: queue it (analyze_post), compute
it (the `analysis` job calls `breakdown`), read it (get_analysis_result, get_post).

Every claim is computed here from the catalog's records (features, baseline, what stood
out, evidence); a language model may only phrase the summary (engine_llm).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from sors.analyses import repository as repo
from sors.analyses.baseline import Peer, compare
from sors.analyses.features import PostFeatures, PostMaterial, post_features
from sors.analyses.schemas import AnalysisResult, HookCreator, HookItem, HookPage, HookSearchIn
from sors.analyses.summary import offline_summary, with_anomaly_note, with_evidence
from sors.catalog.models import Post, TranscriptRecord, VisualAnalysisRecord
from sors.catalog.records.analysis_schemas import Analysis
from sors.catalog.records.fields import RESULT_WINDOW
from sors.catalog.records.paging import page_window, since
from sors.catalog.records.service import analysis_for
from sors.enrichment.analysis import Scene, TranscriptSegment
from sors.enrichment.schemas import JobState, poll_error
from sors.jobs import service as jobs
from sors.jobs.errors import JobNotFound
from sors.kit.clock import isoformat
from sors.platforms import taxonomy
from sors.queue.models import Job

# What the summary's language model may use (the breakdown's facts, not its wording).
EVIDENCE = frozenset({"score", "peerCount", "analysedPeerCount", "outlierCount", "hook",
                      "stoodOut"})


def material(
    post: Post, transcript: TranscriptRecord | None, visual: VisualAnalysisRecord | None
) -> PostMaterial:
    return PostMaterial(
        content_type=post.content_type,
        caption=post.caption or "",
        published_at=post.published_at,
        duration_seconds=post.duration_seconds,
        hashtags=list(post.hashtags or []),
        transcript_source=transcript.source if transcript else None,
        segments=[TranscriptSegment.from_json(s) for s in transcript.segments or []]
        if transcript else [],
        scenes=[Scene.from_json(s) for s in visual.scenes or []] if visual else None,
        has_media=transcript is not None and visual is not None,
    )


def score_of(post: Post) -> float | None:
    return post.score_three_months if post.score_three_months is not None else post.score_all_time


def features_row(post_id: str, feats: PostFeatures) -> repo.FeaturesRow:
    hook = feats.hook if feats.hook is not None and feats.hook.text else None
    return repo.FeaturesRow(post_id, feats.to_json(), hook.type if hook else None,
                            hook.text if hook else None)


async def refresh_creator_features(
    session: AsyncSession, profile_id: str
) -> tuple[dict[str, PostFeatures], dict[str, Post], dict[str, VisualAnalysisRecord | None]]:
    """Compute and store the features of every live post of the creator; returns them by
    post id with the posts and their scene analyses."""
    rows = await repo.creator_posts(session, profile_id)
    feats = {p.id: post_features(material(p, t, v)) for p, t, v in rows}
    await repo.save_features(session, [features_row(pid, f) for pid, f in feats.items()])
    return feats, {p.id: p for p, _, _ in rows}, {p.id: v for p, _, v in rows}


async def breakdown(session: AsyncSession, post_id: str) -> Analysis:
    """The post's breakdown, its summary the offline one (the job may have it phrased);
    its `engine` and `analysedAt` are the stored record's, not set here."""
    post = await session.get(Post, post_id)
    assert post is not None
    feats, posts, visuals = await refresh_creator_features(session, post.profile_id)
    mine = feats[post_id]
    # A peer flagged `engagement_anomaly` (views likely bought) is neither an outlier to
    # learn from nor an ordinary post: left out.
    peers = [
        Peer(pid, f.values, score_of(posts[pid])) for pid, f in feats.items()
        if pid != post_id and not posts[pid].engagement_anomaly
    ]
    rows, standouts = compare(mine.values, peers)
    visual = visuals.get(post_id)
    scenes = [Scene.from_json(s) for s in visual.scenes or []] if visual else None
    stood_out = [with_evidence(s, mine.hook, scenes) for s in standouts]
    score = score_of(post)
    outliers = sum(1 for p in peers if p.outlier)
    return Analysis(
        score=None if score is None else round(score, 2),
        peerCount=len(peers),
        analysedPeerCount=sum(1 for p in peers if p.values.get("hookType") is not None),
        outlierCount=outliers,
        hook=mine.hook,
        features=rows,
        stoodOut=stood_out,
        summary=with_anomaly_note(offline_summary(score, len(peers), outliers, stood_out),
                                  post.engagement_anomaly),
        engine=None,
        summaryNote=None,
        analysedAt=None,
    )


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
    return HookItem(
        hookType=record.hook_type,
        text=record.hook_text,
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
