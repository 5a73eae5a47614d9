"""What a crawl job answers (its `result`, shown by GET /api/v1/jobs/{jobRef})."""

from __future__ import annotations

from enum import StrEnum
from typing import NotRequired, TypedDict


class Skipped(StrEnum):
    """Why a keeper crawl completed without fetching."""

    PROFILE_BUSY = "profile_busy"  # another crawl of the profile held its lock
    PROFILE_NOT_FOUND = "profile_not_found"  # the profile is gone: deactivated


class CrawlJobResult(TypedDict):
    profileId: str | None
    postsSeen: int
    newPosts: int
    source: NotRequired[str | None]  # sim, web, api, apify
    sourceCostUsd: NotRequired[float | None]
    skipped: NotRequired[Skipped]
    coalesced: NotRequired[bool]  # a keeper crawl answered by another crawl's fetch
