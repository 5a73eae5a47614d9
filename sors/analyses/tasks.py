"""Analysis jobs: make sure the post (and a few of its creator's other posts) has a
transcript and a visual analysis (at no extra charge), compute its breakdown against the
creator's usual, have the configured engine phrase the summary, keep it on the post and
announce `analysis.completed`."""

from __future__ import annotations

import structlog

from sors.analyses import repository as repo
from sors.analyses.engine_llm import phrase
from sors.analyses.service import breakdown, evidence_of
from sors.analyses.summary import ANOMALY_NOTE, with_anomaly_note
from sors.catalog.models import OUTLIER_MIN_SCORE, Post
from sors.enrichment.service import SLIDE_TYPES, SPEECH_TYPES
from sors.enrichment.tasks import PostJobResult, enrich_post
from sors.events import service as events
from sors.jobs.engine import JobContext, JobFailed
from sors.platforms.base import PlatformError
from sors.queue.models import Job

EVENT = "analysis.completed"
# So the media features have a baseline, the job also transcribes and analyses a few of the
# creator's other posts that lack it (part of the analysis's price): their best outliers
# and their latest ordinary posts. Each is kept for everyone, like any transcript.
PEER_OUTLIERS = 3
PEER_ORDINARY = 3

log = structlog.get_logger(__name__)


async def enrich_peers(ctx: JobContext, post_id: str) -> int:
    """Enrich up to PEER_OUTLIERS + PEER_ORDINARY peers; a peer that cannot be enriched is
    skipped (logged), never the analysis. Returns how many were enriched."""
    async with ctx.db.session() as s:
        post = await s.get(Post, post_id)
        if post is None:
            return 0
        ids = await repo.peers_without_media(
            s, post, outliers=PEER_OUTLIERS, ordinary=PEER_ORDINARY,
            min_score=OUTLIER_MIN_SCORE, content_types=sorted(SPEECH_TYPES | SLIDE_TYPES),
        )
    done = 0
    for peer in ids:
        try:
            await enrich_post(ctx, peer)
        except (JobFailed, PlatformError) as exc:
            log.warning("analysis of %s: peer %s not enriched: %r", post_id, peer, exc)
            continue
        done += 1
    return done


async def analysis(ctx: JobContext, job: Job) -> PostJobResult:
    post_id = job.payload["postId"]
    await enrich_post(ctx, post_id)
    await enrich_peers(ctx, post_id)
    async with ctx.db.transaction() as s:
        result = await breakdown(s, post_id)
    # The model call runs outside any transaction; its failure only costs the phrasing.
    phrased = await phrase(ctx.settings, evidence_of(result), result.summary)
    # The anomaly's warning stays first, however the model phrased the rest.
    summary = with_anomaly_note(phrased.summary, result.summary.startswith(ANOMALY_NOTE))
    result = result.model_copy(update={"summary": summary, "summaryNote": phrased.rejected})
    async with ctx.db.transaction() as s:
        await repo.save_analysis(s, post_id, result, phrased.engine)
        await events.emit(
            s,
            job.account_id,
            EVENT,
            {
                "jobRef": job.id,
                "postId": post_id,
                "score": result.score,
                "stoodOut": [i.name for i in result.stoodOut],
                "summary": summary,
                "engine": phrased.engine,
            },
            at=ctx.now(),
        )
    return {"postId": post_id}


# The jobs this module runs, by type (named in sors.wiring's registries).
HANDLERS = {"analysis": analysis}
