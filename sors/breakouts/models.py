"""post_ideas: what breakouts group, extracted once per post (migration 0014)."""

from __future__ import annotations

from sqlalchemy import ForeignKey, Index, String, Text, text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from sors.catalog.models import Profile
from sors.kit.db import Base


class PostIdeas(Base):
    """A post's caption phrases: the SQL function sors_posts_phrases of its caption, written
    by triggers on posts when a post is inserted or its caption changes (migrations 0014,
    0018), so every writer of posts keeps them current and an unchanged caption costs
    nothing. Hashtags are a generated column of the post (`posts.hashtags`, 0018); formats
    and sounds are read from the post itself. Deleted posts keep their row; breakouts leave
    them out through posts."""

    __tablename__ = "post_ideas"

    post_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True
    )
    phrases: Mapped[list[str]] = mapped_column(ARRAY(Text))


# Breakouts leave out the posts of inactive creators by probing this (small) index instead
# of reading every profile row (migration 0014).
Index("ix_profiles_inactive", Profile.id, postgresql_where=text("NOT is_active"))


class ProfileNiche(Base):
    """A creator's main niche: the top level of the category of lowest rank (ties: lowest
    id) in profile_categories, which breakouts group by. Kept by statement triggers on
    profile_categories (migration 0016): a crawl rewrites a creator's categories once, and
    the niche of every creator the statement touched is worked out again from them. A
    creator without categories has no row."""

    __tablename__ = "profile_niches"

    profile_id: Mapped[str] = mapped_column(
        String(64), ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True
    )
    category_id: Mapped[str] = mapped_column(String(64))
