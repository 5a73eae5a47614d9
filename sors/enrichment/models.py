"""What enrichment stores beside the catalog: a post's media files and the free media calls an
account has used (the transcripts and visual analyses it makes are the catalog's records of
a post: `catalog.models`).

Media rows point at files in the media store (local directory or S3 bucket) by key; the
store, not the database, holds the bytes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from sqlalchemy import Float, ForeignKey, Index, String
from sqlalchemy import text as sql
from sqlalchemy.orm import Mapped, mapped_column

from sors.kit.db import Base

MediaKind = Literal["video", "image", "thumbnail"]


class PostMedia(Base):
    """One stored media file of a post (a video, a slide image, a thumbnail)."""

    __tablename__ = "post_media"

    post_id: Mapped[str] = mapped_column(
        ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[MediaKind] = mapped_column(String(16), primary_key=True)
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
