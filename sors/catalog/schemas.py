"""Catalog request bodies (docs/API.md): fields are camelCase. The records they answer
with are built in `catalog.records`; their response models live in `catalog.responses`."""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

import orjson
from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from sors.catalog.models import WINDOWS
from sors.catalog.request_rules import COMPARE_RULE
from sors.catalog.responses import (  # noqa: F401  (the domain's models, in one place)
    Category,
    Comparison,
    FlatPost,
    PostPage,
    PostRecord,
    ProfileDetail,
    ProfilePage,
    ProfileRecord,
    ResolvedPost,
    UnresolvedPost,
)
from sors.catalog.trend_responses import Rising, Trending, Trends  # noqa: F401
from sors.kit.schemas import RequestModel
from sors.platforms import taxonomy
from sors.platforms.base import ALL_CONTENT_TYPES
from sors.platforms.handles import (
    InvalidHandle,
    handle_rules_text,
    handle_schema_rule,
    normalize_handle,
)
from sors.platforms.urls import POST_URL_PATTERN

# ---- request bodies -------------------------------------------------------------------

PlatformName = Literal["tiktok", "instagram", "youtube"]
ContentType = Literal[ALL_CONTENT_TYPES]  # type: ignore[valid-type]
Window = Literal[
    "one_week", "two_weeks", "one_month", "three_months", "six_months", "one_year", "all_time"
]
SortBy = Literal[
    "outlier_score", "views", "likes", "engagement_rate", "recent", "velocity", "rising"
]
ScoreMethod = Literal["mean", "median", "age_adjusted"]
assert set(get_args(Window)) == set(WINDOWS)

MAX_PAGE_SIZE = 100
DEFAULT_PAGE_SIZE = 20
# Searches count and page through at most this many matches (see docs/API.md).
RESULT_WINDOW = 10_000


def _clamp(lo: int, hi: int) -> AfterValidator:
    return AfterValidator(lambda v: None if v is None else max(lo, min(hi, v)))


def _strip_query(v: str | None) -> str | None:
    if v is None:
        return None
    v = v.strip()
    return v or None


Query = Annotated[str | None, Field(max_length=200), AfterValidator(_strip_query)]
NonNegative = Annotated[float | None, Field(ge=0, allow_inf_nan=False)]
PageSize = Annotated[int | None, _clamp(1, MAX_PAGE_SIZE)]
# At most RESULT_WINDOW: page n starts at match (n - 1) × pageSize + 1, which must be within
# the first RESULT_WINDOW matches (else 422) — with pageSize 1, page RESULT_WINDOW is the
# last. The rule across the two fields is in the description: as JSON Schema it takes one
# branch per page size, more than Schemathesis's canonicaliser takes (it gives up past ~30).
Page = Annotated[int | None, Field(
    ge=1, le=RESULT_WINDOW,
    description=f"1-based; page n starts at match (n − 1) × pageSize + 1, which must lie within "
    f"the first {RESULT_WINDOW:,} matches (else 422 on `page`)")]



def known_category_id(v: str | None) -> str | None:
    """A `categoryId` must name a category of the taxonomy (shared by every request that
    takes one)."""
    if v is not None and v not in taxonomy.by_id():
        raise ValueError("unknown category id; GET /api/v1/categories lists them")
    return v

# A category of the taxonomy (its enum in the document; unknown ids are a 422).
CategoryId = Annotated[
    str | None,
    Field(
        max_length=64,
        description="An id from GET /api/v1/categories; covers its descendants too",
        json_schema_extra={"enum": [*sorted(taxonomy.by_id()), None]},
    ),
    AfterValidator(known_category_id),
]


class _Paged(RequestModel):
    page: Page = None
    pageSize: PageSize = None

    @property
    def page_number(self) -> int:
        return self.page or 1

    @property
    def page_size(self) -> int:
        return self.pageSize or DEFAULT_PAGE_SIZE


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
        None, description="Rank `query` by meaning and words together (reciprocal rank fusion "
        "of the vector and full-text rankings); needs `query`. Every filter applies; without "
        "`sortBy` the results are ordered by relevance. 503 `semantic_unavailable` where the "
        "server lacks pgvector.")
    similarTo: Annotated[str | None, Field(
        max_length=64, description="A post id: the posts nearest it in meaning, most similar "
        "first (without `sortBy`), never the post itself nor (unless `includeSameCreator`) its "
        "creator's. `query`, when given, filters by words. Not with `semantic`.")] = None
    includeSameCreator: bool | None = Field(
        None, description="With `similarTo`: include the post's own creator's posts")
    categoryId: CategoryId = Field(
        None, description="Only posts whose creator is in this niche: an id from GET "
        "/api/v1/categories, covering its sub-niches (as search_profiles and breakouts)")

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


class RisingIn(RequestModel):
    query: Query = None
    platforms: list[PlatformName] | None = Field(None, max_length=3)
    categoryId: CategoryId = None
    maxAgeHours: Annotated[int | None, Field(
        None, ge=1, le=168, description="Posts published at most this many hours ago "
        "(default 72)")] = None
    limit: Annotated[int | None, _clamp(1, 50)] = None


class ResolveIn(RequestModel):
    url: Annotated[str, Field(
        max_length=4096,
        description="A TikTok, Instagram or YouTube post URL. The pattern states the canonical "
        "forms; the parser also reads any letter case, empty path segments, a username "
        "before an Instagram post's code and query strings. Short links are 422 "
        "`short_link_not_supported`, any other URL 422 `unsupported_url`.",
        json_schema_extra={"pattern": POST_URL_PATTERN})]


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
