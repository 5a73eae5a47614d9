"""Shared request pacing: one row per platform (or API), so every worker process on every
machine reserves its request slots from the same schedule (platforms/shared_pacing.py)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String, text
from sqlalchemy.orm import Mapped, mapped_column

from sors.kit.db import Base


class PacingSlot(Base):
    __tablename__ = "platform_pacing"

    key: Mapped[str] = mapped_column(String(32), primary_key=True)
    next_slot: Mapped[datetime] = mapped_column(server_default=text("now()"))
    blocked_until: Mapped[datetime] = mapped_column(server_default=text("now()"))
    strikes: Mapped[int] = mapped_column(server_default=text("0"))
