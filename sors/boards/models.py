"""Boards: named collections of posts and profiles an account keeps, each item with a note,
and the board's read-only share link (its signed token; revoking clears it)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, ForeignKey, Index, String, Text, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from sors.kit.db import Base


class Board(Base):
    __tablename__ = "boards"
    __table_args__ = (Index("ix_boards_account", "account_id", "id"),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(100))
    # The live share link's token (None: not shared). A link is valid only while its token
    # is the one stored here, so revoking (or sharing anew) kills every earlier link.
    share_token: Mapped[str | None] = mapped_column(String(255))
    shared_at: Mapped[datetime | None]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class BoardItem(Base):
    """A post or a profile on a board; each at most once per board (the partial unique
    indexes), so saving it again finds the item already there. The board shows the record
    kept in `snapshot` (the post's or profile's record when it was saved), never a live read
    of the catalog: a board and its share link are free, a current record costs a credit."""

    __tablename__ = "board_items"
    __table_args__ = (
        CheckConstraint("(post_id IS NULL) <> (profile_id IS NULL)", name="one_target"),
        Index("uq_board_items_post", "board_id", "post_id", unique=True,
              postgresql_where=text("post_id IS NOT NULL")),
        Index("uq_board_items_profile", "board_id", "profile_id", unique=True,
              postgresql_where=text("profile_id IS NOT NULL")),
        Index("ix_board_items_board", "board_id", "id"),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    board_id: Mapped[str] = mapped_column(ForeignKey("boards.id", ondelete="CASCADE"))
    post_id: Mapped[str | None] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"))
    profile_id: Mapped[str | None] = mapped_column(
        ForeignKey("profiles.id", ondelete="CASCADE")
    )
    note: Mapped[str | None] = mapped_column(Text)
    # The record as the catalog showed it at `saved_at` (JSON of FlatPost / ProfileRecord).
    # Null only for items saved before snapshots were kept, until their first read.
    snapshot: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    saved_at: Mapped[datetime | None]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
