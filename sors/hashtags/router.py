"""POST /api/v1/trends/hashtags (find_trending_hashtags)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends

from sors.hashtags import service
from sors.hashtags.schemas import HashtagTrends, HashtagTrendsIn
from sors.kit.principal import current_account_id
from sors.kit.problems import problems
from sors.kit.responses import ModelResponse
from sors.kit.routing import Context, SorsRoute

router = APIRouter(prefix="/api/v1", route_class=SorsRoute, tags=["catalog"])


@router.post(
    "/trends/hashtags",
    summary="Hashtags by growth (1 credit)",
    description="Hashtags used in the window of complete days before today (`timeFrame`, "
    "default one_week), fastest growing in posts first against the window before, with "
    "their creators then and before, and their lift: how much more often their posts are "
    "outliers than the niche's. Boilerplate (tags spread evenly over every niche, or that "
    "a platform's own tools add) is left out. In a niche (`categoryId`) or all.",
    openapi_extra={"x-sors-skill": "find_trending_hashtags", "x-sors-read": True},
    response_model=HashtagTrends,
    responses=problems(402, body=True),
)
async def trending_hashtags(
    ctx: Context,
    _: Annotated[str, Depends(current_account_id)],
    body: Annotated[HashtagTrendsIn | None, Body()] = None,
) -> ModelResponse:
    return ModelResponse(await service.trends(ctx.session, body or HashtagTrendsIn(),
                                              now=ctx.now))
