"""Search endpoints: posts and profiles (JSON, or CSV for `Accept: text/csv`), and the niche
taxonomy whose ids they filter by."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Request, Response

from sors.billing.deps import Bill, get_bill
from sors.catalog.records.schemas import Category, PostPage, ProfilePage
from sors.catalog.search import csv_export, service
from sors.catalog.search.schemas import SearchContentIn, SearchProfilesIn
from sors.kit.principal import current_account_id
from sors.kit.problems import link, problems
from sors.kit.responses import ModelResponse
from sors.kit.routing import Context, SorsRoute

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["catalog"])
AccountId = Annotated[str, Depends(current_account_id)]
CurrentBill = Annotated[Bill, Depends(get_bill)]


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
    ctx: Context,
    _: AccountId,
    bill: CurrentBill,
    body: Annotated[SearchContentIn | None, Body()] = None,
) -> Response:
    body = body or SearchContentIn()
    page = await service.search_content(
        ctx.session, body, now=ctx.now, settings=ctx.runtime.settings, ride_along=bill.ride,
    )
    by_meaning = bool(body.semantic or body.similarTo)
    return _answer(request, page, csv_export.MEANING_POST_COLUMNS if by_meaning
                   else csv_export.POST_COLUMNS)


def _answer(
    request: Request, page: PostPage | ProfilePage, columns: list[csv_export.Column]
) -> Response:
    """JSON, or CSV (the page's records, paging in headers) when the caller asks for it."""
    if not csv_export.wants_csv(request.headers.get("accept")):
        return ModelResponse(page)
    envelope = page.model_dump()
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
    ctx: Context,
    _: AccountId,
    bill: CurrentBill,
    body: Annotated[SearchProfilesIn | None, Body()] = None,
) -> Response:
    page = await service.search_profiles(
        ctx.session, body or SearchProfilesIn(), settings=ctx.runtime.settings,
        ride_along=bill.ride,
    )
    return _answer(request, page, csv_export.PROFILE_COLUMNS)


@router.get(
    "/categories",
    summary="The niche taxonomy (free)",
    description="Every category, flat and sorted by id (parents first), with the number of "
    "profiles in its subtree. Its ids are search_profiles' `categoryId` values.",
    openapi_extra=_skill("list_categories"),
    response_model=list[Category],
    responses=problems(),
)
async def list_categories(ctx: Context, _: AccountId) -> list[Category]:
    return await service.list_categories(ctx.session)
