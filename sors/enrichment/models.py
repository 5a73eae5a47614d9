"""What enrichment stores about a post: its transcript, its visual analysis, its media files,
and the free media calls an account has used.

One transcript and one visual analysis per post (whoever asked first paid for it; everyone
reads it). Media rows point at files in the media store (local directory or S3 bucket) by
key; the store, not the database, holds the bytes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Float, ForeignKey, Index, String, Text
from sqlalchemy import text as sql
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from sors.kit.db import Base


class TranscriptRecord(Base):
    __tablename__ = "transcripts"

    post_id: Mapped[str] = mapped_column(
        ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True
    )
    text: Mapped[str] = mapped_column(Text)
    language: Mapped[str | None] = mapped_column(String(16))
    source: Mapped[str] = mapped_column(String(20))  # "speech" | "on_screen_text"
    segments: Mapped[list[dict[str, Any]]] = mapped_column(JSONB, server_default=sql("'[]'::jsonb"))
    # Which speech model (or "ocr") produced it, for operators comparing models.
    engine: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(server_default=sql("now()"))


class VisualAnalysisRecord(Base):
    __tablename__ = "visual_analyses"

    post_id: Mapped[str] = mapped_column(
        ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True
    )
    scene_count: Mapped[int]
    avg_scene_seconds: Mapped[float | None] = mapped_column(Float)
    scenes: Mapped[list[dict[str, Any]]] = mapped_column(JSONB, server_default=sql("'[]'::jsonb"))
    on_screen_text: Mapped[str] = mapped_column(Text, server_default=sql("''"))
    created_at: Mapped[datetime] = mapped_column(server_default=sql("now()"))


class PostMedia(Base):
    """One stored media file of a post (a video, a slide image, a thumbnail)."""

    __tablename__ = "post_media"

    post_id: Mapped[str] = mapped_column(
        ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)  # video | image | thumbnail
    position: Mapped[int] = mapped_column(primary_key=True)
    store: Mapped[str] = mapped_column(String(16))  # "local" | "s3": where `storage_key` lives
    storage_key: Mapped[str] = mapped_column(String(500))
    content_type: Mapped[str] = mapped_column(String(100))
    size_bytes: Mapped[int | None]
    width: Mapped[int | None]
    height: Mapped[int | None]
    duration_seconds: Mapped[float | None] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(server_default=sql("now()"))


class MediaGrant(Base):
    """A completed media job's one free follow-up call (download_post_media).

    The account that paid for a media job gets its next call for that post within 24 hours
    of the job finishing at no charge. The row is written when that call uses the grant, and
    its primary key (the job) makes a second free call for the same job impossible, even
    under concurrent requests.
    """

    __tablename__ = "media_grants"
    __table_args__ = (Index("ix_media_grants_account_post", "account_id", "post_id"),)

    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True)
    account_id: Mapped[str] = mapped_column(String(64))
    post_id: Mapped[str] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"))
    request_id: Mapped[str | None] = mapped_column(String(128))
    used_at: Mapped[datetime] = mapped_column(server_default=sql("now()"))
