"""POST /comments (fetch_comments) and POST /demand/search (search_demand)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request
from starlette.responses import Response

from sors.billing.deps import Bill, get_bill
from sors.billing.pricing import get_pricing
from sors.catalog.search import csv_export
from sors.demand import search, service
from sors.demand.schemas import CommentsIn, CommentsQueued, DemandSearchIn, DemandSearchOut
from sors.enrichment.service import resolve_target
from sors.kit.principal import current_account_id
from sors.kit.problems import link, problems
from sors.kit.routing import Context, SorsRoute

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["demand"])
AccountId = Annotated[str, Depends(current_account_id)]

CLUSTER_COLUMNS: list[csv_export.Column] = [
    ("label", lambda r: r["label"]),
    ("size", lambda r: r["size"]),
    ("likes", lambda r: r["likes"]),
    ("covered", lambda r: r["covered"]),
    ("nearest_similarity", lambda r: r["nearestPosts"][0]["similarity"]
     if r["nearestPosts"] else None),
    ("nearest_post_url", lambda r: r["nearestPosts"][0]["url"] if r["nearestPosts"] else None),
    ("texts", lambda r: r["texts"]),
    ("kinds", lambda r: r["kinds"]),
    ("post_count", lambda r: r["postCount"]),
    ("post_ids", lambda r: " ".join(p["postId"] for p in r["posts"])),
    ("label_comment_id", lambda r: r["labelCommentId"]),
]


def _with_csv(responses: dict) -> dict:
    ok = responses.setdefault(200, {})
    ok.setdefault("content", {})["text/csv"] = {"schema": {"type": "string"}}
    ok["description"] = "The clusters (JSON), or as CSV for `Accept: text/csv`"
    return responses


@router.post(
    "/comments",
    summary="Fetch a post's comments (priced per 100 comments)",
    description="Queues a job that fetches up to `limit` of the post's comments through the "
    "configured source (Apify's comment actors for TikTok and Instagram, YouTube's Data API) "
    "and keeps them, typed as demand, for POST /demand/search. Charged when queued: GET "
    "/pricing's `fetch_comments` credits per started 100 of `limit`; refunded if the "
    "source fails. The same account's open fetch of the post and limit is returned again, "
    "free.",
    response_model=CommentsQueued,
    responses=problems(402, 404, body=True, notes={
        404: "no such post (`post_not_found`)"}, links={
        "PollJob": link("get_job_status", **{"path.jobRef": "$response.body#/jobRef"}),
    }),
    openapi_extra={"x-sors-skill": "fetch_comments"},
)
async def fetch_comments(
    ctx: Context,
    account_id: AccountId,
    bill: Annotated[Bill, Depends(get_bill)],
    body: Annotated[CommentsIn | None, Body()] = None,
) -> CommentsQueued:
    body = body or CommentsIn()
    post = await resolve_target(ctx.session, body)
    credits = get_pricing().cost("fetch_comments") * service.units(body.limit)
    job, new = await service.request_fetch(
        ctx.session, account_id=account_id, post=post, limit=body.limit, credits=credits,
        now=ctx.now, max_attempts=ctx.runtime.settings.jobs.max_attempts)
    bill.cost = credits if new else 0
    if new:
        bill.job_ref = job.id
    return CommentsQueued(status="pending", jobRef=job.id, postId=post.id, limit=body.limit)


@router.post(
    "/demand/search",
    summary="What the audience asks for, clustered (2 credits)",
    description="The questions and requests in the comments of a niche, a creator, a board "
    "or a set of posts over a time frame, clustered by meaning: each cluster with its "
    "label (its most central comment, verbatim), size, likes, the posts it came from, and "
    "whether a post in the catalog already answers it (`covered`, with the nearest posts). "
    "Largest, most liked, or unanswered first. `Accept: text/csv` answers the clusters as "
    "CSV.",
    response_model=DemandSearchOut,
    responses=_with_csv(problems(402, body=True, notes={
        503: "no embedding model can be loaded on this server (`demand_unavailable`)"})),
    openapi_extra={"x-sors-skill": "search_demand", "x-sors-read": True},
)
async def search_demand(
    request: Request,
    ctx: Context,
    account_id: AccountId,
    body: Annotated[DemandSearchIn | None, Body()] = None,
) -> DemandSearchOut | Response:
    found = await search.search_demand(
        ctx.session, body or DemandSearchIn(), account_id=account_id,
        settings=ctx.runtime.settings, now=ctx.now)
    if not csv_export.wants_csv(request.headers.get("accept")):
        return found
    return Response(
        csv_export.render([c.model_dump(mode="json") for c in found.clusters],
                          CLUSTER_COLUMNS),
        media_type="text/csv; charset=utf-8",
        headers={"X-Clusters-Found": str(found.clustersFound),
                 "X-Comments-Matched": str(found.commentsMatched)},
    )
