from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, Index, String, text
from sqlalchemy.orm import Mapped, mapped_column

from sors.kit.db import Base

LEDGER_KINDS = ("charge", "refund", "topup", "grant", "adjustment")


class LedgerEntry(Base):
    """Append-only: rows are inserted, never updated or deleted."""

    __tablename__ = "ledger_entries"
    __table_args__ = (
        CheckConstraint(
            "kind IN ('charge','refund','topup','grant','adjustment')", name="kind_known"
        ),
        CheckConstraint("(kind = 'charge') = (delta < 0)", name="charge_sign"),
        CheckConstraint("balance_after >= 0", name="balance_after_not_negative"),
        Index("ix_ledger_account_id", "account_id", "id"),
        Index("ix_ledger_job_ref", "job_ref", postgresql_where=text("job_ref IS NOT NULL")),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16))
    delta: Mapped[int]
    balance_after: Mapped[int]
    reason: Mapped[str | None] = mapped_column(String(500))
    skill: Mapped[str | None] = mapped_column(String(64))
    request_id: Mapped[str | None] = mapped_column(String(128))
    job_ref: Mapped[str | None] = mapped_column(String(64))
    # The key a charge was made through (so its member, when the key is a member's).
    key_id: Mapped[str | None] = mapped_column(String(64))
    # A refund names the charge it returns; the unique index makes a second refund of the
    # same charge impossible, whatever races.
    refund_of: Mapped[str | None] = mapped_column(ForeignKey("ledger_entries.id"), unique=True)
    # Exactly-once credit for external events (a checkout session, a grant request).
    external_ref: Mapped[str | None] = mapped_column(String(200), unique=True)
    created_at: Mapped[datetime] = mapped_column(server_default=text("now()"))


@dataclass(frozen=True)
class ChargeRequest:
    """One charge: who pays (the account, through which key), how much, and for what.

    `read_only`: the caller's transaction writes nothing but this charge (a paid read). It
    then commits asynchronously (no wait for the WAL flush, which on a busy disk costs more
    than the whole read). Atomicity and order are unchanged — the balance still equals the
    ledger, nothing goes below zero — only a database crash within the last fraction of a
    second can forget such a charge, together with nothing else: the caller got a read free.
    Anything that creates work (jobs, tracking) commits durably.
    """

    account_id: str
    amount: int
    skill: str
    at: datetime  # when: the ledger row's time and the UTC day a key's cap counts in
    reason: str | None = None
    request_id: str | None = None
    job_ref: str | None = None
    key_id: str | None = None
    read_only: bool = False
