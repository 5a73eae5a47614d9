"""Catalog endpoints: searches, records, URL resolution, comparison, trends, trending."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Path, Query, Request, Response
from sqlalchemy.ext.asyncio import AsyncSession

from sors.billing.deps import Bill, get_bill
from sors.catalog import csv_export, rising_trends, service, trends
from sors.catalog.history_responses import PostHistoryOut
from sors.catalog.schemas import (
    Category,
    CompareIn,
    Comparison,
    PostPage,
    PostRecord,
    ProfileDetail,
    ProfilePage,
    ResolvedPost,
    ResolveIn,
    Rising,
    RisingIn,
    SearchContentIn,
    SearchProfilesIn,
    Trending,
    Trends,
    TrendsIn,
    UnresolvedPost,
)
from sors.kit.principal import current_account_id
from sors.kit.problems import link, problems
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


def _with_csv(responses: dict) -> dict:
    """Searches answer CSV (the page's records; paging in headers) to `Accept: text/csv`."""
    ok = responses.setdefault(200, {})
    ok.setdefault("content", {})["text/csv"] = {"schema": {"type": "string"}}
    ok["description"] = "The page (JSON), or its records as CSV for `Accept: text/csv`"
    return responses


@router.post(
    "/search/content",
    summary="Search outlier posts (1 credit)",
    description="Posts that overperform their own account's baseline, filtered by text, "
    "platform, content type, score, views and follower count; paged, best first. "
    "Every field is optional. Includes deleted posts and posts of inactive profiles.",
    openapi_extra=_skill("search_outliers"),
    response_model=PostPage,
    responses=_with_csv(problems(402, 404, body=True, notes={
        404: "`similarTo` names no post (`post_not_found`)",
        503: "`semantic` or `similarTo` where the server has no pgvector (`semantic_unavailable`)",
    }, links={
        "GetFirstPost": link("get_post", **{"path.postId": "$response.body#/results/0/id"}),
    })),
)
async def search_content(
    request: Request,
    session: Session,
    _: AccountId,
    bill: CurrentBill,
    body: Annotated[SearchContentIn | None, Body()] = None,
) -> Response:
    envelope = await service.search_content(
        session, body or SearchContentIn(), ride_along=bill.ride
    )
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


@router.post(
    "/search/profiles",
    summary="Search profiles (1 credit)",
    description="Profiles whose handle or display name contains `query`, optionally in a "
    "category (and its descendants) and on some platforms; largest first.",
    openapi_extra=_skill("search_profiles"),
    response_model=ProfilePage,
    responses=_with_csv(problems(402, 404, body=True, notes={
        404: "`similarTo` names no profile (`profile_not_found`)",
        503: "`similarTo` where the server has no pgvector (`semantic_unavailable`)",
    }, links={
        "GetFirstProfile": link(
            "get_profile", **{"path.profileId": "$response.body#/results/0/id"}
        ),
    })),
)
async def search_profiles(
    request: Request,
    session: Session,
    _: AccountId,
    bill: CurrentBill,
    body: Annotated[SearchProfilesIn | None, Body()] = None,
) -> Response:
    envelope = await service.search_profiles(
        session, body or SearchProfilesIn(), ride_along=bill.ride
    )
    return _answer(request, envelope, csv_export.PROFILE_COLUMNS)


@router.get(
    "/categories",
    summary="The niche taxonomy (free)",
    description="Every category, flat and sorted by id (parents first), with the number of "
    "profiles in its subtree. Its ids are search_profiles' `categoryId` values.",
    openapi_extra=_skill("list_categories"),
    response_model=list[Category],
    responses=problems(),
)
async def list_categories(session: Session, _: AccountId) -> JSONResponse:
    return JSONResponse(await service.list_categories(session))


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


@router.post(
    "/profiles/compare",
    summary="Compare 2-5 profiles",
    description="Name 2-5 profiles by `profileIds` and/or `handles` (together 2-5 entries; "
    "else 422). Unknown ones are listed in `notFound`.",
    openapi_extra=_skill("compare_profiles"),
    response_model=Comparison,
    responses=problems(402, body=True),
)
async def compare_profiles(
    session: Session,
    _: AccountId,
    body: Annotated[CompareIn | None, Body()] = None,
) -> JSONResponse:
    return JSONResponse(await trends.compare_profiles(session, body or CompareIn()))


@router.post(
    "/trends",
    summary="Niche trends",
    description="The best-scoring posts matching a niche query, with the content types and "
    "creators behind them.",
    openapi_extra=_skill("niche_trends"),
    response_model=Trends,
    responses=problems(402, body=True, notes={
        503: "`semantic` where the server has no pgvector (`semantic_unavailable`)"}),
)
async def niche_trends(
    session: Session,
    _: AccountId,
    body: Annotated[TrendsIn | None, Body()] = None,
) -> JSONResponse:
    return JSONResponse(await trends.niche_trends(session, body or TrendsIn()))


@router.post(
    "/trends/rising",
    summary="Rising posts (2 credits)",
    description="Posts younger than `maxAgeHours` (default 72) running above their creator's "
    "p90 at their age and accelerating, at their last crawl: one per creator, furthest above "
    "the creator's median first, each with its projection, its snapshots and its creator's "
    "p10-p90 curve. Filterable like trends: `query`, `platforms`, `categoryId`.",
    openapi_extra=_skill("find_rising_posts"),
    response_model=Rising,
    responses=problems(402, body=True),
)
async def rising_posts(
    session: Session,
    _: AccountId,
    body: Annotated[RisingIn | None, Body()] = None,
) -> JSONResponse:
    return JSONResponse(await rising_trends.rising(session, body or RisingIn()))


@router.get(
    "/trending",
    summary="Trending outlier posts (no key)",
    description="Up to 50 posts published in the last 7 days, best `three_months` score "
    "first, one per creator; recomputed at most every 2 hours.",
    openapi_extra=_skill("get_trending_outliers"),
    response_model=Trending,
    responses=problems(key=False),
)
async def trending(request: Request, session: Session) -> JSONResponse:
    body, max_age = await trends.trending(session, cache_key=id(request.app.state.db))
    return JSONResponse(body, headers={"Cache-Control": f"public, max-age={max_age}"})
