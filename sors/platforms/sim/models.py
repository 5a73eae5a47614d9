"""The simulated world's shared state: its clock and its planned demo world (one row each), so
every process agrees."""

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


class SimBuild(Base):
    """The demo's planned world and how much of it is in the catalog (one row): the first
    `profiles` handles of world `seed`, each crawled as seen at `at` and before it
    (sors.demo.worldbuild). Wall-clock start and finish: it is about the machine's work."""

    __tablename__ = "sim_build"

    key: Mapped[str] = mapped_column(String(32), primary_key=True)
    seed: Mapped[int]
    profiles: Mapped[int]
    at: Mapped[datetime]
    ready: Mapped[int]
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]
