"""Trend endpoints: profiles compared, a niche's trends, the public trending list."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends

from sors.catalog.records.schemas import Comparison
from sors.catalog.trends import service as trends
from sors.catalog.trends.schemas import CompareIn, Trending, Trends, TrendsIn
from sors.kit.principal import current_account_id
from sors.kit.problems import problems
from sors.kit.responses import ModelResponse
from sors.kit.routing import Context, SorsRoute

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["catalog"])
AccountId = Annotated[str, Depends(current_account_id)]


# The key-less public list; its own router so the API document lists it after rising posts.
trending_router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["catalog"])


def _skill(key: str) -> dict[str, str | bool]:
    # Every catalog door only reads: its transaction writes nothing but the charge.
    return {"x-sors-skill": key, "x-sors-read": True}


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
    ctx: Context,
    _: AccountId,
    body: Annotated[CompareIn | None, Body()] = None,
) -> Comparison:
    return await trends.compare_profiles(ctx.session, body or CompareIn())


@router.post(
    "/trends",
    summary="Niche trends",
    description="The best-scoring posts matching a niche query, with the content types and "
    "creators behind them.",
    openapi_extra=_skill("niche_trends"),
    response_model=Trends,
    # `themes` is in the body only when they were asked for.
    response_model_exclude_unset=True,
    responses=problems(402, body=True, notes={
        503: "`semantic` where the server has no pgvector (`semantic_unavailable`)"}),
)
async def niche_trends(
    ctx: Context,
    _: AccountId,
    body: Annotated[TrendsIn | None, Body()] = None,
) -> Trends:
    return await trends.niche_trends(
        ctx.session, body or TrendsIn(), now=ctx.now, settings=ctx.runtime.settings
    )


@trending_router.get(
    "/trending",
    summary="Trending outlier posts (no key)",
    description="Up to 50 posts published in the last 7 days, best `three_months` score "
    "first, one per creator; recomputed at most every 2 hours.",
    openapi_extra=_skill("get_trending_outliers"),
    response_model=Trending,
    responses=problems(key=False),
)
async def trending(ctx: Context) -> ModelResponse:
    body, max_age = await trends.trending(
        ctx.session, now=ctx.now,
        min_age_hours=ctx.runtime.settings.jobs.baseline_min_age_hours,
        source=ctx.runtime.database,
    )
    return ModelResponse(body, headers={"Cache-Control": f"public, max-age={max_age}"})
