"""Remix requests and their results, one row per remix job."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, Text, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from sors.kit.db import Base


class RemixRecord(Base):
    """Written when the remix is requested (so its parameters can be shown while the job is
    pending); `remix` and `engine` are filled when the job completes."""

    __tablename__ = "remixes"
    __table_args__ = (Index("ix_remixes_post", "post_id"),)

    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True)
    post_id: Mapped[str] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"))
    target_niche: Mapped[str] = mapped_column(Text)
    tone: Mapped[str | None] = mapped_column(String(100))
    remix: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    engine: Mapped[str | None] = mapped_column(String(300))
    created_at: Mapped[datetime] = mapped_column(server_default=text("now()"))
    completed_at: Mapped[datetime | None]
