"""The simulated world's shared state: its clock (one row), so every process agrees."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from sors.kit.db import Base


class SimState(Base):
    __tablename__ = "sim_state"

    key: Mapped[str] = mapped_column(String(32), primary_key=True)
    now: Mapped[datetime]
    seed: Mapped[int]
