"""Rising posts' request body and response (docs/API.md, "Rising posts")."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from sors.catalog.records.fields import CategoryId, PlatformName, Query, _clamp
from sors.catalog.records.schemas import FlatPost
from sors.kit.schemas import RequestModel, ResponseModel, Timestamp


class RisingIn(RequestModel):
    query: Query = None
    platforms: list[PlatformName] | None = Field(None, max_length=3)
    categoryId: CategoryId = None
    maxAgeHours: Annotated[int | None, Field(
        None, ge=1, le=168, description="Posts published at most this many hours ago "
        "(default 72)")] = None
    limit: Annotated[int | None, _clamp(1, 50)] = None


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
