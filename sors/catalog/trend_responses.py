"""Catalog response models of the trend reads (docs/API.md): `POST /trends` (content types,
creators, hooks and themes among a window's outliers), `GET /trends/trending` and
`POST /trends/rising` (posts above their creator's curve, with the curve and the post's
snapshots). Re-exported by `sors.catalog.schemas`."""

from __future__ import annotations

from pydantic import Field

from sors.catalog.responses import FlatPost, Platform, WindowName
from sors.kit.schemas import ResponseModel, Timestamp


class ContentTypeShare(ResponseModel):
    platform: Platform
    contentType: str
    count: int
    share: float
    avgOutlierScore: float | None


class Creator(ResponseModel):
    profileId: str
    platform: Platform
    handle: str
    followerCount: int | None
    postCount: int
    bestOutlierScore: float | None


class Theme(ResponseModel):
    name: str | None = Field(description="Its most telling words, joined by ' · '")
    words: list[str]
    postCount: int
    medianOutlierScore: float | None
    posts: list[FlatPost] = Field(description="Its best five posts")


class HookTypeCount(ResponseModel):
    hookType: str
    outliers: int = Field(description="Analysed outliers (score >= 3) opening with this type")
    ordinary: int = Field(description="Analysed ordinary posts opening with this type")
    outlierShare: float
    ordinaryShare: float
    lift: float | None = Field(description="outlierShare / ordinaryShare")


class TrendHooks(ResponseModel):
    """Hook types among the matching posts that have features (sors.analyses)."""

    analysedPosts: int
    outlierPosts: int
    types: list[HookTypeCount]


class Trends(ResponseModel):
    timeFrame: WindowName
    scoreWindow: WindowName
    query: str | None
    posts: list[FlatPost]
    contentTypes: list[ContentTypeShare]
    creators: list[Creator]
    hooks: TrendHooks
    themes: list[Theme] | None = Field(
        default=None, description="`semantic: true` only: the outliers grouped by meaning, "
        "largest first (at most 10, each of at least 3 posts)")


class Trending(ResponseModel):
    generatedAt: Timestamp
    posts: list[FlatPost]


class CurvePoint(ResponseModel):
    ageHours: int
    p10: float | None
    p50: float | None
    p90: float | None
    postCount: int


class SnapshotPoint(ResponseModel):
    ageHours: float
    views: int | None


class RisingPost(FlatPost):
    curve: list[CurvePoint] = Field(
        description="The creator's expected views by age for this post's format: p10, p50, "
        "p90 (ages with enough posts only)")
    snapshots: list[SnapshotPoint] = Field(description="The post's views at each crawl")


class Rising(ResponseModel):
    generatedAt: Timestamp
    maxAgeHours: int
    query: str | None
    posts: list[RisingPost] = Field(
        description="Above their creator's p90 at their age and accelerating at their last "
        "crawl; one per creator, furthest above the creator's median first")
