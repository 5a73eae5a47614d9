"""Enrichment response models: the bodies of request_transcript / download_post_media
(camelCase, docs/API.md); the transcript and visual-analysis records nested in a post are
the catalog's (`catalog.responses`). Re-exported by `sors.enrichment.schemas`."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field

from sors.enrichment.models import MediaKind
from sors.kit.schemas import ResponseModel, Timestamp


class JobState(StrEnum):
    """Where a queued job is (the `status` its poll shows)."""

    PENDING = "pending"
    PROCESSING = "processing"
    COMPLETED = "completed"
    FAILED = "failed"


class TranscriptCompleted(ResponseModel):
    status: Literal["completed"]
    postId: str
    jobRef: None = Field(description="Always null: the transcript exists (charged 0)")


class JobQueued(ResponseModel):
    """A job was queued (or this account's open one is returned): poll GET /jobs/{jobRef}."""

    status: Literal["pending"]
    jobRef: str
    postId: str


class MediaItem(ResponseModel):
    kind: MediaKind
    url: str = Field(description="Signed, expiring link (no key needed)")
    position: int
    contentType: str
    width: int | None
    height: int | None
    durationSeconds: float | None


class MediaReady(ResponseModel):
    status: Literal["ready"]
    postId: str
    media: list[MediaItem]
    expiresAt: Timestamp
