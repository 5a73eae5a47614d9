"""remix_post and get_remix_result."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import unquote

from fastapi import APIRouter, Depends

from sors.billing.deps import Bill, get_bill
from sors.billing.pricing import get_pricing
from sors.enrichment.schemas import JobQueued
from sors.enrichment.service import resolve_target
from sors.kit.principal import current_account_id
from sors.kit.problems import link, problems
from sors.kit.routing import Context, SorsRoute
from sors.remix import service
from sors.remix.schemas import RemixIn, RemixResult

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["remix"])
AccountId = Annotated[str, Depends(current_account_id)]


@router.post(
    "/remixes",
    summary="Remix a post for another niche (20 credits; transcript and analysis included)",
    description="Queues a remix job: a title, description, timed script and checklist that "
    "adapt the post to `targetNiche`. Poll GET /api/v1/remixes/{jobRef}.",
    response_model=JobQueued,
    responses=problems(402, 404, body=True, links={
        "GetRemix": link("get_remix_result", **{"path.jobRef": "$response.body#/jobRef"}),
    }),
    openapi_extra={"x-sors-skill": "remix_post"},
)
async def remix_post(
    body: RemixIn,
    ctx: Context,
    account_id: AccountId,
    bill: Annotated[Bill, Depends(get_bill)],
) -> JobQueued:
    post = await resolve_target(ctx.session, body)
    job = await service.request_remix(
        ctx.session,
        account_id=account_id,
        post=post,
        target_niche=body.targetNiche,
        tone=body.tone,
        credits=get_pricing().cost("remix_post"),
        now=ctx.now,
        max_attempts=ctx.runtime.settings.jobs.max_attempts,
    )
    bill.job_ref = job.id
    return JobQueued(status="pending", jobRef=job.id, postId=post.id)


@router.get(
    "/remixes/{jobRef}",
    summary="A remix job's result (free; poll every 10-30 s)",
    description="The remix once its job completed; another account's job is 404.",
    response_model=RemixResult,
    responses=problems(404),
    openapi_extra={"x-sors-skill": "get_remix_result"},
)
async def get_remix_result(
    jobRef: str,  # the contract's path parameter name
    ctx: Context,
    account_id: AccountId,
) -> RemixResult:
    return await service.remix_result_for(ctx.session, account_id, unquote(jobRef))
