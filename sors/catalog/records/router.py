"""Catalog endpoints: searches, records, URL resolution, comparison, trends, trending."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query

from sors.billing.deps import Bill, get_bill
from sors.catalog.records import service
from sors.catalog.records.history_schemas import PostHistoryOut
from sors.catalog.records.schemas import (
    PostRecord,
    ProfileDetail,
    ResolvedPost,
    ResolveIn,
    UnresolvedPost,
)
from sors.kit.principal import current_account_id
from sors.kit.problems import problems
from sors.kit.responses import ModelResponse
from sors.kit.routing import Context, SorsRoute

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["catalog"])
AccountId = Annotated[str, Depends(current_account_id)]
CurrentBill = Annotated[Bill, Depends(get_bill)]
RecordId = Annotated[str, Path()]


def _skill(key: str) -> dict[str, str | bool]:
    # Every catalog door only reads: its transaction writes nothing but the charge.
    return {"x-sors-skill": key, "x-sors-read": True}


@router.get(
    "/posts/{postId}",
    summary="Get a post (1 credit)",
    description="The post record with its owner; `transcript`, `visual_analysis` and "
    "`analysis` (its breakdown, POST /api/v1/analyses) are included when they exist (and "
    "their flag is true), at no extra cost. Unknown id: 404, not charged.",
    openapi_extra=_skill("get_post"),
    response_model=PostRecord,
    responses=problems(402, 404),
)
async def get_post(
    ctx: Context,
    _: AccountId,
    bill: CurrentBill,
    postId: RecordId,
    include_transcript: Annotated[bool, Query(alias="includeTranscript")] = True,
    include_visual: Annotated[bool, Query(alias="includeVisualAnalysis")] = True,
    include_analysis: Annotated[bool, Query(alias="includeAnalysis")] = True,
) -> ModelResponse:
    record = await service.get_post(
        ctx.session,
        postId,
        now=ctx.now,
        min_age_hours=ctx.runtime.settings.jobs.baseline_min_age_hours,
        include_transcript=include_transcript,
        include_visual_analysis=include_visual,
        include_analysis=include_analysis,
        ride_along=bill.ride,
    )
    return ModelResponse(record)


@router.get(
    "/posts/{postId}/history",
    summary="A post's stat history and growth (1 credit)",
    description="The post's recorded stats over time and its growth between them. Unknown "
    "id: 404, not charged.",
    openapi_extra=_skill("get_post_history"),
    response_model=PostHistoryOut,
    responses=problems(402, 404),
)
async def get_post_history(
    ctx: Context, _: AccountId, bill: CurrentBill, postId: RecordId
) -> PostHistoryOut:
    return await service.post_history(ctx.session, postId, now=ctx.now, ride_along=bill.ride)


@router.get(
    "/profiles/{profileId}",
    summary="Get a profile (1 credit)",
    description="The profile record with its averages per window, categories and its 12 "
    "most recently published posts. Unknown id: 404, not charged.",
    openapi_extra=_skill("get_profile"),
    response_model=ProfileDetail,
    responses=problems(402, 404),
)
async def get_profile(
    ctx: Context,
    _: AccountId,
    profileId: RecordId,
) -> ModelResponse:
    return ModelResponse(await service.get_profile(
        ctx.session, profileId, now=ctx.now,
        min_age_hours=ctx.runtime.settings.jobs.baseline_min_age_hours,
    ))


@router.post(
    "/posts/resolve",
    summary="Resolve a post URL",
    description="Parses a TikTok, Instagram or YouTube post URL and looks the post up; "
    "nothing is fetched. Short links are 422 `short_link_not_supported`; other URLs 422 "
    "`unsupported_url`.",
    openapi_extra=_skill("resolve_post_url"),
    response_model=ResolvedPost | UnresolvedPost,
    responses=problems(402, body=True),
)
async def resolve_post_url(
    ctx: Context, _: AccountId, body: ResolveIn
) -> ResolvedPost | UnresolvedPost:
    return await service.resolve_post_url(ctx.session, body.url)


