"""Analysis jobs: make sure the post has a transcript and a visual analysis, and that enough
of its creator's other posts of the same kind have them too (part of the price); compute its
breakdown; have the configured engine phrase the summary; keep it on the post and announce
`analysis.completed`.

A post whose media cannot be fetched (imported from a file, deleted, private, or a kind we
cannot read) is analysed from what the catalog already knows (`basis: "metadata"`) at the
lower price of the price list: the difference is refunded with the result.
"""

from __future__ import annotations

import structlog

from sors.analyses import repository as repo
from sors.analyses.breakdown import Basis, breakdown
from sors.analyses.engine_llm import phrase
from sors.analyses.service import evidence_of
from sors.analyses.summary import ANOMALY_NOTE, with_anomaly_note
from sors.billing.pricing import get_pricing
from sors.catalog.models import OUTLIER_MIN_SCORE, Post
from sors.demand.service import top_demand
from sors.enrichment.service import SLIDE_TYPES, SPEECH_TYPES
from sors.enrichment.tasks import PostJobResult, enrich_post
from sors.events import service as events
from sors.jobs import service as jobs
from sors.jobs.engine import JobContext, JobFailed
from sors.platforms.base import PlatformError
from sors.queue.models import Job

EVENT = "analysis.completed"
# So the media features compare like with like, the job transcribes and analyses the
# creator's other posts of the same kind until PEER_TARGET of them have media (at most
# PEER_TARGET new ones, part of the analysis's price): their best outliers first (up to
# PEER_OUTLIERS), then their latest ordinary posts. Each is kept for everyone.
PEER_TARGET = 8
PEER_OUTLIERS = 3
# Enrichment failures that mean "the media cannot be had": analysed from metadata instead.
NO_MEDIA = frozenset({"media_unavailable", "unsupported_post"})
METADATA_VARIANT = "metadata_credits"

log = structlog.get_logger(__name__)


def same_kind(content_type: str) -> list[str]:
    return sorted(SLIDE_TYPES if content_type in SLIDE_TYPES else SPEECH_TYPES)


async def enrich_peers(ctx: JobContext, post_id: str) -> int:
    """Enrich the creator's posts of the post's kind until PEER_TARGET have media; a peer
    that cannot be enriched is skipped (logged), never the analysis. Returns how many were
    enriched."""
    async with ctx.db.session() as s:
        post = await s.get(Post, post_id)
        if post is None:
            return 0
        kinds = same_kind(post.content_type)
        have = await repo.peers_with_media(s, post, content_types=kinds)
        wanted = max(0, PEER_TARGET - have)
        ids = await repo.peers_without_media(
            s, post, outliers=min(PEER_OUTLIERS, wanted), ordinary=wanted,
            min_score=OUTLIER_MIN_SCORE, content_types=kinds,
        ) if wanted else []
    done = 0
    for peer in ids[:wanted]:
        try:
            await enrich_post(ctx, peer)
        except (JobFailed, PlatformError) as exc:
            log.warning("analysis of %s: peer %s not enriched: %r", post_id, peer, exc)
            continue
        done += 1
    return done


async def media_or_why_not(ctx: JobContext, post_id: str) -> str | None:
    """Enrich the post; None when it has its media, else why it cannot have them."""
    async with ctx.db.session() as s:
        post = await s.get(Post, post_id)
        if post is None:
            raise JobFailed("post_not_found", f"The post {post_id} is no longer in the catalog.")
        if post.deleted_at is not None:
            return f"The {post.platform} post was deleted."
    try:
        await enrich_post(ctx, post_id)
    except JobFailed as exc:
        if exc.code not in NO_MEDIA:
            raise
        return exc.message
    return None


async def analysis(ctx: JobContext, job: Job) -> PostJobResult:
    post_id = job.payload["postId"]
    why_not = await media_or_why_not(ctx, post_id)
    basis: Basis = "media" if why_not is None else "metadata"
    if why_not is None:
        await enrich_peers(ctx, post_id)
    async with ctx.db.transaction() as s:
        demand = await top_demand(s, post_id, ctx.settings)
        result = await breakdown(s, post_id, now=ctx.now(), basis=basis, basis_note=why_not,
                                 demand=demand)
    # The model call runs outside any transaction; its failure only costs the phrasing.
    phrased = await phrase(ctx.settings, evidence_of(result), result.summary)
    # The anomaly's warning stays first, however the model phrased the rest.
    summary = with_anomaly_note(phrased.summary, result.summary.startswith(ANOMALY_NOTE))
    result = result.model_copy(update={"summary": summary, "summaryNote": phrased.rejected})
    async with ctx.db.transaction() as s:
        await repo.save_analysis(s, post_id, result, phrased.engine)
        if basis == "metadata":
            await jobs.refund_part(
                s, job.id, keep=get_pricing().cost("analyze_post", METADATA_VARIANT),
                reason="analysis from metadata: the media could not be fetched", now=ctx.now())
        await events.emit(
            s,
            job.account_id,
            EVENT,
            {
                "jobRef": job.id,
                "postId": post_id,
                "score": result.score,
                "basis": basis,
                "stoodOut": [i.name for i in result.stoodOut],
                "summary": summary,
                "engine": phrased.engine,
            },
            at=ctx.now(),
        )
    return {"postId": post_id}


# The jobs this module runs, by type (named in sors.wiring's registries).
HANDLERS = {"analysis": analysis}
