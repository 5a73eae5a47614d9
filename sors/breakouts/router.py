"""POST /api/v1/trends/breakouts (find_breakouts)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends

from sors.breakouts import service
from sors.breakouts.schemas import BreakoutsIn, BreakoutsOut
from sors.kit.principal import current_account_id
from sors.kit.problems import problems
from sors.kit.responses import ModelResponse
from sors.kit.routing import Context, SorsRoute

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["catalog"])


@router.post(
    "/trends/breakouts",
    summary="Ideas breaking out across several creators of a niche",
    description="Hashtags, caption phrases, formats and sounds that several creators of a "
    "niche each turned into an outlier recently (2 credits), highest lift first: how much "
    "more common the idea is among the outliers than among the same creators' ordinary "
    "posts. Ideas the outliers of nearly every niche carry (fyp, tiktok:video) are left out.",
    openapi_extra={"x-sors-skill": "find_breakouts"},
    response_model=BreakoutsOut,
    responses=problems(402, body=True),
)
async def find_breakouts(
    ctx: Context,
    _: Annotated[str, Depends(current_account_id)],
    body: Annotated[BreakoutsIn | None, Body()] = None,
) -> ModelResponse:
    return ModelResponse(await service.find_breakouts(
        ctx.session, body or BreakoutsIn(), now=ctx.now,
        min_age_hours=ctx.runtime.settings.jobs.baseline_min_age_hours,
    ))
