"""The scores a post record carries and what stands behind them: the window scores and
their baselines (with their quality and view definition), the robust and age-matched
scores, the projection, the engagement check (docs/API.md, "Outlier scores")."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, WithJsonSchema

from sors.kit.schemas import ResponseModel, Timestamp

WindowName = Literal[
    "one_week", "two_weeks", "one_month", "three_months", "six_months", "one_year", "all_time"
]
# A number as the projection stored it: views are whole (rounded), so an integer stays one
# in the body; the document says `number` for both.
Number = Annotated[int | float, WithJsonSchema({"type": "number"})]


class OutlierScores(ResponseModel):
    """views / the profile's average views over each window; null when the window was empty."""

    one_week: float | None
    two_weeks: float | None
    one_month: float | None
    three_months: float | None
    six_months: float | None
    one_year: float | None
    all_time: float | None


BaselineQuality = Literal["ok", "thin"]
ViewDefinitionName = Literal["plays", "first_frame", "engaged", "video_views"]


class DefinitionChange(ResponseModel):
    """The window also held the creator's posts counted under another view definition; they
    are left out of this baseline."""

    definition: ViewDefinitionName
    changed_on: str | None = Field(
        description="The day (UTC) the platform changed the definition for this post's "
        "format; null when the other posts' counts are of another kind (a source's older "
        "figure) rather than from before a change")
    post_count: int = Field(description="The window's posts of that definition")
    views: float | None = Field(description="Their average views (null under 3 posts)")
    views_ratio: float | None = Field(
        description="This baseline's average views ÷ theirs: how far the creator's views "
        "moved across the change (null when either average is)")


class ScoreBaseline(ResponseModel):
    """What a window's mean score (`outlier_scores[W]`) divides by, and how well it stands."""

    views: float | None = Field(description="The average views the score divides by")
    post_count: int = Field(description="The creator's posts the average is built from")
    days_covered: float | None = Field(
        description="Days of the window the creator's known history covers (its oldest "
        "stored post of this view definition to the crawl); all_time: the history's length")
    quality: BaselineQuality = Field(
        description="`thin`: fewer than 10 posts, or less than half the window covered by "
        "the creator's history (docs/API.md); `ok` otherwise")
    same_as: WindowName | None = Field(
        description="The shortest window built from exactly the same posts (the history is "
        "shorter than this window), whose score this one repeats; null when none")
    view_definition: ViewDefinitionName = Field(
        description="The view definition of the posts compared: the post's own")
    crosses_change: DefinitionChange | None


class ScoreBaselines(ResponseModel):
    one_week: ScoreBaseline
    two_weeks: ScoreBaseline
    one_month: ScoreBaseline
    three_months: ScoreBaseline
    six_months: ScoreBaseline
    one_year: ScoreBaseline
    all_time: ScoreBaseline


class ViewEpoch(ResponseModel):
    """What the platform counted as a view for this post (docs/API.md, "What a view is")."""

    definition: ViewDefinitionName
    since: str | None = Field(description="The day (UTC) it began for this format; null: as "
                              "far back as recorded")
    until: str | None = Field(description="The day (UTC) it ended for this format; null: "
                              "still current")


class EngagementAnomaly(ResponseModel):
    """Likes and comments per view far below the creator's usual, on a post with at least
    their median views: the shape of bought or botted views (docs/API.md)."""

    engagement_rate: float
    creator_median: float = Field(description="The creator's median engagement rate (posts "
                                  "of the same format and view definition)")
    creator_p10: float = Field(description="Their 10th percentile")
    post_count: int = Field(description="The posts those figures are taken over")
    views: int | None
    creator_median_views: float | None


class RobustScore(ResponseModel):
    """Views / the median views of the creator's other posts of the same format."""

    score: float | None
    median_views: float | None
    post_count: int


class RobustScores(ResponseModel):
    one_week: RobustScore
    two_weeks: RobustScore
    one_month: RobustScore
    three_months: RobustScore
    six_months: RobustScore
    one_year: RobustScore
    all_time: RobustScore


class AgeAdjustedScore(ResponseModel):
    """Views / the median views of the creator's other posts at the same age."""

    score: float | None
    expected_views: float | None
    post_count: int
    age_hours: float | None


class ProjectedViews(ResponseModel):
    low: Number
    expected: Number
    high: Number


class ExpectedViewsNow(ResponseModel):
    p10: Number
    p50: Number
    p90: Number


class Projection(ResponseModel):
    """Against the creator's own curve of expected views by age (docs/API.md, "Rising
    posts"), as of the post's last crawl; null from 30 days of age, or without a curve."""

    as_of: Timestamp
    age_hours: float
    percentile_now: float | None = Field(
        description="Where its views sit among the creator's posts at the same age (0-100)"
    )
    vs_median_now: float = Field(description="Views / the creator's median views at this age")
    expected_views_now: ExpectedViewsNow
    accelerating: bool | None = Field(
        description="Views per hour over its last interval above the previous interval's"
    )
    rising: bool = Field(description="Above the creator's p90 at this age and accelerating")
    projected_views_7d: ProjectedViews | None
    projected_views_30d: ProjectedViews | None
    projected_outlier_score: float | None = Field(
        description="The 30-day projection / the creator's three-month average views"
    )
    confidence: Literal["low", "medium", "high"]
    curve_post_count: int = Field(description="The creator's posts the curve stands on here")
