"""Hashtag trends' request body and answer (docs/API.md, "Hashtags over time")."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, field_validator

from sors.catalog.records.fields import PlatformName, _clamp
from sors.kit.schemas import RequestModel, ResponseModel, Timestamp
from sors.sounds.schemas import Niche, TrendWindow, top_level


class HashtagTrendsIn(RequestModel):
    timeFrame: TrendWindow | None = Field(
        None, description="The window of complete days before today (default one_week), "
        "compared with the window before it")
    categoryId: Niche = None
    platforms: list[PlatformName] | None = Field(None, max_length=3)
    minPosts: Annotated[int | None, Field(
        None, ge=1, le=1000, description="Posts in the window at least (default 3)")] = None
    limit: Annotated[int | None, _clamp(1, 50)] = None

    _niche = field_validator("categoryId")(top_level)


class HashtagTrend(ResponseModel):
    tag: str = Field(description="Lower-cased, without #")
    posts: int = Field(description="Posts carrying it published in the window")
    previousPosts: int
    growth: float | None = Field(description="posts ÷ previousPosts; null when that is 0")
    creators: int = Field(description="Distinct creators who used it in the window")
    previousCreators: int
    outlierShare: float | None = Field(
        description="Share of its scored posts in the window at 3× or more their creator's "
        "three-month average")
    nicheOutlierShare: float | None = Field(
        description="The same over every post of the niche (or the catalog) and platforms")
    lift: float | None = Field(description="outlierShare ÷ nicheOutlierShare")


class HashtagTrends(ResponseModel):
    generatedAt: Timestamp
    timeFrame: str
    since: str = Field(description="The window's first day (UTC)")
    until: str = Field(description="The day after its last (today, UTC): not counted")
    categoryId: str | None
    hashtags: list[HashtagTrend]
