"""Viral alerts, their destination addresses, and the posts that hit them."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import CheckConstraint, Float, ForeignKey, Index, String, text
from sqlalchemy.orm import Mapped, mapped_column

from sors.kit.db import Base


class EndReason(StrEnum):
    EMAILS_EXHAUSTED = "emails_exhausted"  # its third digest went out
    EXPIRED = "expired"
    STOPPED = "stopped"  # by the stop link of an email
    DELETED = "deleted"  # by DELETE /api/v1/alerts/{alertId}


class AlertAddress(Base):
    """One destination address of one account: its confirmation, and its digest state
    (digests go out per account and address, at most one per 24 hours)."""

    __tablename__ = "alert_addresses"

    account_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    email: Mapped[str] = mapped_column(String(320), primary_key=True)
    confirmed_at: Mapped[datetime | None]
    confirmation_sent_at: Mapped[datetime | None]
    # When the confirmation email should be (re)tried; None once sent or confirmed.
    next_confirmation_at: Mapped[datetime | None]
    last_digest_at: Mapped[datetime | None]
    digest_retry_at: Mapped[datetime | None]
    created_at: Mapped[datetime]


class Alert(Base):
    __tablename__ = "alerts"
    __table_args__ = (
        CheckConstraint("status IN ('active','ended')", name="status_known"),
        CheckConstraint(
            "ended_reason IS NULL OR ended_reason IN "
            "('emails_exhausted','expired','stopped','deleted')",
            name="ended_reason_known",
        ),
        CheckConstraint("(status = 'ended') = (ended_reason IS NOT NULL)", name="ended_has_reason"),
        # Same account + profile + address while active: one alert, updated in place.
        Index(
            "uq_alerts_active_target",
            "account_id",
            "profile_id",
            "email",
            unique=True,
            postgresql_where=text("status = 'active'"),
        ),
        Index("ix_alerts_account", "account_id", "id"),
        Index("ix_alerts_active_profile", "profile_id", postgresql_where=text("status = 'active'")),
        Index("ix_alerts_active_expiry", "expires_at", postgresql_where=text("status = 'active'")),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id"))
    email: Mapped[str] = mapped_column(String(320))
    # "score" (the seed's) or "rising": a young post above its creator's curve (catalog.rising)
    trigger: Mapped[str] = mapped_column(String(8), server_default=text("'score'"))
    min_outlier_score: Mapped[float] = mapped_column(Float)
    score_window: Mapped[str] = mapped_column(String(16))
    post_age_days: Mapped[int]
    expires_in_days: Mapped[int]
    send_hour: Mapped[int]
    timezone: Mapped[str] = mapped_column(String(64))
    frequency: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(8), server_default=text("'active'"))
    ended_reason: Mapped[str | None] = mapped_column(String(20))
    ended_at: Mapped[datetime | None]
    expires_at: Mapped[datetime]
    emails_sent: Mapped[int] = mapped_column(server_default=text("0"))
    started_tracking: Mapped[bool] = mapped_column(server_default=text("false"))
    # The API key whose daily cap the digests count against: the one that last saved the
    # alert. None: alerts saved before keys were recorded, charged with no key.
    key_id: Mapped[str | None] = mapped_column(ForeignKey("api_keys.id", ondelete="SET NULL"))
    # The profile crawl time detection has run up to: a later crawl makes it due again.
    detected_through: Mapped[datetime | None]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class AlertHit(Base):
    """A post that reached an alert's threshold. The primary key makes a post hit a given
    alert once, ever; `digest_id` (the outbox email) is set when it goes out."""

    __tablename__ = "alert_hits"
    __table_args__ = (
        Index("ix_alert_hits_pending", "alert_id", postgresql_where=text("digest_id IS NULL")),
        Index("ix_alert_hits_digest", "digest_id"),
    )

    alert_id: Mapped[str] = mapped_column(
        ForeignKey("alerts.id", ondelete="CASCADE"), primary_key=True
    )
    post_id: Mapped[str] = mapped_column(
        ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True
    )
    detected_at: Mapped[datetime]
    score: Mapped[float | None] = mapped_column(Float)
    views: Mapped[int | None]
    digest_id: Mapped[str | None] = mapped_column(String(64))
