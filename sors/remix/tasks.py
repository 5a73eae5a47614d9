"""Remix jobs: make sure the post has a transcript and a visual analysis (at no extra
charge), then have the configured engine write the remix for the requested niche."""

from __future__ import annotations

from dataclasses import dataclass, field

from sors.catalog.models import PostAnalysisRecord
from sors.catalog.records import repository as catalog_repo
from sors.catalog.records.analysis_schemas import StoodOut
from sors.enrichment import repository as enrichment_repo
from sors.enrichment.analysis import Scene, TranscriptSegment
from sors.enrichment.tasks import PostJobResult, enrich_post
from sors.jobs.engine import JobContext, JobFailed, RetryableJobError
from sors.queue.models import Job
from sors.remix import repository as repo
from sors.remix.engines import Remix, RemixError, RemixInput, get_engine
from sors.remix.schemas import Remix as RemixOut
from sors.remix.schemas import RemixKept


async def build_input(ctx: JobContext, job_id: str, post_id: str) -> RemixInput:
    async with ctx.db.session() as s:
        record = await repo.get(s, job_id)
        post = await enrichment_repo.get_post(s, post_id)
        if record is None:
            raise JobFailed("remix_not_found", f"The remix request of job {job_id} is missing.")
        if post is None:
            raise JobFailed("post_not_found", f"The post {post_id} is no longer in the catalog.")
        handle = await enrichment_repo.owner_handle(s, post.profile_id)
        transcript = await catalog_repo.get_transcript(s, post_id)
        visual = await catalog_repo.get_visual_analysis(s, post_id)
        analysis = await catalog_repo.get_analysis(s, post_id)
    kept = keep_from(analysis)
    score = post.score_three_months if post.score_three_months is not None else post.score_all_time
    return RemixInput(
        platform=post.platform,
        content_type=post.content_type,
        caption=post.caption or "",
        duration_seconds=post.duration_seconds,
        views=post.views,
        outlier_score=score,
        handle=handle or "",
        transcript_text=transcript.text if transcript else None,
        transcript_segments=[TranscriptSegment.from_json(s) for s in transcript.segments or []]
        if transcript else [],
        scenes=[Scene.from_json(s) for s in visual.scenes or []] if visual else [],
        target_niche=record.target_niche,
        tone=record.tone,
        keep_hook_type=kept.hook_type,
        keep=kept.stood_out,
    )


# Stood-out features a script can keep (publish time and caption ones are not in a script).
KEEPABLE = frozenset({
    "hookType", "hookWords", "speakingRate", "timeToFirstCut", "cutsPerMinute",
    "slideCount", "textDensity", "durationSeconds", "format", "callToAction",
})


@dataclass(frozen=True)
class Kept:
    """What the remix keeps from the post's breakdown (sors.analyses): the analysed hook's
    type and the stood-out features a script can keep."""

    hook_type: str | None = None
    stood_out: list[StoodOut] = field(default_factory=list)


def keep_from(record: PostAnalysisRecord | None) -> Kept:
    """What the remix keeps from the post's breakdown, if one was made."""
    data = record.analysis if record is not None else None
    if not data:
        return Kept()
    stood_out = [StoodOut.model_validate(i) for i in data.get("stoodOut") or []]
    return Kept((data.get("hook") or {}).get("type"),
                [i for i in stood_out if i.name in KEEPABLE])


def shown(result: Remix, inp: RemixInput) -> RemixOut:
    """The engine's remix as get_remix_result shows it, with what it kept (`kept`: null when
    the post had no breakdown to keep from)."""
    kept = None
    if inp.keep_hook_type is not None or inp.keep:
        kept = RemixKept(hookType=inp.keep_hook_type, stoodOut=[i.name for i in inp.keep])
    return RemixOut.model_validate({**result.model_dump(), "kept": kept})


async def remix(ctx: JobContext, job: Job) -> PostJobResult:
    post_id = job.payload["postId"]
    await enrich_post(ctx, post_id)
    inp = await build_input(ctx, job.id, post_id)
    try:
        result = await get_engine(ctx.settings).remix(inp)
    except RemixError as exc:
        if exc.retryable:
            # The model endpoint is down: try again later, up to the job's attempts; the
            # last attempt's failure fails the job (and refunds it).
            raise RetryableJobError(exc.code, exc.message) from exc
        raise JobFailed(exc.code, exc.message) from exc
    async with ctx.db.transaction() as s:
        await repo.save_result(s, job.id, shown(result, inp), result.engine)
    return {"postId": post_id}


# The jobs this module runs, by type (named in sors.wiring's registries).
HANDLERS = {"remix": remix}
