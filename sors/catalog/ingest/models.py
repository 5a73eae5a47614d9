"""The catalog keeper's bookkeeping: the crawls it queued, the creators discovery named and
how far each listing was read, and the data provider's paid runs (the keeper's budget)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Float, Index, String, text
from sqlalchemy.orm import Mapped, mapped_column

from sors.kit.db import Base


class KeeperCrawl(Base):
    """One row per crawl the catalog keeper queued, at the process clock's time: the
    budget's sliding hour and `sors catalog status` read it. Kept 7 days."""

    __tablename__ = "catalog_crawls"
    __table_args__ = (Index("ix_catalog_crawls_platform_at", "platform", "enqueued_at"),)

    job_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    platform: Mapped[str] = mapped_column(String(16))
    handle: Mapped[str] = mapped_column(String(64))
    profile_id: Mapped[str | None] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(16))  # refresh | discovery
    enqueued_at: Mapped[datetime]


class ProviderRun(Base):
    """One paid run at a data provider (an Apify actor run) and what it cost, whoever asked
    for it: the keeper stops at the operator's daily budget (`apify_daily_usd_budget`)."""

    __tablename__ = "provider_runs"
    __table_args__ = (Index("ix_provider_runs_provider_at", "provider", "started_at"),)

    run_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    provider: Mapped[str] = mapped_column(String(16))
    job_id: Mapped[str | None] = mapped_column(String(64))
    platform: Mapped[str] = mapped_column(String(16))
    handle: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16))
    items: Mapped[int]
    cost_usd: Mapped[float | None] = mapped_column(Float)
    started_at: Mapped[datetime]


class DiscoveredProfile(Base):
    """A creator a platform's discovery listing named, waiting for its budgeted first crawl."""

    __tablename__ = "catalog_candidates"
    __table_args__ = (
        Index("ix_catalog_candidates_waiting", "platform", "discovered_at",
              postgresql_where=text("job_id IS NULL")),
    )

    platform: Mapped[str] = mapped_column(String(16), primary_key=True)
    handle: Mapped[str] = mapped_column(String(64), primary_key=True)
    discovered_at: Mapped[datetime]
    position: Mapped[int] = mapped_column(server_default=text("0"))  # in that listing
    job_id: Mapped[str | None] = mapped_column(String(64))


class DiscoveryCursor(Base):
    """How far each platform's discovery listing has been read."""

    __tablename__ = "catalog_discovery"

    platform: Mapped[str] = mapped_column(String(16), primary_key=True)
    through_at: Mapped[datetime]
