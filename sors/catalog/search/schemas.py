"""Search request bodies (docs/API.md): fields are camelCase; the records they answer with
are `sors.catalog.records.schemas`."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from sors.catalog.records.fields import (
    CategoryId,
    ContentType,
    NonNegative,
    PlatformName,
    Query,
    ScoreMethod,
    Window,
    _Paged,
)
from sors.platforms.base import ALL_CONTENT_TYPES

SortBy = Literal[
    "outlier_score", "views", "likes", "engagement_rate", "recent", "velocity", "rising"
]


class SearchContentIn(_Paged):
    query: Query = None
    platforms: list[PlatformName] | None = Field(None, max_length=3)
    contentTypes: list[ContentType] | None = Field(None, max_length=len(ALL_CONTENT_TYPES))
    minOutlierScore: NonNegative = None
    minViews: NonNegative = None
    maxFollowers: NonNegative = None
    timeFrame: Window | None = None
    scoreWindow: Window | None = None
    scoreMethod: ScoreMethod | None = None
    sortBy: SortBy | None = Field(
        None, description="`rising`: posts younger than 30 days with a projection only, "
        "furthest above their creator's median curve at their age first")
    minRisingScore: NonNegative = Field(
        None, description="Only posts whose views are at least this multiple of their "
        "creator's median views at the same age (`projection.vs_median_now`)")
    semantic: bool | None = Field(
        None, description="Search `query` by meaning: the posts nearest it, reordered by the "
        "query's words weighed by their rarity (a quoted phrase must appear); needs `query`. "
        "Every filter applies; without `sortBy` the results are ordered by relevance; `match` "
        "says how close the best is. 503 `semantic_unavailable` where the server lacks "
        "pgvector.")
    similarTo: Annotated[str | None, Field(
        max_length=64, description="A post id: the posts nearest it in meaning, most similar "
        "first (without `sortBy`), never the post itself nor (unless `includeSameCreator`) its "
        "creator's. `query`, when given, filters by words. Not with `semantic`.")] = None
    includeSameCreator: bool | None = Field(
        None, description="With `similarTo`: include the post's own creator's posts")
    categoryId: CategoryId = Field(
        None, description="Only posts whose creator is in this niche: an id from GET "
        "/api/v1/categories, covering its sub-niches (as search_profiles and breakouts)")
    soundId: Annotated[str | None, Field(
        max_length=64, description="Only posts using this sound (`sound_id`, GET "
        "/api/v1/sounds/{soundId})")] = None
    profileIds: list[Annotated[str, Field(min_length=1, max_length=64)]] | None = Field(
        None, min_length=1, max_length=50,
        description="Only these creators' posts (profile ids, at most 50)")
    baselineQuality: Literal["ok"] | None = Field(
        None, description="`ok`: only posts whose mean baseline of `scoreWindow` is `ok` "
        "(enough posts, enough of the window covered: `score_baselines`), so a thin "
        "baseline's score never passes `minOutlierScore`")
    excludeEngagementAnomalies: bool | None = Field(
        None, description="Leave out posts flagged `engagement_anomaly` (likes and comments "
        "per view far below the creator's usual: likely promoted or botted)")

    @model_validator(mode="after")
    def _meaning_needs_its_input(self) -> SearchContentIn:
        if self.semantic and self.similarTo:
            raise ValueError("semantic and similarTo are two ways to rank: send one")
        if self.semantic and not self.query:
            raise ValueError("semantic: true ranks the query by meaning: send a query")
        if self.includeSameCreator is not None and not self.similarTo:
            raise ValueError("includeSameCreator applies to similarTo searches only")
        return self


class SearchProfilesIn(_Paged):
    query: Query = None
    platforms: list[PlatformName] | None = Field(None, max_length=3)
    similarTo: Annotated[str | None, Field(
        max_length=64, description="A profile id: creators whose posts are about the same "
        "things (nearest in meaning), most similar first, never the profile itself. Other "
        "filters apply. 503 `semantic_unavailable` where the server lacks pgvector.")] = None
    categoryId: CategoryId = None
