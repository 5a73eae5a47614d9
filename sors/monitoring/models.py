"""Monitored profiles: one tracking entry per (account, profile).

An entry schedules refresh crawls at its cadence (each one paid by the account through the
key that saved the entry, within that key's daily cap), and keeps the account's cursor into
the profile's newly stored posts (the updates feed).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import CheckConstraint, ForeignKey, Index, String, text
from sqlalchemy.orm import Mapped, mapped_column

from sors.kit.db import Base

FREQUENCIES = ("daily", "every_3_days", "weekly")


class StartedBy(StrEnum):
    USER = "user"  # the account asked for it: its watchlist, kept whatever alerts do
    ALERT = "alert"  # an alert did, and it ends with the last active alert on the profile


class PausedReason(StrEnum):
    NO_CREDITS = "insufficient_credits"  # resumes when the balance covers a refresh again
    PLAN_LIMIT = "plan_limit"  # past the plan's watchlist limit; resumes after an upgrade
    SPEND_CAP = "spend_cap"  # its key's daily cap refused a refresh; resumes the next UTC day
    KEY_REVOKED = "key_revoked"  # its key was revoked; resumes when a live key saves it again


class TrackedProfile(Base):
    __tablename__ = "tracked_profiles"
    __table_args__ = (
        CheckConstraint("frequency IN ('daily','every_3_days','weekly')", name="frequency_known"),
        CheckConstraint("started_by IN ('user','alert')", name="started_by_known"),
        CheckConstraint(
            "paused_reason IS NULL OR paused_reason IN "
            "('insufficient_credits','plan_limit','spend_cap','key_revoked')",
            name="paused_known",
        ),
        # The scheduler's due scan: unpaused entries by next refresh time.
        Index(
            "ix_tracked_profiles_due",
            "next_crawl_at",
            postgresql_where=text("paused_reason IS NULL"),
        ),
        Index("ix_tracked_profiles_profile", "profile_id"),
    )

    account_id: Mapped[str] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id"), primary_key=True)
    frequency: Mapped[str] = mapped_column(String(16))
    started_by: Mapped[str] = mapped_column(String(8))
    next_crawl_at: Mapped[datetime]
    paused_reason: Mapped[str | None] = mapped_column(String(32))
    paused_at: Mapped[datetime | None]
    # Updates cursor: the (first_seen_at, id) of the last post handed out for this profile.
    cursor_seen_at: Mapped[datetime]
    cursor_post_id: Mapped[str] = mapped_column(String(64))
    last_job_id: Mapped[str | None] = mapped_column(String(64))
    # The API key whose daily cap the refreshes count against: the one that last saved the
    # entry (POST /tracking, or the alert that started it). None: entries saved before keys
    # were recorded, charged to the account with no key.
    key_id: Mapped[str | None] = mapped_column(ForeignKey("api_keys.id", ondelete="SET NULL"))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
