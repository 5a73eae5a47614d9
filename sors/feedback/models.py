from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from sors.kit.db import Base


class Feedback(Base):
    __tablename__ = "feedback"
    __table_args__ = (Index("ix_feedback_status", "status", "id"),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    message: Mapped[str] = mapped_column(Text)
    skill: Mapped[str | None] = mapped_column(String(64))
    wants_update: Mapped[bool] = mapped_column(server_default=text("false"))
    status: Mapped[str] = mapped_column(String(16), server_default=text("'received'"))
    request_id: Mapped[str | None] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(server_default=text("now()"))
    resolved_at: Mapped[datetime | None]
    resolution_note: Mapped[str | None] = mapped_column(Text)
