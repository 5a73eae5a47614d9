"""Tracking request bodies and the tracking entry record (camelCase, docs/API.md)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from sors.catalog.models import Profile
from sors.catalog.records.schemas import FlatPost
from sors.kit.clock import isoformat
from sors.kit.schemas import RequestModel, ResponseModel, Timestamp, one_of_sets, together
from sors.monitoring.models import TrackedProfile
from sors.platforms.handles import handle_rules_text, handle_schema_rule
from sors.platforms.urls import POST_URL_PATTERN, PROFILE_URL_PATTERN

Frequency = Literal["daily", "every_3_days", "weekly"]
PlatformName = Literal["tiktok", "instagram", "youtube"]

MAX_UPDATES = 100
DEFAULT_UPDATES = 50


# "Supply one of": profileId, url, or platform + handle (together), non-null.
PROFILE_TARGET_RULE = {"allOf": [
    one_of_sets(["profileId"], ["url"], ["platform", "handle"]),
    *together("platform", "handle"), handle_schema_rule(),
]}


class ProfileTarget(RequestModel):
    """A profile named by one of: profileId, platform + handle, url (profile or post URL).
    Shared by tracking and alerts. Several given must name the same profile (else 422)."""

    model_config = ConfigDict(json_schema_extra=PROFILE_TARGET_RULE)

    profileId: Annotated[str | None, Field(min_length=1, max_length=64)] = None
    platform: PlatformName | None = None
    handle: Annotated[str | None, Field(min_length=1, max_length=100,
                                        description=handle_rules_text())] = None
    url: Annotated[str | None, Field(
        min_length=1, max_length=2048,
        description="A TikTok, Instagram or YouTube profile URL, or a post URL (its owner). "
        "The pattern states the canonical forms; the parser also reads any letter case, "
        "profile tabs and a username before an Instagram post's code. Short links are 422 "
        "`short_link_not_supported`, any other URL 422 `unsupported_url`.",
        json_schema_extra={"pattern": f"{PROFILE_URL_PATTERN}|{POST_URL_PATTERN}"})] = None


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
    pausedReason: Literal["insufficient_credits", "plan_limit", "spend_cap", "key_revoked"] | None
    startedBy: Literal["user", "alert"]
    keyId: str | None = Field(
        description="The API key the refreshes are charged through, within its daily spend "
        "cap: the key that saved the entry last; null: charged with no key")
    createdAt: Timestamp

    @classmethod
    def of(cls, entry: TrackedProfile, profile: Profile) -> TrackingEntry:
        return cls(
            profileId=profile.id,
            platform=profile.platform,
            handle=profile.handle,
            followerCount=profile.follower_count,
            frequency=entry.frequency,
            # A paused entry has no next refresh until credits arrive.
            nextCrawlAt=None if entry.paused_reason else isoformat(entry.next_crawl_at),
            lastCheckedAt=isoformat(profile.last_crawled_at),
            pausedReason=entry.paused_reason,
            startedBy=entry.started_by,
            keyId=entry.key_id,
            createdAt=isoformat(entry.created_at),
        )


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
