"""The breakdown of a post kept beside it (`PostAnalysisRecord`), in the shape that
get_analysis_result and get_post (`includeAnalysis`) answer; made by `sors.analyses`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from sors.kit.schemas import ResponseModel, Timestamp


class Hook(ResponseModel):
    type: str | None = Field(description="how_to, number_list, question, challenge, story, "
                             "reveal, contrarian, bold_claim, direct_address or other")
    text: str = Field(description="The hook as the viewer met it: speech, on-screen text and "
                      "caption reconciled (docs/API.md, \"The hook\")")
    spokenText: str | None = Field(description="Speech that starts in the first 3 seconds")
    onScreenText: str | None = Field(description="The first scene's (slide's) text")
    startSecond: float | None
    endSecond: float | None
    source: Literal["speech", "on_screen_text", "caption"] | None = Field(
        None, description="Where `text` came from")
    supportedBy: list[str] = Field(
        default_factory=list, description="The other witnesses (speech, on_screen_text, "
        "caption) holding most of its words")
    captionText: str | None = Field(None, description="The caption's opening sentence")
    speechConfidence: float | None = Field(
        None, description="How sure the speech model was of the spoken hook (0-1)")


class Baseline(ResponseModel):
    """Numeric features: median, spread (scaled MAD); others: the usual value and the share
    of the creator's posts with the same value as this post."""

    postCount: int
    median: float | None = None
    spread: float | None = None
    usual: Any = None
    share: float | None = None


Group = Literal["creator", "niche"]


class Coverage(ResponseModel):
    """Posts of the comparison on which the feature was measured the same way as on this
    one (speech features among transcribed posts, scene features among analysed ones)."""

    measured: int
    posts: int
    method: str = Field(description="speech, scenes, media, caption or metadata")


class FeatureOut(ResponseModel):
    name: str
    label: str
    unit: str | None
    value: Any = Field(description="None: the feature does not apply or is not measured yet")
    baseline: Baseline | None
    percentile: float | None = Field(description="Numeric features: the post's percentile")
    display: str | None = Field(None, description="The value as written for people")
    comparedWith: Group | None = Field(
        None, description="Whose posts the baseline is: the creator's or the niche's")
    coverage: Coverage | None = None


class GroupShare(ResponseModel):
    postCount: int
    share: float = Field(description="Share with this post's value (numeric: on its side of "
                         "the creator's median)")


class Timespan(ResponseModel):
    startSecond: float
    endSecond: float


class StoodOut(FeatureOut):
    outliers: GroupShare
    ordinary: GroupShare
    strength: float = Field(description="departure x separation (docs/API.md)")
    timestamps: list[Timespan]
    transcriptLine: str | None


class AudienceDemand(ResponseModel):
    """What the post's comments ask for most (its largest cluster of asking comments)."""

    comments: int = Field(description="Comments asking it")
    likes: int = Field(description="Their likes, summed")
    kind: str = Field(description="Their commonest kind: question, request, part_two, "
                      "confusion")
    quote: str = Field(description="Its most central comment, verbatim")
class Split(ResponseModel):
    """How many posts of a group are on this post's side of a finding."""

    postCount: int
    count: int
    share: float


class Finding(ResponseModel):
    kind: Literal["unusual", "shared"] = Field(
        description="unusual: at or beyond the 10th/90th percentile (or a value at most 10% "
        "of the posts have); shared: a value the outliers have more than the others")
    feature: str
    label: str
    text: str = Field(description="The finding as a sentence, its numbers formatted")
    value: Any
    display: str | None
    percentile: float | None
    comparedWith: Group
    postCount: int = Field(description="The posts behind the finding")
    outliers: Split | None = Field(description="The comparison's outliers on its side")
    others: Split | None = Field(description="The comparison's other posts on its side")


class AnalysisComparison(ResponseModel):
    group: Group = Field(description="creator: the creator's own posts; niche: posts of "
                         "similar creators (same niche, similar followers) of a similar age")
    text: str = Field(description='e.g. "412 posts of 34 Food creators of 50K-200K followers"')
    postCount: int
    outlierCount: int
    creatorCount: int
    categoryId: str | None = None
    followerRange: list[int] | None = Field(None, description="[min, max] followers (niche)")
    ageDays: list[float] | None = Field(None, description="[min, max] post age in days "
                                        "(niche)")
    reason: str | None = Field(None, description="Why the niche, when it is")


class Analysis(ResponseModel):
    score: float | None = Field(description="The post's outlier score (three months, else "
                                "all time)")
    peerCount: int = Field(description="The creator's other posts compared")
    analysedPeerCount: int = Field(description="Of those, with transcript and visual analysis")
    outlierCount: int = Field(description="Of those, outliers (score >= 3)")
    hook: Hook | None
    features: list[FeatureOut]
    stoodOut: list[StoodOut]
    summary: str
    engine: str | None = Field(description="The LLM that phrased the summary, or the offline "
                               "engine")
    summaryNote: str | None = Field(description="Why the LLM's summary was not used, if so")
    analysedAt: Timestamp | None
    audienceDemand: AudienceDemand | None = Field(
        None, description="What its comments ask for most, when the catalog holds comments "
        "that ask anything (POST /comments fetches them)")
    basis: Literal["media", "metadata"] = Field(
        "media", description="metadata: made without the post's media (it could not be "
        "fetched), from its caption, numbers and timing")
    basisNote: str | None = Field(None, description="Why the basis is metadata")
    comparison: AnalysisComparison | None = None
    findings: list[Finding] = Field(default_factory=list)


def analysis_shape(data: Mapping[str, object]) -> dict[str, object]:
    """The stored breakdown with its keys in the documented order (JSONB keeps its own)."""
    return Analysis.model_validate(data).model_dump(mode="json")


