from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends

from sors.billing.deps import Bill, get_bill
from sors.billing.pricing import get_pricing
from sors.crawling import service
from sors.crawling.schemas import CrawlAlreadyTracked, CrawlIn, CrawlQueued
from sors.kit.principal import current_account_id
from sors.kit.problems import link, problems
from sors.kit.routing import Context, SorsRoute

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["crawling"])


@router.post(
    "/crawls", summary="Crawl a public profile (40 credits; 1 when already tracked)",
    description="Adds a public profile and its posts to the catalog, named by `url` (a "
    "profile URL) or by `platform` and `handle`. A tracked, active "
    "profile answers at once (`alreadyTracked`, 1 credit); otherwise a crawl job is queued "
    "(40 credits, refunded if the platform has no such public profile). The same account's "
    "open crawl of the handle is returned again, free.",
    response_model=CrawlAlreadyTracked | CrawlQueued,
    responses=problems(402, body=True, links={
        "PollJob": link("get_job_status", **{"path.jobRef": "$response.body#/jobRef"}),
    }),
    # The body is read even when absent (to name the fields that name a profile), yet every
    # crawl needs one: the document says it is required and an object.
    openapi_extra={"x-sors-skill": "crawl_profile", "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CrawlIn"}}}}},
)
async def crawl_profile(
    ctx: Context,
    account_id: Annotated[str, Depends(current_account_id)],
    bill: Annotated[Bill, Depends(get_bill)],
    body: Annotated[CrawlIn | None, Body()] = None,
) -> CrawlAlreadyTracked | CrawlQueued:
    # No body: the same 422 as an empty one, naming the fields that name the profile.
    body = body or CrawlIn()
    platform, handle = service.crawl_target(body.platform, body.handle, body.url)
    pricing = get_pricing()
    outcome = await service.request_crawl(
        ctx.session, account_id=account_id, platform=platform, handle=handle,
        credits=pricing.cost("crawl_profile"), now=ctx.now,
        max_attempts=ctx.runtime.settings.jobs.max_attempts,
    )
    if outcome.profile_id:
        bill.cost = pricing.cost("crawl_profile", "already_tracked_credits")
        return CrawlAlreadyTracked(status="completed", alreadyTracked=True,
                                   profileId=outcome.profile_id, jobRef=None)
    assert outcome.job is not None
    if outcome.new_job:
        bill.job_ref = outcome.job.id
    else:
        bill.cost = 0  # the same account's open crawl of this handle: same job, no charge
    return CrawlQueued(status="pending", jobRef=outcome.job.id, platform=platform,
                       handle=handle)
