"""Request bodies and response shapes of analyze_post, get_analysis_result and search_hooks
(docs/API.md, Analyses)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from sors.analyses.hooks import HOOK_TYPES, HookType
from sors.catalog.records.analysis_schemas import Analysis, analysis_shape  # noqa: F401
from sors.catalog.records.fields import CategoryId, NonNegative, PlatformName, Query, Window, _Paged
from sors.catalog.records.schemas import _Page
from sors.jobs.schemas import JobError
from sors.kit.schemas import ResponseModel, Timestamp

# ---- analyses ------------------------------------------------------------------------------


class AnalysisResult(ResponseModel):
    jobRef: str
    status: Literal["pending", "processing", "completed", "failed"]
    postId: str
    analysis: Analysis | None = Field(description="Set once the job completed")
    error: JobError | None


# ---- hooks ---------------------------------------------------------------------------------


class HookSearchIn(_Paged):
    query: Query = Field(None, description="Words in the hook (all of them)")
    hookTypes: list[HookType] | None = Field(None, max_length=len(HOOK_TYPES))
    platforms: list[PlatformName] | None = Field(None, max_length=3)
    categoryId: CategoryId = None
    minOutlierScore: NonNegative = None
    timeFrame: Window | None = None
    sortBy: Literal["score", "recency"] | None = None


class HookCreator(ResponseModel):
    profileId: str
    platform: str
    handle: str
    displayName: str | None


class HookItem(ResponseModel):
    hookType: HookType
    text: str
    source: Literal["speech", "on_screen_text", "caption"] | None = Field(
        None, description="Where the hook's text came from (speech, on-screen text and "
        "caption reconciled)")
    postId: str
    url: str
    platform: str
    contentType: str
    publishedAt: Timestamp
    views: int | None
    outlierScore: float | None
    creator: HookCreator


class HookPage(_Page):
    results: list[HookItem]
