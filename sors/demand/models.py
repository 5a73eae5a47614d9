"""Comments on posts, typed as demand, and the vectors of their texts.

A comment keeps its text, its author's public handle and nothing else about the person. Its
`kind` is what it asks for (question, request, part_two, confusion, objection, praise,
other; `demand.classify`), `noise` sets spam and emoji-only comments apart. Vectors are kept
once per distinct text and model (`comment_vectors`): the same words ("part 2 please!")
written under many posts are embedded once, and a clustering reads each text once.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, Index, LargeBinary, String, Text
from sqlalchemy import text as sql  # beside a column named `text`
from sqlalchemy.orm import Mapped, mapped_column

from sors.kit.db import Base

KINDS = ("question", "request", "part_two", "confusion", "objection", "praise", "other")
NOISE = ("spam", "emoji_only")
# What demand search reads by default: what the audience asks for.
DEMAND_KINDS = ("question", "request", "part_two", "confusion")


class Comment(Base):
    __tablename__ = "comments"
    __table_args__ = (
        CheckConstraint(
            "kind IN ('question','request','part_two','confusion','objection','praise','other')",
            name="kind_known"),
        CheckConstraint("noise IS NULL OR noise IN ('spam','emoji_only')", name="noise_known"),
        # One row per comment of a platform: a second import or fetch updates it in place.
        Index("uq_comments_platform_id", "platform", "platform_comment_id", unique=True),
        Index("ix_comments_post", "post_id"),
        # Demand search reads a scope's asking comments by creator (a niche is its creators).
        Index("ix_comments_demand_profile", "profile_id", "published_at",
              postgresql_where=sql("noise IS NULL AND kind <> 'other'")),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    post_id: Mapped[str] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"))
    # The post's creator, copied from the post: scopes (a niche, a creator) select by it.
    profile_id: Mapped[str] = mapped_column(String(64))
    platform: Mapped[str] = mapped_column(String(16))
    platform_comment_id: Mapped[str] = mapped_column(String(128))
    # The platform's id of the comment this one answers (replies only).
    parent_platform_id: Mapped[str | None] = mapped_column(String(128))
    text: Mapped[str] = mapped_column(Text)
    author_handle: Mapped[str | None] = mapped_column(String(100))
    likes: Mapped[int | None]
    replies: Mapped[int | None]
    # When it was written; a source that does not say (an Instagram `firstComment`) leaves
    # it null, and time frames then read when sors first saw it.
    published_at: Mapped[datetime]
    published_known: Mapped[bool] = mapped_column(server_default=sql("true"))
    language: Mapped[str | None] = mapped_column(String(8))
    kind: Mapped[str] = mapped_column(String(16))
    noise: Mapped[str | None] = mapped_column(String(16))
    labelled_by: Mapped[str] = mapped_column(String(8), server_default=sql("'rules'"))
    # md5 of the text: the key of its vector in comment_vectors.
    text_hash: Mapped[bytes] = mapped_column(LargeBinary(16))
    source: Mapped[str] = mapped_column(String(16))  # import, apify, api, sim
    first_seen_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class CommentVector(Base):
    """A distinct comment text's vector under one embedding model, in half precision (the
    model's unit vector as little-endian float16)."""

    __tablename__ = "comment_vectors"

    model: Mapped[str] = mapped_column(String(100), primary_key=True)
    text_hash: Mapped[bytes] = mapped_column(LargeBinary(16), primary_key=True)
    vector: Mapped[bytes] = mapped_column(LargeBinary)
