"""Enrichment response models: the transcript and visual-analysis records nested in a post
(snake_case, docs/API.md) and the bodies of request_transcript / download_post_media
(camelCase, docs/API.md). Re-exported by `sors.enrichment.schemas`."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from sors.kit.schemas import ResponseModel, Timestamp


class TranscriptSegment(ResponseModel):
    start: float
    end: float
    text: str


class TranscriptOut(ResponseModel):
    text: str
    language: str | None = Field(description="ISO 639-1; null when unknown (OCR)")
    source: Literal["speech", "on_screen_text"]
    segments: list[TranscriptSegment]
    created_at: Timestamp | None


class Scene(ResponseModel):
    index: int
    start: float
    end: float
    on_screen_text: str | None
    dominant_colors: list[str] = Field(description='"#rrggbb", most frequent first')


class VisualAnalysisOut(ResponseModel):
    scene_count: int
    avg_scene_seconds: float | None
    scenes: list[Scene]
    on_screen_text: str | None
    created_at: Timestamp | None


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
    kind: Literal["video", "image", "thumbnail"]
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
