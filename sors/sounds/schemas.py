"""Sounds' request bodies and answers (docs/API.md, "Sounds")."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from sors.catalog.records.fields import PlatformName, _clamp
from sors.catalog.records.schemas import FlatPost
from sors.kit.schemas import RequestModel, ResponseModel, Timestamp
from sors.platforms import taxonomy
from sors.sounds.stages import Stage

TrendWindow = Literal["one_week", "two_weeks", "one_month"]
TREND_DAYS: dict[str, int] = {"one_week": 7, "two_weeks": 14, "one_month": 30}
NICHES = sorted(c.id for c in taxonomy.CATEGORIES if c.parent_id is None)


def top_level(v: str | None) -> str | None:
    """A niche: a top-level category id (creators count in their main niche)."""
    if v is not None and v not in NICHES:
        raise ValueError("not a top-level category id (a niche); GET /api/v1/categories "
                         "lists them, the ones without a parent")
    return v


Niche = Annotated[str | None, Field(
    None, max_length=64, json_schema_extra={"enum": [*NICHES, None]},
    description="A niche: a top-level category id. Creators count in their main niche")]


class SoundTrendsIn(RequestModel):
    timeFrame: TrendWindow | None = Field(
        None, description="The window of complete days before today (default one_week), "
        "compared with the window before it")
    categoryId: Niche = None
    platforms: list[PlatformName] | None = Field(None, max_length=3)
    stages: list[Stage] | None = Field(None, max_length=4,
                                       description="Only sounds in these stages")
    limit: Annotated[int | None, _clamp(1, 50)] = None

    _niche = field_validator("categoryId")(top_level)


class SoundOut(ResponseModel):
    soundId: str
    platform: PlatformName
    title: str | None
    author: str | None
    original: bool = Field(description="The creator's own audio rather than a track")
    firstSeenAt: Timestamp = Field(description="When a crawl first saw it")


class SoundTrend(SoundOut):
    stage: Stage
    uses: int = Field(description="Posts using it published in the window")
    previousUses: int = Field(description="The same in the window before")
    growth: float | None = Field(description="uses ÷ previousUses; null when previousUses is 0")
    creators: int = Field(description="Distinct creators who used it in the window")
    previousCreators: int
    views: int = Field(description="Views of the window's posts using it, as last crawled")
    outlierShare: float | None = Field(
        description="Share of the window's posts using it that beat their creator's "
        "three-month average (score above 1); null when none has a score yet")
    nicheShare: float = Field(
        description="Its uses in the last 7 days ÷ all posts of its platform in the niche "
        "(without categoryId: in the niches it was used in) then")
    examplePosts: list[FlatPost] = Field(
        description="Each creator's best post using it in the window (three-month score), "
        "best first, at most 3")


class SoundTrends(ResponseModel):
    generatedAt: Timestamp
    timeFrame: TrendWindow
    since: str = Field(description="The window's first day (UTC)")
    until: str = Field(description="The day after its last (today, UTC): not counted")
    categoryId: str | None
    sounds: list[SoundTrend]


class SoundDay(ResponseModel):
    day: str
    posts: int
    newCreators: int = Field(description="Creators who used it for the first time that day")
    views: int


class SoundNiche(ResponseModel):
    categoryId: str | None
    posts: int
    creators: int


class Adopter(ResponseModel):
    profileId: str
    platform: PlatformName
    handle: str
    firstUsedAt: Timestamp
    postId: str


class SoundDetail(SoundOut):
    stage: Stage
    posts: int
    creators: int
    views: int
    outlierShare: float | None
    firstUsedAt: Timestamp | None
    lastUsedAt: Timestamp | None
    usage: list[SoundDay] = Field(description="Posts using it per day of publication (UTC)")
    niches: list[SoundNiche]
    earlyAdopters: list[Adopter] = Field(description="Its first creators, at most 10")
    examplePosts: list[FlatPost] = Field(
        description="Each creator's best post using it, best first, at most 5")
