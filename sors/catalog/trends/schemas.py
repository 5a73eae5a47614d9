"""Catalog response models of the trend reads (docs/API.md): `POST /trends` (content types,
creators, hooks and themes among a window's outliers), `GET /trends/trending` and
`POST /trends/rising` (posts above their creator's curve, with the curve and the post's
snapshots). Re-exported by `sors.catalog.records.fields`."""

from __future__ import annotations

from typing import Annotated, Any

import orjson
from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from sors.catalog.records.fields import PlatformName, Query, Window, _clamp
from sors.catalog.records.schemas import FlatPost, Platform, WindowName
from sors.catalog.trends.rules import COMPARE_RULE
from sors.kit.schemas import RequestModel, ResponseModel, Timestamp
from sors.platforms.handles import (
    InvalidHandle,
    handle_rules_text,
    handle_schema_rule,
    normalize_handle,
)


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


class TrendsIn(RequestModel):
    query: Query = None
    platforms: list[PlatformName] | None = Field(None, max_length=3)
    timeFrame: Window | None = None
    scoreWindow: Window | None = None
    limit: Annotated[int | None, _clamp(1, 50)] = None
    semantic: bool | None = Field(
        None, description="Also group the time frame's best outliers (about `query` by "
        "meaning, when given) into `themes`: posts that say the same thing in other words, "
        "each named by its most telling words. 503 `semantic_unavailable` where the server "
        "lacks pgvector.")


class HandleRef(RequestModel):
    model_config = ConfigDict(json_schema_extra=handle_schema_rule())

    platform: PlatformName
    handle: Annotated[str, Field(max_length=100, description=handle_rules_text())]

    @field_validator("handle")
    @classmethod
    def _normalise(cls, v: str, info: Any) -> str:
        platform = info.data.get("platform")
        if platform is None:  # the platform error is reported on its own
            return v
        try:
            return normalize_handle(platform, v)
        except InvalidHandle as exc:
            raise ValueError(str(exc)) from exc


_HANDLE_LIST = TypeAdapter(list[HandleRef])


class CompareIn(RequestModel):
    """Name 2-5 profiles: `profileIds` and `handles` together hold 2-5 entries (else 422)."""

    model_config = ConfigDict(json_schema_extra=COMPARE_RULE)

    profileIds: list[Annotated[str, Field(max_length=64)]] | None = Field(None, max_length=5)
    # A list of {platform, handle} objects, or a JSON string holding one (the seed declares
    # the field as a string).
    handles: list[HandleRef] | str | None = Field(
        None, description="{platform, handle} objects, or a JSON string holding such a list "
        "(then it must decode to such a list, and its entries count towards the 2-5)"
    )

    @field_validator("handles")
    @classmethod
    def _decode(cls, v: list[HandleRef] | str | None) -> list[HandleRef] | None:
        if not isinstance(v, str):
            return v
        try:
            raw = orjson.loads(v)
        except orjson.JSONDecodeError as exc:
            raise ValueError(
                "a JSON string must hold a list of {platform, handle} objects"
            ) from exc
        try:
            return _HANDLE_LIST.validate_python(raw, strict=True)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ValueError(f"{where}: {first['msg']}" if where else first["msg"]) from exc
