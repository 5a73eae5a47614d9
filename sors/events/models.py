"""The outbox's tables: webhook endpoints (who wants which event), per-account settings, the
events, one delivery per (event, endpoint) and each delivery's attempts.

An event row is written in the same transaction as the change it announces (a job settling,
a ledger entry, an alert hit), together with one delivery row per subscribed endpoint and
the job that makes the first attempt: nothing is announced that did not commit, nothing that
committed is lost if a process dies.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ARRAY, CheckConstraint, ForeignKey, Index, String, Text, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from sors.kit.db import Base


class WebhookEndpoint(Base):
    __tablename__ = "webhook_endpoints"
    __table_args__ = (
        CheckConstraint(
            "disabled_reason IS NULL OR disabled_reason = 'delivery_failures'",
            name="disabled_reason_known",
        ),
        CheckConstraint("format IN ('standard','slack','discord')", name="format_known"),
        Index("ix_webhook_endpoints_account", "account_id", "id"),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    url: Mapped[str] = mapped_column(String(2048))
    description: Mapped[str | None] = mapped_column(String(500))
    events: Mapped[list[str]] = mapped_column(ARRAY(String(64)))
    enabled: Mapped[bool] = mapped_column(server_default=text("true"))
    # The body's shape: Standard Webhooks' envelope, or a Slack or Discord chat message.
    format: Mapped[str] = mapped_column(String(16), server_default=text("'standard'"))
    disabled_reason: Mapped[str | None] = mapped_column(String(32))
    disabled_at: Mapped[datetime | None]
    secret: Mapped[str] = mapped_column(String(100))
    # After a rotation the old secret keeps signing (next to the new one) until this time.
    previous_secret: Mapped[str | None] = mapped_column(String(100))
    previous_secret_expires_at: Mapped[datetime | None]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class WebhookSettings(Base):
    """Per-account webhook settings: the balance under which `credits.low` fires."""

    __tablename__ = "webhook_settings"
    __table_args__ = (CheckConstraint("credits_low_threshold >= 0", name="threshold_not_negative"),)

    account_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    credits_low_threshold: Mapped[int]
    updated_at: Mapped[datetime]


class WebhookEvent(Base):
    __tablename__ = "webhook_events"
    __table_args__ = (Index("ix_webhook_events_account", "account_id", "id"),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    type: Mapped[str] = mapped_column(String(64))
    # The event's time on the service clock (simulated time in simulation).
    occurred_at: Mapped[datetime]
    data: Mapped[dict[str, Any]] = mapped_column(JSONB)
    created_at: Mapped[datetime] = mapped_column(server_default=text("now()"))


class WebhookDelivery(Base):
    """One event to one endpoint. `pending` until an attempt succeeds or the retry schedule
    runs out (`failed`); `next_attempt_at` is on the service clock."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        CheckConstraint("status IN ('pending','succeeded','failed')", name="status_known"),
        Index("uq_webhook_deliveries_event_endpoint", "event_id", "endpoint_id", unique=True),
        Index("ix_webhook_deliveries_endpoint", "endpoint_id", "id"),
        Index(
            "ix_webhook_deliveries_due", "next_attempt_at",
            postgresql_where=text("status = 'pending'"),
        ),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    event_id: Mapped[str] = mapped_column(ForeignKey("webhook_events.id", ondelete="CASCADE"))
    endpoint_id: Mapped[str] = mapped_column(
        ForeignKey("webhook_endpoints.id", ondelete="CASCADE")
    )
    status: Mapped[str] = mapped_column(String(16), server_default=text("'pending'"))
    attempts: Mapped[int] = mapped_column(server_default=text("0"))
    # A retry asked for by the owner: one attempt, outside the automatic schedule.
    manual: Mapped[bool] = mapped_column(server_default=text("false"))
    next_attempt_at: Mapped[datetime | None]
    last_attempt_at: Mapped[datetime | None]
    response_status: Mapped[int | None]
    duration_ms: Mapped[int | None]
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]


class WebhookAttempt(Base):
    __tablename__ = "webhook_attempts"
    __table_args__ = (Index("ix_webhook_attempts_delivery", "delivery_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=True)
    delivery_id: Mapped[str] = mapped_column(
        ForeignKey("webhook_deliveries.id", ondelete="CASCADE")
    )
    attempted_at: Mapped[datetime]
    response_status: Mapped[int | None]
    duration_ms: Mapped[int]
    error: Mapped[str | None] = mapped_column(Text)
