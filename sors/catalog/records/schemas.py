"""Catalog response models (docs/API.md): the post and profile records (snake_case, as the
platform data they mirror, with the transcript and visual analysis found in a post) and the
envelopes around them (camelCase). Built by `sors.catalog.records.build`; the MCP tools use
them as output schemas."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from sors.catalog.records.analysis_schemas import Analysis
from sors.catalog.records.score_schemas import (  # noqa: F401 (re-exported)
    AgeAdjustedScore,
    BaselineQuality,
    DefinitionChange,
    EngagementAnomaly,
    ExpectedViewsNow,
    Number,
    OutlierScores,
    ProjectedViews,
    Projection,
    RobustScore,
    RobustScores,
    ScoreBaseline,
    ScoreBaselines,
    ViewDefinitionName,
    ViewEpoch,
    WindowName,
)
from sors.kit.schemas import RequestModel, ResponseModel, Timestamp
from sors.platforms.urls import POST_URL_PATTERN


class TranscriptSegment(ResponseModel):
    start: float
    end: float
    text: str


class TranscriptOut(ResponseModel):
    text: str
    language: str | None = Field(description="ISO 639-1; null when unknown (OCR)")
    source: Literal["speech", "on_screen_text"]
    segments: list[TranscriptSegment]
    created_at: Timestamp | None


class Scene(ResponseModel):
    index: int
    start: float
    end: float
    on_screen_text: str | None
    dominant_colors: list[str] = Field(description='"#rrggbb", most frequent first')


class VisualAnalysisOut(ResponseModel):
    scene_count: int
    avg_scene_seconds: float | None
    scenes: list[Scene]
    on_screen_text: str | None
    created_at: Timestamp | None


Platform = Literal["tiktok", "instagram", "youtube"]
ScoreStatus = Literal["mature", "age_adjusted", "too_young"]


class _PostCore(ResponseModel):
    id: str = Field(examples=["pst_01jc7m0c2v8m3k2q3w4e5r6t7y"])
    platform: Platform
    platform_post_id: str
    url: str | None
    content_type: str = Field(
        description="tiktok: video, slideshow; instagram: reel, image, carousel; "
        "youtube: video, short, live"
    )
    caption: str | None
    published_at: Timestamp | None
    duration_seconds: float | None
    views: int | None
    likes: int | None
    comments: int | None
    shares: int | None
    engagement_rate: float | None = Field(description="(likes + comments) / views")
    outlier_scores: OutlierScores
    score_baselines: ScoreBaselines = Field(
        description="Per window, the baseline behind `outlier_scores[W]`: its posts, days "
        "covered and quality")
    robust_scores: RobustScores
    age_adjusted_score: AgeAdjustedScore
    score_status: ScoreStatus = Field(
        description="Which score is fair to show. `mature`: the post was at least "
        "`baseline_min_age_hours` (48 h) old at the crawl that scored it, so its window scores "
        "compare like with like. Younger, its views are still coming in and a window score "
        "sets them against mature posts' totals: `age_adjusted` (show "
        "`age_adjusted_score.score`) or `too_young` (no fair score yet).")
    velocity: float | None = Field(description="Views per hour lately")
    view_epoch: ViewEpoch
    other_view_counts: dict[str, int] = Field(
        description="View figures the source gave beside `views`, by kind (`video_views`: "
        "Instagram's older video views); `views` is the plays where a source gives both")
    engagement_anomaly: EngagementAnomaly | None = Field(
        description="Set when its engagement per view sits far below the creator's usual "
        "(likely promoted or botted); null otherwise")
    projection: Projection | None
    approximations: dict[str, str] = Field(
        description="Fields the platform only showed approximately, e.g. {\"views\": \"rounded\"}"
    )
    thumbnail_url: str | None
    stats_updated_at: Timestamp | None
    first_seen_at: Timestamp | None
    deleted_at: Timestamp | None
    has_transcript: bool
    has_visual_analysis: bool
    sound_id: str | None = Field(
        description="The sound it uses (GET /api/v1/sounds/{soundId}); null when its source "
        "shows none")


class WindowAverage(ResponseModel):
    views: float | None
    likes: float | None
    engagement_rate: float | None
    post_count: int
    young_post_count: int
    days_covered: float | None = Field(
        description="Days of the window the creator's known history covers")
    quality: BaselineQuality = Field(description="`thin` or `ok`, as on a score's baseline")


class ProfileAverages(ResponseModel):
    one_week: WindowAverage
    two_weeks: WindowAverage
    one_month: WindowAverage
    three_months: WindowAverage
    six_months: WindowAverage
    one_year: WindowAverage
    all_time: WindowAverage


class PostOwner(ResponseModel):
    id: str
    platform: Platform
    handle: str
    display_name: str | None
    follower_count: int | None
    is_active: bool
    avatar_url: str | None
    averages: ProfileAverages = Field(
        description="The owner's averages per window, as on its profile record: "
        "`outlier_scores[W]` = views ÷ `averages[W].views`, built from "
        "`averages[W].post_count` posts"
    )


class PostGrowth(ResponseModel):
    age_hours: float | None
    snapshot_count: int = Field(description="Stat snapshots recorded (one per crawl)")
    views_per_hour_24h: float | None


class PostRecord(_PostCore):
    """A post with its owner under `profile`; GET /posts/{postId} adds `transcript` and
    `visual_analysis` when they exist and their include flag is true."""

    profile: PostOwner
    growth: PostGrowth
    transcript: TranscriptOut | None = Field(None, description="Present only when it exists")
    visual_analysis: VisualAnalysisOut | None = Field(
        None, description="Present only when it exists"
    )
    analysis: Analysis | None = Field(
        None, description="Its breakdown against the creator's usual, when one was made"
    )


class FlatPost(_PostCore):
    """The flattened post: search results, trends, trending, updates, recent posts."""

    profile_id: str
    handle: str
    display_name: str | None
    follower_count: int | None
    is_active: bool


class CategoryRef(ResponseModel):
    id: str = Field(examples=["fitness.yoga"])
    name: str


class ProfileRecord(ResponseModel):
    id: str = Field(examples=["prf_01jc7m0c2v8m3k2q3w4e5r6t7y"])
    platform: Platform
    handle: str
    display_name: str | None
    url: str | None
    bio: str | None
    avatar_url: str | None
    follower_count: int | None
    approximations: dict[str, str]
    tracked_post_count: int
    averages: ProfileAverages
    categories: list[CategoryRef]
    is_active: bool
    last_crawled_at: Timestamp | None
    first_seen_at: Timestamp | None


class ProfileDetail(ProfileRecord):
    recent_posts: list[FlatPost] = Field(description="The 12 most recently published posts")


class _Page(ResponseModel):
    page: int
    pageSize: int
    total: int = Field(description="Matches, counted up to 10,000")
    totalCapped: bool = Field(description="True when there are more than 10,000 matches")
    hasMore: bool


class ScoredPost(FlatPost):
    score: float | None = Field(description="The score the search filtered and sorted by")
    similarity: float | None = Field(
        default=None,
        description="Searches by meaning (`semantic`, `similarTo`) only: the cosine "
        "similarity of the post's text to the query or to the `similarTo` post (1: the same "
        "meaning; about 0: unrelated)",
    )
    relevance: float | None = Field(
        default=None,
        description="`semantic` searches only: `similarity` plus a small weight times the "
        "share of the query's word weight the post holds (words weigh their rarity in the "
        "catalog); the results' order without `sortBy`",
    )


Match = Literal["none", "weak", "good"]


class PostPage(_Page):
    results: list[ScoredPost]
    scoreMethod: Literal["mean", "median", "age_adjusted"]
    scoreWindow: WindowName
    match: Match | None = Field(
        default=None,
        description="`semantic` searches only: how close the best result is to the query, "
        "by the model's calibrated similarity thresholds: `none` (nothing about it yet; the "
        "results are only the closest), `weak`, `good`; null for a model without calibration",
    )


class SimilarProfile(ProfileRecord):
    similarity: float | None = Field(
        default=None,
        description="`similarTo` searches only: how alike the creator's posts are to the "
        "profile's (the mean cosine similarity of their three nearest posts)",
    )


class ProfilePage(_Page):
    results: list[SimilarProfile]


class Category(ResponseModel):
    id: str
    name: str
    parentId: str | None
    profileCount: int = Field(description="Profiles in the category's subtree")


class ResolvedPost(ResponseModel):
    found: Literal[True]
    postId: str
    platform: Platform
    platformPostId: str
    profileId: str


class UnresolvedPost(ResponseModel):
    found: Literal[False]
    platform: Platform
    platformPostId: str
    handle: str | None
    profileTracked: bool | None
    reason: Literal["post_not_tracked", "profile_not_tracked", "unknown_owner"]


class Ranking(ResponseModel):
    topByFollowers: str | None
    topByEngagement: str | None
    byFollowers: list[str]
    byEngagement: list[str]
    engagementWindow: WindowName


class NotFoundById(ResponseModel):
    profileId: str


class NotFoundByHandle(ResponseModel):
    platform: Platform
    handle: str


class Comparison(ResponseModel):
    profiles: list[ProfileRecord]
    ranking: Ranking
    notFound: list[NotFoundById | NotFoundByHandle]


class ResolveIn(RequestModel):
    url: Annotated[str, Field(
        max_length=4096,
        description="A TikTok, Instagram or YouTube post URL. The pattern states the canonical "
        "forms; the parser also reads any letter case, empty path segments, a username "
        "before an Instagram post's code and query strings. Short links are 422 "
        "`short_link_not_supported`, any other URL 422 `unsupported_url`.",
        json_schema_extra={"pattern": POST_URL_PATTERN})]
