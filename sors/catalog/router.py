"""Catalog endpoints: searches, records, URL resolution, comparison, trends, trending."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Path, Query, Request, Response
from sqlalchemy.ext.asyncio import AsyncSession

from sors.accounts.deps import current_account_id
from sors.catalog import csv_export, service
from sors.catalog.schemas import (
    CompareIn,
    PostHistoryOut,
    ResolveIn,
    SearchContentIn,
    SearchProfilesIn,
    TrendsIn,
)
from sors.kit.responses import JSONResponse
from sors.kit.routing import SorsRoute, get_session

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["catalog"])
Session = Annotated[AsyncSession, Depends(get_session)]
AccountId = Annotated[str, Depends(current_account_id)]
RecordId = Annotated[str, Path()]


def _skill(key: str) -> dict[str, str | bool]:
    # Every catalog door only reads: its transaction writes nothing but the charge.
    return {"x-sors-skill": key, "x-sors-read": True}


@router.post(
    "/search/content", summary="Search outlier posts", openapi_extra=_skill("search_outliers")
)
async def search_content(
    request: Request,
    session: Session,
    _: AccountId,
    body: Annotated[SearchContentIn | None, Body()] = None,
) -> Response:
    envelope = await service.search_content(session, body or SearchContentIn())
    return _answer(request, envelope, csv_export.POST_COLUMNS)


def _answer(request: Request, envelope: dict, columns: list) -> Response:
    """JSON, or CSV (the page's records, paging in headers) when the caller asks for it."""
    if not csv_export.wants_csv(request.headers.get("accept")):
        return JSONResponse(envelope)
    return Response(
        csv_export.render(envelope["results"], columns),
        media_type="text/csv; charset=utf-8",
        headers=csv_export.paging_headers(envelope),
    )


@router.post("/search/profiles", summary="Search profiles", openapi_extra=_skill("search_profiles"))
async def search_profiles(
    request: Request,
    session: Session,
    _: AccountId,
    body: Annotated[SearchProfilesIn | None, Body()] = None,
) -> Response:
    envelope = await service.search_profiles(session, body or SearchProfilesIn())
    return _answer(request, envelope, csv_export.PROFILE_COLUMNS)


@router.get(
    "/categories", summary="The niche taxonomy (free)", openapi_extra=_skill("list_categories")
)
async def list_categories(session: Session, _: AccountId) -> JSONResponse:
    return JSONResponse(await service.list_categories(session))


@router.get("/posts/{postId}", summary="Get a post", openapi_extra=_skill("get_post"))
async def get_post(
    session: Session,
    _: AccountId,
    postId: RecordId,
    include_transcript: Annotated[bool, Query(alias="includeTranscript")] = True,
    include_visual: Annotated[bool, Query(alias="includeVisualAnalysis")] = True,
) -> JSONResponse:
    return JSONResponse(
        await service.get_post(
            session,
            postId,
            include_transcript=include_transcript,
            include_visual_analysis=include_visual,
        )
    )


@router.get(
    "/posts/{postId}/history",
    summary="A post's stat history and growth",
    openapi_extra=_skill("get_post_history"),
    response_model=PostHistoryOut,
)
async def get_post_history(session: Session, _: AccountId, postId: RecordId) -> JSONResponse:
    return JSONResponse(await service.post_history(session, postId))


@router.get("/profiles/{profileId}", summary="Get a profile", openapi_extra=_skill("get_profile"))
async def get_profile(
    session: Session,
    _: AccountId,
    profileId: RecordId,
) -> JSONResponse:
    return JSONResponse(await service.get_profile(session, profileId))


@router.post(
    "/posts/resolve", summary="Resolve a post URL", openapi_extra=_skill("resolve_post_url")
)
async def resolve_post_url(session: Session, _: AccountId, body: ResolveIn) -> JSONResponse:
    return JSONResponse(await service.resolve_post_url(session, body.url))


@router.post(
    "/profiles/compare", summary="Compare 2-5 profiles", openapi_extra=_skill("compare_profiles")
)
async def compare_profiles(
    session: Session,
    _: AccountId,
    body: Annotated[CompareIn | None, Body()] = None,
) -> JSONResponse:
    return JSONResponse(await service.compare_profiles(session, body or CompareIn()))


@router.post("/trends", summary="Niche trends", openapi_extra=_skill("niche_trends"))
async def niche_trends(
    session: Session,
    _: AccountId,
    body: Annotated[TrendsIn | None, Body()] = None,
) -> JSONResponse:
    return JSONResponse(await service.niche_trends(session, body or TrendsIn()))


@router.get(
    "/trending",
    summary="Trending outlier posts (no key)",
    openapi_extra=_skill("get_trending_outliers"),
)
async def trending(request: Request, session: Session) -> JSONResponse:
    body, max_age = await service.trending(session, cache_key=id(request.app.state.db))
    return JSONResponse(body, headers={"Cache-Control": f"public, max-age={max_age}"})
