"""Analysis jobs: make sure the post has a transcript and a visual analysis (at no extra
charge), compute its breakdown against the creator's usual, have the configured engine
phrase the summary, keep it on the post and announce `analysis.completed`."""

from __future__ import annotations

from typing import Any

from sors.analyses import repository as repo
from sors.analyses.engine_llm import phrase
from sors.analyses.service import breakdown
from sors.enrichment.tasks import enrich_post
from sors.events import service as events
from sors.jobs.engine import JobContext, handler
from sors.queue.models import Job

EVENT = "analysis.completed"


@handler("analysis")
async def analysis(ctx: JobContext, job: Job) -> dict[str, Any]:
    post_id = job.payload["postId"]
    await enrich_post(ctx, post_id)
    async with ctx.db.transaction() as s:
        result, evidence = await breakdown(s, post_id)
    # The model call runs outside any transaction; its failure only costs the phrasing.
    phrased = await phrase(ctx.settings, evidence, result["summary"])
    result = {**result, "summary": phrased.summary, "summaryNote": phrased.rejected}
    async with ctx.db.transaction() as s:
        await repo.save_analysis(s, post_id, result, phrased.engine)
        await events.emit(
            s,
            job.account_id,
            EVENT,
            {
                "jobRef": job.id,
                "postId": post_id,
                "score": result["score"],
                "stoodOut": [i["name"] for i in result["stoodOut"]],
                "summary": phrased.summary,
                "engine": phrased.engine,
            },
        )
    return {"postId": post_id}
