"""Catalog endpoints: searches, records, URL resolution, comparison, trends, trending."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query
from sqlalchemy.ext.asyncio import AsyncSession

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
from sors.kit.responses import JSONResponse
from sors.kit.routing import SorsRoute, get_session

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["catalog"])
Session = Annotated[AsyncSession, Depends(get_session)]
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
    session: Session,
    _: AccountId,
    bill: CurrentBill,
    postId: RecordId,
    include_transcript: Annotated[bool, Query(alias="includeTranscript")] = True,
    include_visual: Annotated[bool, Query(alias="includeVisualAnalysis")] = True,
    include_analysis: Annotated[bool, Query(alias="includeAnalysis")] = True,
) -> JSONResponse:
    return JSONResponse(
        await service.get_post(
            session,
            postId,
            include_transcript=include_transcript,
            include_visual_analysis=include_visual,
            include_analysis=include_analysis,
            ride_along=bill.ride,
        )
    )


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
    session: Session, _: AccountId, bill: CurrentBill, postId: RecordId
) -> JSONResponse:
    return JSONResponse(await service.post_history(session, postId, ride_along=bill.ride))


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
    session: Session,
    _: AccountId,
    profileId: RecordId,
) -> JSONResponse:
    return JSONResponse(await service.get_profile(session, profileId))


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
async def resolve_post_url(session: Session, _: AccountId, body: ResolveIn) -> JSONResponse:
    return JSONResponse(await service.resolve_post_url(session, body.url))


