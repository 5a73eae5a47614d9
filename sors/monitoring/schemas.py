"""Tracking request bodies and the tracking entry record (camelCase, docs/API.md)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from sors.catalog.models import Profile
from sors.catalog.responses import FlatPost
from sors.kit.clock import isoformat
from sors.kit.schemas import RequestModel, ResponseModel, Timestamp
from sors.monitoring.models import TrackedProfile

Frequency = Literal["daily", "every_3_days", "weekly"]
PlatformName = Literal["tiktok", "instagram", "youtube"]

MAX_UPDATES = 100
DEFAULT_UPDATES = 50


# "Supply one of": profileId, platform + handle (together), or url (if/then, not anyOf:
# client generators turn anyOf into an untyped body).
PROFILE_TARGET_RULE = {
    "if": {"not": {"anyOf": [{"required": ["profileId"]}, {"required": ["url"]}]}},
    "then": {"required": ["platform", "handle"]},
}


class ProfileTarget(RequestModel):
    """A profile named by one of: profileId, platform + handle, url (profile or post URL).
    Shared by tracking and alerts. Several given must name the same profile (else 422)."""

    model_config = ConfigDict(json_schema_extra=PROFILE_TARGET_RULE)

    profileId: Annotated[str | None, Field(min_length=1, max_length=64)] = None
    platform: PlatformName | None = None
    handle: Annotated[str | None, Field(min_length=1, max_length=100)] = None
    url: Annotated[str | None, Field(min_length=1, max_length=2048)] = None


class TrackIn(ProfileTarget):
    frequency: Frequency = "weekly"


class UntrackIn(RequestModel):
    profileId: Annotated[str, Field(min_length=1, max_length=64)]


class TrackingEntry(ResponseModel):
    profileId: str
    platform: PlatformName
    handle: str
    followerCount: int | None
    frequency: Frequency
    nextCrawlAt: Timestamp | None = Field(description="null while paused")
    lastCheckedAt: Timestamp | None
    pausedReason: Literal["insufficient_credits", "plan_limit"] | None
    startedBy: Literal["user", "alert"]
    createdAt: Timestamp


class TrackingList(ResponseModel):
    results: list[TrackingEntry]


class Untracked(ResponseModel):
    profileId: str
    status: Literal["untracked"]


class TrackedUpdates(ResponseModel):
    results: list[FlatPost] = Field(description="Oldest stored first")
    hasMore: bool


def clamp_limit(raw: int | None) -> int:
    if raw is None:
        return DEFAULT_UPDATES
    return max(1, min(MAX_UPDATES, raw))


def entry_record(entry: TrackedProfile, profile: Profile) -> dict[str, Any]:
    return {
        "profileId": profile.id,
        "platform": profile.platform,
        "handle": profile.handle,
        "followerCount": profile.follower_count,
        "frequency": entry.frequency,
        # A paused entry has no next refresh until credits arrive.
        "nextCrawlAt": None if entry.paused_reason else isoformat(entry.next_crawl_at),
        "lastCheckedAt": isoformat(profile.last_crawled_at),
        "pausedReason": entry.paused_reason,
        "startedBy": entry.started_by,
        "createdAt": isoformat(entry.created_at),
    }
