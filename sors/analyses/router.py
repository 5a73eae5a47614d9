"""analyze_post, get_analysis_result and search_hooks."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import unquote

from fastapi import APIRouter, Body, Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession
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
from sors.kit.responses import JSONResponse
from sors.kit.routing import Context, SorsRoute, get_session

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["analyses"])
Session = Annotated[AsyncSession, Depends(get_session)]
AccountId = Annotated[str, Depends(current_account_id)]

HOOK_COLUMNS: list[csv_export.Column] = [
    ("hook_type", lambda r: r["hookType"]),
    ("text", lambda r: r["text"]),
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
    "publish time) against the creator's baseline, what stood out with its evidence, and a "
    "summary. Transcript and visual analysis are made first when missing, at no extra "
    "charge. Poll GET /api/v1/analyses/{jobRef}; refunded if the job fails.",
    response_model=JobQueued,
    responses=problems(402, 404, body=True, links={
        "GetAnalysis": link("get_analysis_result", **{"path.jobRef": "$response.body#/jobRef"}),
    }),
    openapi_extra={"x-sors-skill": "analyze_post"},
)
async def analyze_post(
    request: Request,
    session: Session,
    account_id: AccountId,
    bill: Annotated[Bill, Depends(get_bill)],
    body: Annotated[TargetIn | None, Body()] = None,
) -> JSONResponse:
    post = await resolve_target(session, body)
    job = await service.request_analysis(
        session,
        account_id=account_id,
        post=post,
        credits=get_pricing().cost("analyze_post"),
        max_attempts=request.app.state.settings.jobs.max_attempts,
    )
    bill.job_ref = job.id
    return JSONResponse({"status": "pending", "jobRef": job.id, "postId": post.id})


@router.get(
    "/analyses/{jobRef}",
    summary="An analysis job's result (free; poll every 10-30 s)",
    description="The breakdown once its job completed; another account's job is 404.",
    response_model=AnalysisResult,
    responses=problems(404),
    openapi_extra={"x-sors-skill": "get_analysis_result"},
)
async def get_analysis_result(jobRef: str, session: Session, account_id: AccountId) -> JSONResponse:
    return JSONResponse(await service.analysis_result_for(session, account_id, unquote(jobRef)))


@router.post(
    "/hooks/search",
    summary="Search the hook library (1 credit)",
    description="Hooks of analysed posts (the first seconds of speech or the first slide), "
    "filtered by words, hook type, platform, category, outlier score and time frame; best "
    "score or newest first. `Accept: text/csv` answers the page as CSV.",
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
) -> Response:
    envelope = await service.search_hooks(ctx.session, body or HookSearchIn(), ctx.now)
    if not csv_export.wants_csv(request.headers.get("accept")):
        return JSONResponse(envelope)
    return Response(
        csv_export.render(envelope["results"], HOOK_COLUMNS),
        media_type="text/csv; charset=utf-8",
        headers=csv_export.paging_headers(envelope),
    )
