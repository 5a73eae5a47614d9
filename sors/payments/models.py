"""Checkout sessions (top-up and keyless payment links) and received payment events.

Credits for a session are granted at most once: the session row is locked while it is
completed, and the ledger's unique `external_ref` ("checkout:<id>") refuses a second grant
whatever races. Provider events are deduplicated by their id (primary key).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, Index, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from sors.kit.db import Base


class CheckoutSession(Base):
    __tablename__ = "checkout_sessions"
    __table_args__ = (
        CheckConstraint("status IN ('open','completed','expired')", name="status_known"),
        CheckConstraint("provider IN ('local','stripe')", name="provider_known"),
        # The top-up link rate limit counts an account's sessions of the last hour.
        Index("ix_checkout_sessions_account", "account_id", "created_at"),
        Index("ix_checkout_sessions_provider_session", "provider_session_id"),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    # None: keyless checkout; the account is created when the payment completes.
    account_id: Mapped[str | None] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    pack_id: Mapped[str] = mapped_column(String(32))
    credits: Mapped[int]
    price_cents: Mapped[int]
    email: Mapped[str | None] = mapped_column(String(320))
    provider: Mapped[str] = mapped_column(String(16))
    provider_session_id: Mapped[str | None] = mapped_column(String(255))
    checkout_url: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), server_default=text("'open'"))
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    completed_at: Mapped[datetime | None]
    # Keyless: the account made for the buyer, and when its key was shown (at most once).
    fulfilled_account_id: Mapped[str | None] = mapped_column(String(64))
    key_revealed_at: Mapped[datetime | None]


class PaymentEvent(Base):
    """Every provider event we acted on, by the provider's event id: a replay is a no-op."""

    __tablename__ = "payment_events"

    event_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    provider: Mapped[str] = mapped_column(String(16))
    event_type: Mapped[str] = mapped_column(String(100))
    session_id: Mapped[str | None] = mapped_column(String(64))
    received_at: Mapped[datetime] = mapped_column(server_default=text("now()"))
