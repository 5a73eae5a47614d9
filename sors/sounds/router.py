"""POST /api/v1/trends/sounds (find_trending_sounds), GET /api/v1/sounds/{soundId}
(get_sound)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Path

from sors.kit.principal import current_account_id
from sors.kit.problems import problems
from sors.kit.responses import ModelResponse
from sors.kit.routing import Context, SorsRoute
from sors.sounds import service
from sors.sounds.schemas import SoundDetail, SoundTrends, SoundTrendsIn

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["catalog"])
AccountId = Annotated[str, Depends(current_account_id)]


def _skill(key: str) -> dict[str, str | bool]:
    return {"x-sors-skill": key, "x-sors-read": True}


@router.post(
    "/trends/sounds",
    summary="Sounds by usage growth (1 credit)",
    description="Sounds two or more creators used in the window of complete days before "
    "today (`timeFrame`, default one_week), fastest growing first against the window "
    "before, in a niche (`categoryId`, a top-level category) or all: each with its "
    "lifecycle stage (emerging, rising, peaking, fading), uses, creators, views, how often "
    "its posts beat their creator's average, and example posts.",
    openapi_extra=_skill("find_trending_sounds"),
    response_model=SoundTrends,
    responses=problems(402, body=True),
)
async def trending_sounds(
    ctx: Context, _: AccountId, body: Annotated[SoundTrendsIn | None, Body()] = None,
) -> ModelResponse:
    return ModelResponse(await service.trends(
        ctx.session, body or SoundTrendsIn(), now=ctx.now,
        min_age_hours=ctx.runtime.settings.jobs.baseline_min_age_hours))


@router.get(
    "/sounds/{soundId}",
    summary="A sound and its usage over time (1 credit)",
    description="The sound (platform, title, author, original or not, first seen), its "
    "posts, creators and views, its stage, its uses per day, its niches, its first "
    "creators and its best posts.",
    openapi_extra=_skill("get_sound"),
    response_model=SoundDetail,
    responses=problems(402, 404),
)
async def get_sound(
    ctx: Context, _: AccountId,
    soundId: Annotated[str, Path()],
) -> ModelResponse:
    return ModelResponse(await service.detail(
        ctx.session, soundId, now=ctx.now,
        min_age_hours=ctx.runtime.settings.jobs.baseline_min_age_hours))
