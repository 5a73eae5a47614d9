from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import CheckConstraint, ForeignKey, Index, String, text
from sqlalchemy.orm import Mapped, mapped_column

from sors.kit.db import Base


class Account(Base):
    __tablename__ = "accounts"
    __table_args__ = (CheckConstraint("balance >= 0", name="balance_not_negative"),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    email: Mapped[str | None] = mapped_column(String(320))
    # Kept equal to the sum of the account's ledger entries by billing.service, always
    # updated in the same transaction as the entry.
    balance: Mapped[int] = mapped_column(server_default=text("0"))
    created_at: Mapped[datetime] = mapped_column(server_default=text("now()"))
    # The self-hoster's own account: sees the service's operating status (its data sources
    # and what they cost). Granted only from the command line (`sors accounts create
    # --operator`, the demo's account).
    is_operator: Mapped[bool] = mapped_column(server_default=text("false"))


MEMBER_ROLES = ("owner", "member", "viewer")


class Member(Base):
    """A person of an account's workspace, invited by email. The account's own first keys
    belong to no member: their holder is the owner. `member` uses the API and console on the
    shared balance with its own keys; `viewer` reads only (no paid calls, no changes)."""

    __tablename__ = "members"
    __table_args__ = (
        CheckConstraint("role IN ('owner','member','viewer')", name="role_known"),
        CheckConstraint("status IN ('invited','active','removed')", name="status_known"),
        # One live membership per address and account.
        Index(
            "uq_members_account_email_live",
            "account_id",
            "email",
            unique=True,
            postgresql_where=text("status <> 'removed'"),
        ),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    email: Mapped[str] = mapped_column(String(320))
    role: Mapped[str] = mapped_column(String(8))
    status: Mapped[str] = mapped_column(String(8))
    invited_at: Mapped[datetime]
    accepted_at: Mapped[datetime | None]
    removed_at: Mapped[datetime | None]


class ApiKey(Base):
    __tablename__ = "api_keys"
    __table_args__ = (
        Index("ix_api_keys_account", "account_id"),
        CheckConstraint("daily_credit_cap >= 0", name="cap_not_negative"),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(32))
    name: Mapped[str | None] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(server_default=text("now()"))
    revoked_at: Mapped[datetime | None]
    last_used_at: Mapped[datetime | None]
    # Credits this key may spend per UTC day (service clock); None = no cap.
    daily_credit_cap: Mapped[int | None]
    # The member whose key this is; None: the account owner's.
    member_id: Mapped[str | None] = mapped_column(ForeignKey("members.id"))


class ApiKeySpend(Base):
    """Credits charged through a capped key on one UTC day. Written only by the guarded
    charge statement (billing.repository), which refuses to pass the key's cap."""

    __tablename__ = "api_key_spend"
    __table_args__ = (CheckConstraint("spent >= 0", name="spent_not_negative"),)

    key_id: Mapped[str] = mapped_column(
        ForeignKey("api_keys.id", ondelete="CASCADE"), primary_key=True
    )
    day: Mapped[date] = mapped_column(primary_key=True)
    spent: Mapped[int]
