"""Catalog request bodies and the post / profile record shapes (docs/API.md).

Request fields are camelCase; records mirror the platforms' data and are snake_case.
Records are built from plain row mappings (see `catalog.repository`): the post columns under
their own names, the owner's columns prefixed `profile_`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
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
    Rising,
    Trending,
    Trends,
    UnresolvedPost,
)
from sors.catalog.rising import PROJECTION_MAX_AGE_HOURS
from sors.catalog.scoring import baseline_min_age_hours
from sors.kit import clock
from sors.kit.clock import isoformat
from sors.kit.schemas import RequestModel
from sors.platforms import taxonomy
from sors.platforms.base import ALL_CONTENT_TYPES
from sors.platforms.handles import (
    InvalidHandle,
    handle_rules_text,
    handle_schema_rule,
    normalize_handle,
)
from sors.platforms.urls import POST_URL_PATTERN, profile_url

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


# ---- records --------------------------------------------------------------------------


def _round(v: float | None, digits: int) -> float | None:
    return None if v is None else round(float(v), digits)


def outlier_scores(row: Mapping[Any, Any]) -> dict[str, float | None]:
    return {w: _round(row[f"score_{w}"], 4) for w in WINDOWS}


def robust_scores(row: Mapping[Any, Any]) -> dict[str, dict[str, Any]]:
    """Per window: the score against the median of the creator's other posts of the same
    format, with the median and how many posts it was taken over."""
    medians = ((row.get("baselines") or {}).get("median")) or {}
    out: dict[str, dict[str, Any]] = {}
    for w in WINDOWS:
        m = medians.get(w) or {}
        out[w] = {
            "score": _round(row.get(f"mscore_{w}"), 4),
            "median_views": _round(m.get("views"), 2),
            "post_count": int(m.get("post_count") or 0),
        }
    return out


def age_adjusted_score(row: Mapping[Any, Any]) -> dict[str, Any]:
    """The score against the median views of the creator's other posts at the same age."""
    a = ((row.get("baselines") or {}).get("age")) or {}
    return {
        "score": _round(row.get("age_score"), 4),
        "expected_views": _round(a.get("expected_views"), 2),
        "post_count": int(a.get("post_count") or 0),
        "age_hours": _round(a.get("age_hours"), 2),
    }


def projection(row: Mapping[Any, Any]) -> dict[str, Any] | None:
    """The stored projection (catalog.rising), while the post is younger than 30 days."""
    proj = row.get("projection")
    published = row.get("published_at")
    if not proj or published is None:
        return None
    if (clock.now() - published).total_seconds() > PROJECTION_MAX_AGE_HOURS * 3600:
        return None
    return {**proj, "as_of": isoformat(datetime.fromisoformat(proj["as_of"]))}


def score_status(row: Mapping[Any, Any]) -> str:
    """`mature`: the post was old enough at the crawl that scored it for its window scores to
    compare like with like (the baselines count only posts that old). Younger, its views are
    still coming in: `age_adjusted` when the age-matched score exists (show that one), else
    `too_young` (no fair score yet)."""
    published, scored = row["published_at"], row["stats_updated_at"]
    if published is None or scored is None:
        return "mature"
    if (scored - published).total_seconds() >= baseline_min_age_hours() * 3600.0:
        return "mature"
    return "age_adjusted" if row.get("age_score") is not None else "too_young"


def _post_core(row: Mapping[Any, Any]) -> dict[str, Any]:
    return {
        "id": row["id"],
        "platform": row["platform"],
        "platform_post_id": row["platform_post_id"],
        "url": row["url"],
        "content_type": row["content_type"],
        "caption": row["caption"],
        "published_at": isoformat(row["published_at"]),
        "duration_seconds": row["duration_seconds"],
        "views": row["views"],
        "likes": row["likes"],
        "comments": row["comments"],
        "shares": row["shares"],
        "engagement_rate": _round(row["engagement_rate"], 6),
        "outlier_scores": outlier_scores(row),
        "robust_scores": robust_scores(row),
        "age_adjusted_score": age_adjusted_score(row),
        "score_status": score_status(row),
        "velocity": _round(row.get("velocity"), 2),
        "projection": projection(row),
        "approximations": dict(row.get("approximations") or {}),
        "thumbnail_url": row["thumbnail_url"],
        "stats_updated_at": isoformat(row["stats_updated_at"]),
        "first_seen_at": isoformat(row["first_seen_at"]),
        "deleted_at": isoformat(row["deleted_at"]),
        "has_transcript": bool(row["has_transcript"]),
        "has_visual_analysis": bool(row["has_visual_analysis"]),
    }


def post_record(row: Mapping[Any, Any]) -> dict[str, Any]:
    """The post record with its owner nested under `profile`."""
    out = _post_core(row)
    out["profile"] = {
        "id": row["profile_id"],
        "platform": row["platform"],
        "handle": row["profile_handle"],
        "display_name": row["profile_display_name"],
        "follower_count": row["profile_follower_count"],
        "is_active": row["profile_is_active"],
        "avatar_url": row["profile_avatar_url"],
        "averages": averages(row["profile_averages"]),
    }
    return out


def flat_post(row: Mapping[Any, Any]) -> dict[str, Any]:
    """The flattened shape: search results, trends, trending, updates, recent posts."""
    out = _post_core(row)
    out["profile_id"] = row["profile_id"]
    out["handle"] = row["profile_handle"]
    out["display_name"] = row["profile_display_name"]
    out["follower_count"] = row["profile_follower_count"]
    out["is_active"] = row["profile_is_active"]
    return out


def averages(raw: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """One entry per window; a window the profile was never scored on reads as empty."""
    raw = raw or {}
    out: dict[str, dict[str, Any]] = {}
    for w in WINDOWS:
        a = raw.get(w) or {}
        out[w] = {
            "views": _round(a.get("views"), 2),
            "likes": _round(a.get("likes"), 2),
            "engagement_rate": _round(a.get("engagement_rate"), 4),
            "post_count": int(a.get("post_count") or 0),
            "young_post_count": int(a.get("young_post_count") or 0),
        }
    return out


def profile_approximations(row: Mapping[Any, Any]) -> dict[str, str]:
    if row.get("follower_count") is None:
        return {"follower_count": "hidden"}
    return {"follower_count": "rounded"} if row.get("follower_count_approximate") else {}


def categories(ids: Sequence[str]) -> list[dict[str, str]]:
    known = taxonomy.by_id()
    return [{"id": c, "name": known[c].name} for c in ids if c in known]


def profile_record(row: Mapping[Any, Any], category_ids: Sequence[str] = ()) -> dict[str, Any]:
    url = row["url"]
    if not url:
        try:
            url = profile_url(row["platform"], row["handle"])
        except InvalidHandle:
            url = None
    return {
        "id": row["id"],
        "platform": row["platform"],
        "handle": row["handle"],
        "display_name": row["display_name"],
        "url": url,
        "bio": row["bio"],
        "avatar_url": row["avatar_url"],
        "follower_count": row["follower_count"],
        "approximations": profile_approximations(row),
        "tracked_post_count": row["tracked_post_count"],
        "averages": averages(row["averages"]),
        "categories": categories(category_ids),
        "is_active": row["is_active"],
        "last_crawled_at": isoformat(row["last_crawled_at"]),
        "first_seen_at": isoformat(row["first_seen_at"]),
    }


def page_envelope(
    results: list[dict[str, Any]],
    *,
    page: int,
    page_size: int,
    total: int,
    capped: bool,
    has_more: bool,
) -> dict[str, Any]:
    return {
        "results": results,
        "page": page,
        "pageSize": page_size,
        "total": total,
        "totalCapped": capped,
        "hasMore": has_more,
    }
