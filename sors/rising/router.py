"""The rising posts endpoint."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends

from sors.kit.principal import current_account_id
from sors.kit.problems import problems
from sors.kit.responses import ModelResponse
from sors.kit.routing import Context, SorsRoute
from sors.rising import service as rising_trends
from sors.rising.schemas import Rising, RisingIn

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["catalog"])
AccountId = Annotated[str, Depends(current_account_id)]


def _skill(key: str) -> dict[str, str | bool]:
    # Every catalog door only reads: its transaction writes nothing but the charge.
    return {"x-sors-skill": key, "x-sors-read": True}


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
    ctx: Context,
    _: AccountId,
    body: Annotated[RisingIn | None, Body()] = None,
) -> ModelResponse:
    return ModelResponse(await rising_trends.rising(
        ctx.session, body or RisingIn(), now=ctx.now,
        min_age_hours=ctx.runtime.settings.jobs.baseline_min_age_hours,
    ))
