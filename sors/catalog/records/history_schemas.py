"""The response models of GET /posts/{postId}/history (the shapes `catalog.growth` makes)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from sors.kit.schemas import ResponseModel


class _Out(ResponseModel):
    pass


class SnapshotOut(_Out):
    crawledAt: str
    ageHours: float | None
    views: int | None
    likes: int | None
    comments: int | None
    shares: int | None
    viewsPerHour: float | None = Field(description="Views per hour since the previous snapshot.")


class MilestoneOut(_Out):
    age: Literal["1h", "24h", "7d"]
    ageHours: float
    views: float | None = Field(
        description="Views at this age: a snapshot's, or read off the line between the two real "
        "snapshots around it (from publication only when the first snapshot came within 6 h "
        "of it). Null otherwise, with `reason`.")
    interpolated: bool | None
    reason: Literal[
        "not_reached", "no_snapshots", "first_snapshot_too_late", "no_snapshot_since"
    ] | None = Field(description="Why `views` is null (null when it is not)")


class ChangeOut(_Out):
    field: Literal["caption", "thumbnail"] = Field(
        description="What changed: the caption (a YouTube title is its caption) or the "
        "thumbnail (`before` and `after` are then the images' perceptual hashes)")
    changedAt: str = Field(description="The crawl that first saw the new version")
    before: str | None
    after: str | None
    viewsPerHourBefore: float | None = Field(
        description="Views per hour over the last interval the old version had alone")
    viewsPerHourAfter: float | None = Field(
        description="Views per hour from the crawl that saw the change to the next one (null "
        "until there is one)")


class PostHistoryOut(_Out):
    postId: str
    publishedAt: str
    ageHours: float | None
    snapshotCount: int
    viewsPerHour24h: float | None
    snapshots: list[SnapshotOut]
    milestones: list[MilestoneOut]
    changes: list[ChangeOut] = Field(
        description="Caption/title rewrites crawls saw, oldest first, with the views per hour "
        "before and after each")
