"""analyze_post, get_analysis_result and search_hooks."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import unquote

from fastapi import APIRouter, Body, Depends, Request
from starlette.responses import Response

from sors.analyses import service
from sors.analyses.schemas import AnalysisResult, HookPage, HookSearchIn
from sors.billing.deps import Bill, get_bill
from sors.billing.pricing import get_pricing
from sors.catalog.search import csv_export
from sors.enrichment.schemas import JobQueued, TargetIn
from sors.enrichment.service import resolve_target
from sors.kit.principal import current_account_id
from sors.kit.problems import link, problems
from sors.kit.routing import Context, SorsRoute

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["analyses"])
AccountId = Annotated[str, Depends(current_account_id)]

HOOK_COLUMNS: list[csv_export.Column] = [
    ("hook_type", lambda r: r["hookType"]),
    ("text", lambda r: r["text"]),
    ("source", lambda r: r["source"]),
    ("post_id", lambda r: r["postId"]),
    ("url", lambda r: r["url"]),
    ("platform", lambda r: r["platform"]),
    ("content_type", lambda r: r["contentType"]),
    ("published_at", lambda r: r["publishedAt"]),
    ("views", lambda r: r["views"]),
    ("outlier_score", lambda r: r["outlierScore"]),
    ("profile_id", lambda r: r["creator"]["profileId"]),
    ("handle", lambda r: r["creator"]["handle"]),
    ("display_name", lambda r: r["creator"]["displayName"]),
]


@router.post(
    "/analyses",
    summary="Why a post worked: its breakdown against its creator's usual (15 credits)",
    description="Queues an analysis job: the post's features (hook, pacing, format, caption, "
    "publish time, engagement) against the creator's own posts, or the niche's when the "
    "creator has too few outliers, each only among posts measured the same way; findings "
    "as sentences with their numbers, what stood out with its evidence, and a summary. "
    "Transcripts and visual analyses of the post and of up to 8 of the creator's posts are "
    "included. A post whose media cannot be fetched is analysed from its metadata "
    "(`basis: metadata`) at the lower price GET /pricing lists, the difference refunded. "
    "Poll GET /api/v1/analyses/{jobRef}; refunded if the job fails.",
    response_model=JobQueued,
    responses=problems(402, 404, body=True, links={
        "GetAnalysis": link("get_analysis_result", **{"path.jobRef": "$response.body#/jobRef"}),
    }),
    openapi_extra={"x-sors-skill": "analyze_post"},
)
async def analyze_post(
    ctx: Context,
    account_id: AccountId,
    bill: Annotated[Bill, Depends(get_bill)],
    body: Annotated[TargetIn | None, Body()] = None,
) -> JobQueued:
    post = await resolve_target(ctx.session, body)
    job = await service.request_analysis(
        ctx.session,
        account_id=account_id,
        post=post,
        credits=get_pricing().cost("analyze_post"),
        now=ctx.now,
        max_attempts=ctx.runtime.settings.jobs.max_attempts,
    )
    bill.job_ref = job.id
    return JobQueued(status="pending", jobRef=job.id, postId=post.id)


@router.get(
    "/analyses/{jobRef}",
    summary="An analysis job's result (free; poll every 10-30 s)",
    description="The breakdown once its job completed; another account's job is 404.",
    response_model=AnalysisResult,
    responses=problems(404),
    openapi_extra={"x-sors-skill": "get_analysis_result"},
)
async def get_analysis_result(jobRef: str, ctx: Context, account_id: AccountId) -> AnalysisResult:
    return await service.analysis_result_for(ctx.session, account_id, unquote(jobRef))


@router.post(
    "/hooks/search",
    summary="Search the hook library (1 credit)",
    description="Hooks of the catalog's outliers and of analysed posts (speech, on-screen "
    "text and caption reconciled, with their source), filtered by words, hook type, "
    "platform, category, outlier score and time frame; best score or newest first. "
    "`Accept: text/csv` answers the page as CSV.",
    response_model=HookPage,
    responses=problems(402, body=True),
    openapi_extra={"x-sors-skill": "search_hooks", "x-sors-read": True},
)
async def search_hooks(
    request: Request,
    ctx: Context,
    _: AccountId,
    bill: Annotated[Bill, Depends(get_bill)],
    body: Annotated[HookSearchIn | None, Body()] = None,
) -> HookPage | Response:
    page = await service.search_hooks(ctx.session, body or HookSearchIn(), ctx.now)
    if not csv_export.wants_csv(request.headers.get("accept")):
        return page
    return Response(
        csv_export.render([h.model_dump(mode="json") for h in page.results], HOOK_COLUMNS),
        media_type="text/csv; charset=utf-8",
        headers=csv_export.paging_headers(page.model_dump(exclude={"results"})),
    )
