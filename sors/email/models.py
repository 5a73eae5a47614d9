"""The outbox: one row per logical email, reserved before it is sent.

The unique `idempotency_key` is claimed with INSERT … ON CONFLICT DO NOTHING and committed
before the message leaves, so a crash between sending and recording can never send the same
logical email (e.g. one address's digest for one day) twice. The price of that guarantee is
at-most-once: a row left `reserved` by a crash is not retried.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import CheckConstraint, Index, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from sors.kit.db import Base


class OutboxEmail(Base):
    __tablename__ = "email_outbox"
    __table_args__ = (
        CheckConstraint("status IN ('reserved','sent','failed')", name="status_known"),
        Index("ix_email_outbox_account", "account_id", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    idempotency_key: Mapped[str] = mapped_column(String(400), unique=True)
    kind: Mapped[str] = mapped_column(String(32))
    to_address: Mapped[str] = mapped_column(String(320))
    account_id: Mapped[str | None] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), server_default=text("'reserved'"))
    # The ledger charge paid for this email, if any (refunded when delivery fails).
    charge_entry_id: Mapped[str | None] = mapped_column(String(64))
    message_id: Mapped[str | None] = mapped_column(Text)
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(server_default=text("now()"))
    sent_at: Mapped[datetime | None]
