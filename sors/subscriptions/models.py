"""Subscriptions: one per account, the checkouts that start them, and every invoice that
was paid (or waived by a trial).

An invoice grants credits at most once: its row is unique by (provider, invoice id) and its
ledger grant by `external_ref` "invoice:<provider>:<invoice id>", whatever order or how many
times the provider's events arrive.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import CheckConstraint, ForeignKey, Index, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from sors.kit.db import Base

STATUSES = ("trialing", "active", "past_due", "canceled")
INTERVALS = ("month", "year")


class Subscription(Base):
    __tablename__ = "subscriptions"
    __table_args__ = (
        CheckConstraint(
            "status IN ('trialing','active','past_due','canceled')", name="status_known"
        ),
        CheckConstraint("interval IN ('month','year')", name="interval_known"),
        CheckConstraint("provider IN ('local','stripe')", name="provider_known"),
        # The local provider's renewals: what is due.
        Index(
            "ix_subscriptions_due",
            "current_period_end",
            postgresql_where=text("provider = 'local' AND status <> 'canceled'"),
        ),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), unique=True
    )
    provider: Mapped[str] = mapped_column(String(16))
    provider_subscription_id: Mapped[str | None] = mapped_column(String(255), unique=True)
    provider_customer_id: Mapped[str | None] = mapped_column(String(255))
    plan_id: Mapped[str] = mapped_column(String(32))
    interval: Mapped[str] = mapped_column(String(8))
    status: Mapped[str] = mapped_column(String(16))
    cancel_at_period_end: Mapped[bool] = mapped_column(server_default=text("false"))
    current_period_start: Mapped[datetime | None]
    current_period_end: Mapped[datetime | None]
    trial_end: Mapped[datetime | None]
    # Credits granted by the invoices of the current period (a plan change grants the
    # difference to what the new plan gives for the period).
    period_credits: Mapped[int] = mapped_column(server_default=text("0"))
    # One free trial per account, ever.
    trial_used: Mapped[bool] = mapped_column(server_default=text("false"))
    # The creation time of the last provider event applied: an older one arriving late
    # changes nothing.
    provider_event_at: Mapped[datetime | None]
    # Notices sent once: the trial ending (for this trial end), a failed payment (for this
    # period end).
    trial_notice_sent_for: Mapped[datetime | None]
    payment_notice_sent_for: Mapped[datetime | None]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    canceled_at: Mapped[datetime | None]


class SubscriptionCheckout(Base):
    __tablename__ = "subscription_checkouts"
    __table_args__ = (
        CheckConstraint("status IN ('open','completed','expired')", name="status_known"),
        CheckConstraint("interval IN ('month','year')", name="interval_known"),
        CheckConstraint("provider IN ('local','stripe')", name="provider_known"),
        Index("ix_subscription_checkouts_account", "account_id", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    plan_id: Mapped[str] = mapped_column(String(32))
    interval: Mapped[str] = mapped_column(String(8))
    trial_days: Mapped[int]
    price_cents: Mapped[int]
    provider: Mapped[str] = mapped_column(String(16))
    provider_session_id: Mapped[str | None] = mapped_column(String(255))
    checkout_url: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), server_default=text("'open'"))
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    completed_at: Mapped[datetime | None]


class SubscriptionInvoice(Base):
    __tablename__ = "subscription_invoices"
    __table_args__ = (
        UniqueConstraint("provider", "invoice_id", name="uq_subscription_invoices_invoice"),
        Index("ix_subscription_invoices_account", "account_id", "paid_at"),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    provider: Mapped[str] = mapped_column(String(16))
    invoice_id: Mapped[str] = mapped_column(String(255))
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    subscription_id: Mapped[str] = mapped_column(ForeignKey("subscriptions.id"))
    plan_id: Mapped[str] = mapped_column(String(32))
    interval: Mapped[str] = mapped_column(String(8))
    amount_cents: Mapped[int]
    credits: Mapped[int]
    billing_reason: Mapped[str | None] = mapped_column(String(64))
    period_start: Mapped[datetime | None]
    period_end: Mapped[datetime | None]
    paid_at: Mapped[datetime]


class PlanLimitCheck(Base):
    """One row per UTC day the limits earned by spend were re-checked: the daily check runs
    once, whichever scheduler gets there first."""

    __tablename__ = "plan_limit_checks"

    day: Mapped[date] = mapped_column(primary_key=True)
    checked_at: Mapped[datetime]
