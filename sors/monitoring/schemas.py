"""Tracking request bodies and the tracking entry record (camelCase, CONTRACT §3)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from sors.catalog.models import Profile
from sors.kit.clock import isoformat
from sors.kit.schemas import RequestModel
from sors.monitoring.models import TrackedProfile

Frequency = Literal["daily", "every_3_days", "weekly"]
PlatformName = Literal["tiktok", "instagram", "youtube"]

MAX_UPDATES = 100
DEFAULT_UPDATES = 50


class ProfileTarget(RequestModel):
    """A profile named by one of: profileId, platform + handle, url (profile or post URL).
    Shared by tracking and alerts."""

    profileId: Annotated[str | None, Field(min_length=1, max_length=64)] = None
    platform: PlatformName | None = None
    handle: Annotated[str | None, Field(min_length=1, max_length=100)] = None
    url: Annotated[str | None, Field(min_length=1, max_length=2048)] = None


class TrackIn(ProfileTarget):
    frequency: Frequency = "weekly"


class UntrackIn(RequestModel):
    profileId: Annotated[str, Field(min_length=1, max_length=64)]


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
