"""The job record of the contract, which is also the queue row (claimed with SKIP LOCKED)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, NotRequired, TypedDict

from sqlalchemy import CheckConstraint, Index, String, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from sors.kit.db import Base

# `webhook` jobs deliver events (sors.webhooks) and `vector_index` jobs build the index over
# all post vectors (catalog.vector_index); they belong to no account and GET /jobs never
# shows them.
JOB_TYPES = ("crawl", "refresh", "transcription", "media", "remix", "webhook", "analysis",
             "vector_index", "comments")
JOB_STATUSES = ("pending", "processing", "completed", "failed")
# Who asked for the job: an API call, a monitored profile's refresh, or the catalog keeper
# (the operator's own freshness crawls: no account, no charge, no ledger row).
JOB_ORIGINS = ("api", "monitoring", "catalog")


class Job(Base):
    __tablename__ = "jobs"
    __table_args__ = (
        CheckConstraint("status IN ('pending','processing','completed','failed')",
                        name="status_known"),
        CheckConstraint(
            "type IN ('crawl','refresh','transcription','media','remix','webhook','analysis',"
            "'vector_index','comments')",
            name="type_known",
        ),
        # At most one unfinished job per dedupe key (e.g. one pending crawl of a handle per
        # account): a repeat gets the same jobRef.
        Index("uq_jobs_dedupe_open", "dedupe_key", unique=True,
              postgresql_where=text(
                  "status IN ('pending','processing') AND dedupe_key IS NOT NULL")),
        CheckConstraint("origin IN ('api','monitoring','catalog')", name="origin_known"),
        # Claim order: every user's job before the keeper's, then oldest due first.
        Index("ix_jobs_claim", text("(origin = 'catalog')"), "run_after", "id",
              postgresql_where=text("status = 'pending'")),
        # Crawls of one profile, whoever asked: the keeper adds none while one is open, and a
        # crawl finds one that just fetched the same profile (crawling.exclusive).
        Index("ix_jobs_target", "target", postgresql_where=text("target IS NOT NULL")),
        Index("ix_jobs_stalled", "heartbeat_at", postgresql_where=text("status = 'processing'")),
        Index("ix_jobs_account", "account_id", "id"),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str | None] = mapped_column(String(64))
    type: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16), server_default=text("'pending'"))
    # The job's input and its result: JSON as the job's kind writes it (GET /jobs/{jobRef}
    # holds a result to its model); an error is {code, message}.
    payload: Mapped[dict[str, Any]] = mapped_column(JSONB, server_default=text("'{}'::jsonb"))
    result: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    error: Mapped[dict[str, str] | None] = mapped_column(JSONB)
    dedupe_key: Mapped[str | None] = mapped_column(String(300))
    origin: Mapped[str] = mapped_column(String(16), server_default=text("'api'"))
    # "platform:handle" for crawls and refreshes: the profile on the platform they fetch.
    target: Mapped[str | None] = mapped_column(String(120))
    credits_charged: Mapped[int] = mapped_column(server_default=text("0"))
    credits_refunded: Mapped[int] = mapped_column(server_default=text("0"))
    attempts: Mapped[int] = mapped_column(server_default=text("0"))
    max_attempts: Mapped[int] = mapped_column(server_default=text("4"))
    run_after: Mapped[datetime] = mapped_column(server_default=text("now()"))
    heartbeat_at: Mapped[datetime | None]
    worker_id: Mapped[str | None] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(server_default=text("now()"))
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]


class NewJob(TypedDict):
    """A job row to insert (`sors.queue.repository.insert_job`); the rest takes its default."""

    id: str
    account_id: str | None
    type: str
    payload: Mapping[str, object]
    credits_charged: int
    max_attempts: int
    dedupe_key: NotRequired[str | None]
    origin: NotRequired[str]
    target: NotRequired[str | None]
    created_at: NotRequired[datetime]
