"""The breakdown of a post kept beside it (`PostAnalysisRecord`), in the shape that
get_analysis_result and get_post (`includeAnalysis`) answer; made by `sors.analyses`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from sors.kit.schemas import ResponseModel, Timestamp


class Hook(ResponseModel):
    type: str | None = Field(description="how_to, number_list, question, challenge, story, "
                             "reveal, contrarian, bold_claim, direct_address or other")
    text: str = Field(description="The spoken hook, else the first scene's on-screen text")
    spokenText: str | None = Field(description="Speech that starts in the first 3 seconds")
    onScreenText: str | None = Field(description="The first scene's (slide's) text")
    startSecond: float | None
    endSecond: float | None


class Baseline(ResponseModel):
    """Numeric features: median, spread (scaled MAD); others: the usual value and the share
    of the creator's posts with the same value as this post."""

    postCount: int
    median: float | None = None
    spread: float | None = None
    usual: Any = None
    share: float | None = None


class FeatureOut(ResponseModel):
    name: str
    label: str
    unit: str | None
    value: Any = Field(description="None: the feature does not apply or is not measured yet")
    baseline: Baseline | None
    percentile: float | None = Field(description="Numeric features: the post's percentile")


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



def analysis_shape(data: Mapping[str, object]) -> dict[str, object]:
    """The stored breakdown with its keys in the documented order (JSONB keeps its own)."""
    return Analysis.model_validate(data).model_dump(mode="json")


