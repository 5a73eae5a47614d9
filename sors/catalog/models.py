"""Profiles, posts, stat history, categories.

Scores are stored one column per window so search can filter and sort on an index; a
profile's averages are kept as JSON for output and recomputed, with every post's scores, in
the same statement set at each crawl (catalog.ingest), so they always agree.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Computed, Float, ForeignKey, Index, SmallInteger, String, Text, text
from sqlalchemy import text as sql  # beside a column named `text`
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, TSVECTOR
from sqlalchemy.orm import Mapped, mapped_column

from sors.kit.db import Base

WINDOWS: dict[str, int | None] = {
    "one_week": 7,
    "two_weeks": 14,
    "one_month": 30,
    "three_months": 90,
    "six_months": 182,
    "one_year": 365,
    "all_time": None,
}


# Sort columns beside the seed's mean scores: the median score per window, the age-matched
# score and the recent views per hour (catalog.scoring).
ROBUST_SORTS = (*(f"mscore_{w}" for w in WINDOWS), "age_score", "velocity")
# The window scores (mean and median) are indexed only from here up: a post at or above its
# creator's baseline, what a search for outliers looks for. Fewer index entries per crawled
# post (migration 0015); searches that reach below it read the rest without the index
# (catalog.repository). A literal in every statement that should use these indexes, so that
# even a generic plan can prove its WHERE clause implies the index's.
SCORE_INDEX_FLOOR = 1
# A post at this score or above is one of its creator's outliers where posts are split in
# two (hook types in trends, the breakdown's outliers vs ordinary posts).
OUTLIER_MIN_SCORE = 3.0
WINDOW_SCORES = (*(f"score_{w}" for w in WINDOWS), *(f"mscore_{w}" for w in WINDOWS))

_FILTERS = ("platform", "content_type", "published_at", "views", "owner_followers")
_FILTERS_SCORE = (*_FILTERS, "score_three_months")


class Profile(Base):
    __tablename__ = "profiles"
    __table_args__ = (
        # One active row per handle; a renamed creator's old row stays, inactive.
        Index(
            "uq_profiles_active_handle",
            "platform",
            "handle",
            unique=True,
            postgresql_where=text("is_active"),
        ),
        Index("ix_profiles_user", "platform", "platform_user_id"),
        # Counts of profile searches by platform: an index-only scan (migration 0030).
        Index("ix_profiles_platform", "platform", "id"),
        Index("ix_profiles_followers", text("follower_count DESC NULLS LAST"), "id"),
        Index(
            "ix_profiles_handle_trgm",
            "handle",
            postgresql_using="gin",
            postgresql_ops={"handle": "gin_trgm_ops"},
        ),
        Index(
            "ix_profiles_name_trgm",
            text("lower(display_name) gin_trgm_ops"),
            postgresql_using="gin",
        ),
        # The catalog keeper's overdue scan: per platform and tier, least recently seen first.
        Index("ix_profiles_catalog_due", "platform", "catalog_tier", "catalog_seen_at"),
        Index("ix_profiles_curves_due", "last_crawled_at",
              postgresql_where=text("curves_at IS NULL OR curves_at < last_crawled_at")),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    platform: Mapped[str] = mapped_column(String(16))
    handle: Mapped[str] = mapped_column(String(64))
    platform_user_id: Mapped[str | None] = mapped_column(String(128))
    display_name: Mapped[str | None] = mapped_column(String(200))
    bio: Mapped[str | None] = mapped_column(Text)
    avatar_url: Mapped[str | None] = mapped_column(Text)
    url: Mapped[str | None] = mapped_column(Text)
    follower_count: Mapped[int | None]
    follower_count_approximate: Mapped[bool] = mapped_column(server_default=text("false"))
    tracked_post_count: Mapped[int] = mapped_column(server_default=text("0"))
    averages: Mapped[dict[str, Any]] = mapped_column(JSONB, server_default=text("'{}'::jsonb"))
    is_active: Mapped[bool] = mapped_column(server_default=text("true"))
    renamed_to_id: Mapped[str | None] = mapped_column(String(64))
    last_crawled_at: Mapped[datetime | None]
    first_seen_at: Mapped[datetime] = mapped_column(server_default=text("now()"))
    # Freshness tier (catalog.freshness) as of the last crawl, and when the keeper last
    # looked at the profile (its last crawl, or the keeper's last attempt).
    catalog_tier: Mapped[str | None] = mapped_column(String(16))
    catalog_seen_at: Mapped[datetime | None]
    # Where its last data came from: sim, web, api, apify, or import (a file `sors import`
    # loaded). The keeper refreshes only what the running source can reach.
    data_source: Mapped[str | None] = mapped_column(String(16))
    # The crawl time its creator curves (CreatorCurve) were last computed as of.
    curves_at: Mapped[datetime | None]


class Category(Base):
    __tablename__ = "categories"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    parent_id: Mapped[str | None] = mapped_column(String(64))


class ProfileCategory(Base):
    __tablename__ = "profile_categories"
    __table_args__ = (Index("ix_profile_categories_category", "category_id", "profile_id"),)

    profile_id: Mapped[str] = mapped_column(
        ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True
    )
    category_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    rank: Mapped[int] = mapped_column(server_default=text("0"))


class Post(Base):
    __tablename__ = "posts"
    __table_args__ = (
        Index("uq_posts_platform_id", "platform", "platform_post_id", unique=True),
        Index("ix_posts_profile_published", "profile_id", text("published_at DESC")),
        Index("ix_posts_first_seen", "profile_id", "first_seen_at", "id"),
        Index("ix_posts_search", "search_vector", postgresql_using="gin"),
        # Sort indexes carry the filter columns (INCLUDE) so pages and capped counts are
        # index-only scans (migration 0007, docs/PERFORMANCE.md).
        Index(
            "ix_posts_views",
            text("views DESC NULLS LAST"),
            "id",
            postgresql_include=[c for c in _FILTERS_SCORE if c != "views"],
        ),
        Index(
            "ix_posts_likes",
            text("likes DESC NULLS LAST"),
            "id",
            postgresql_include=list(_FILTERS_SCORE),
        ),
        Index(
            "ix_posts_er",
            text("engagement_rate DESC NULLS LAST"),
            "id",
            postgresql_include=list(_FILTERS_SCORE),
        ),
        Index(
            "ix_posts_recent",
            text("published_at DESC"),
            "id",
            postgresql_include=[c for c in _FILTERS_SCORE if c != "published_at"],
        ),
        # Mean and median window scores (migrations 0007, 0009): at or above the baseline
        # only (0015); the publication time is a key column, checked in the index (0018).
        *[
            Index(
                f"ix_posts_{col}",
                text(f"{col} DESC NULLS LAST"),
                "id",
                "published_at",
                postgresql_include=[c for c in _FILTERS if c != "published_at"],
                postgresql_where=text(f"{col} >= {SCORE_INDEX_FLOOR}"),
            )
            for col in WINDOW_SCORES
        ],
        # The age-matched score and velocity (migration 0009): every post.
        *[
            Index(
                f"ix_posts_{col}",
                text(f"{col} DESC NULLS LAST"),
                "id",
                postgresql_include=list(_FILTERS),
            )
            for col in ROBUST_SORTS
            if col not in WINDOW_SCORES
        ],
        # Rising posts (migration 0026): only posts with a projection carry a rising score.
        Index(
            "ix_posts_rising_score",
            text("rising_score DESC NULLS LAST"),
            "id",
            postgresql_include=list(_FILTERS),
            postgresql_where=text("rising_score IS NOT NULL"),
        ),
        Index("ix_posts_rising", text("published_at DESC"), "id",
              postgresql_where=text("rising")),
        # A sound's posts over time (migration 0034): its page, usage and creators.
        Index("ix_posts_sound", "sound_id", "published_at", postgresql_include=["profile_id"],
              postgresql_where=text("sound_id IS NOT NULL")),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    profile_id: Mapped[str] = mapped_column(ForeignKey("profiles.id"))
    platform: Mapped[str] = mapped_column(String(16))
    platform_post_id: Mapped[str] = mapped_column(String(64))
    url: Mapped[str] = mapped_column(Text)
    content_type: Mapped[str] = mapped_column(String(16))
    caption: Mapped[str | None] = mapped_column(Text)
    published_at: Mapped[datetime]
    duration_seconds: Mapped[float | None] = mapped_column(Float)
    views: Mapped[int | None]
    likes: Mapped[int | None]
    comments: Mapped[int | None]
    shares: Mapped[int | None]
    engagement_rate: Mapped[float | None] = mapped_column(Float)
    thumbnail_url: Mapped[str | None] = mapped_column(Text)
    approximations: Mapped[dict[str, str]] = mapped_column(
        JSONB, server_default=text("'{}'::jsonb")
    )
    extra: Mapped[dict[str, Any]] = mapped_column(JSONB, server_default=text("'{}'::jsonb"))
    # The owner's follower count, copied at each crawl so maxFollowers needs no join.
    owner_followers: Mapped[int | None]
    score_one_week: Mapped[float | None] = mapped_column(Float)
    score_two_weeks: Mapped[float | None] = mapped_column(Float)
    score_one_month: Mapped[float | None] = mapped_column(Float)
    score_three_months: Mapped[float | None] = mapped_column(Float)
    score_six_months: Mapped[float | None] = mapped_column(Float)
    score_one_year: Mapped[float | None] = mapped_column(Float)
    score_all_time: Mapped[float | None] = mapped_column(Float)
    mscore_one_week: Mapped[float | None] = mapped_column(Float)
    mscore_two_weeks: Mapped[float | None] = mapped_column(Float)
    mscore_one_month: Mapped[float | None] = mapped_column(Float)
    mscore_three_months: Mapped[float | None] = mapped_column(Float)
    mscore_six_months: Mapped[float | None] = mapped_column(Float)
    mscore_one_year: Mapped[float | None] = mapped_column(Float)
    mscore_all_time: Mapped[float | None] = mapped_column(Float)
    age_score: Mapped[float | None] = mapped_column(Float)
    velocity: Mapped[float | None] = mapped_column(Float)
    # What the robust baselines were: {"median": {window: {"views", "post_count"}},
    # "age": {"expected_views", "post_count", "age_hours"}}
    # and, on a post flagged `engagement_anomaly`, "engagement": {"median", "p10",
    # "post_count", "median_views"} (its creator's usual).
    baselines: Mapped[dict[str, Any]] = mapped_column(JSONB, server_default=text("'{}'::jsonb"))
    # A bit per window (catalog.ingest.scoring_sql.WINDOW_BITS) whose mean baseline is `ok`
    # (migration 0035); null until the post's profile is scored again after the upgrade.
    baseline_ok: Mapped[int | None] = mapped_column(SmallInteger)
    # Likes and comments per view far below the creator's usual (catalog.ingest.scoring).
    engagement_anomaly: Mapped[bool] = mapped_column(server_default=text("false"))
    has_transcript: Mapped[bool] = mapped_column(server_default=text("false"))
    has_visual_analysis: Mapped[bool] = mapped_column(server_default=text("false"))
    stats_updated_at: Mapped[datetime | None]
    first_seen_at: Mapped[datetime] = mapped_column(server_default=text("now()"))
    deleted_at: Mapped[datetime | None]
    # The perceptual hash (64-bit pHash, hex) of the thumbnail last fetched, and when the
    # thumbnail-change check last looked (catalog.thumbnails).
    thumbnail_hash: Mapped[str | None] = mapped_column(String(32))
    thumbnail_checked_at: Mapped[datetime | None]
    # Against the creator's curve at its last crawl (catalog.rising), for posts younger than
    # 30 days with a curve: views / the curve's median at its age, whether it runs above the
    # p90 and accelerates, and the whole projection as the record shows it.
    rising_score: Mapped[float | None] = mapped_column(Float)
    rising: Mapped[bool] = mapped_column(server_default=text("false"))
    projection: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    # The audio it uses (catalog.usage.models.Sound), where its source shows one.
    sound_id: Mapped[str | None] = mapped_column(ForeignKey("sounds.id", ondelete="SET NULL"))
    search_vector: Mapped[Any] = mapped_column(
        TSVECTOR,
        Computed("to_tsvector('simple', sors_unaccent(coalesce(caption, '')))", persisted=True),
    )
    # The caption's hashtags in caption order (migration 0018: sors_caption_tags), on the
    # row itself so breakouts read them with the outliers.
    hashtags: Mapped[list[str]] = mapped_column(
        ARRAY(Text), Computed("sors_caption_tags(caption)", persisted=True)
    )


class PostStat(Base):
    """One row per post per crawl: the history behind growth curves."""

    __tablename__ = "post_stats"

    post_id: Mapped[str] = mapped_column(
        ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True
    )
    crawled_at: Mapped[datetime] = mapped_column(primary_key=True)
    views: Mapped[int | None]
    likes: Mapped[int | None]
    comments: Mapped[int | None]
    shares: Mapped[int | None]


# ---- what enrichment found in a post -------------------------------------------------------
# One transcript and one visual analysis per post (whoever asked first paid for it; everyone
# reads it), made by `sors.enrichment` and shown in the post record.


class CreatorCurve(Base):
    """Expected views by age of a creator's posts of one format group: p10, p50 and p90 of
    their views at `age_hours`, interpolated between snapshots (catalog.curves)."""

    __tablename__ = "creator_curves"

    profile_id: Mapped[str] = mapped_column(
        ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True
    )
    fmt: Mapped[str] = mapped_column(String(16), primary_key=True)
    age_hours: Mapped[int] = mapped_column(primary_key=True)
    p10: Mapped[float | None] = mapped_column(Float)
    p50: Mapped[float | None] = mapped_column(Float)
    p90: Mapped[float | None] = mapped_column(Float)
    post_count: Mapped[int]
    computed_at: Mapped[datetime]


class PostChange(Base):
    """A change a crawl saw to a post after it was published: its caption (a YouTube title
    is its caption) rewritten, as creators do to A/B-test titles. `before` and `after` are
    the two versions; `changed_at` is the crawl that first saw the new one."""

    __tablename__ = "post_changes"
    __table_args__ = (Index("ix_post_changes_post", "post_id", "changed_at"),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    post_id: Mapped[str] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"))
    field: Mapped[str] = mapped_column(String(16))  # "caption"
    before: Mapped[str | None] = mapped_column(Text)
    after: Mapped[str | None] = mapped_column(Text)
    changed_at: Mapped[datetime]


class TranscriptRecord(Base):
    __tablename__ = "transcripts"

    post_id: Mapped[str] = mapped_column(
        ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True
    )
    text: Mapped[str] = mapped_column(Text)
    language: Mapped[str | None] = mapped_column(String(16))
    source: Mapped[str] = mapped_column(String(20))  # "speech" | "on_screen_text"
    segments: Mapped[list[dict[str, Any]]] = mapped_column(JSONB, server_default=sql("'[]'::jsonb"))
    # Which speech model (or "ocr") produced it, for operators comparing models.
    engine: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(server_default=sql("now()"))


class VisualAnalysisRecord(Base):
    __tablename__ = "visual_analyses"

    post_id: Mapped[str] = mapped_column(
        ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True
    )
    scene_count: Mapped[int]
    avg_scene_seconds: Mapped[float | None] = mapped_column(Float)
    scenes: Mapped[list[dict[str, Any]]] = mapped_column(JSONB, server_default=sql("'[]'::jsonb"))
    on_screen_text: Mapped[str] = mapped_column(Text, server_default=sql("''"))
    created_at: Mapped[datetime] = mapped_column(server_default=sql("now()"))


class PostAnalysisRecord(Base):
    """A post's features (computed in code from the post, its transcript and its visual
    analysis) and, once someone asked for one, its breakdown against the creator's usual.
    Made by `sors.analyses`; one row per post, everyone reads it, like the transcript."""

    __tablename__ = "post_analyses"
    __table_args__ = (Index("ix_post_analyses_hook_type", "hook_type"),)

    post_id: Mapped[str] = mapped_column(
        ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True
    )
    features: Mapped[dict[str, Any]] = mapped_column(JSONB)
    # Set only when the media features exist (transcript and visual analysis): the hook library.
    hook_type: Mapped[str | None] = mapped_column(String(20))
    hook_text: Mapped[str | None] = mapped_column(Text)
    analysis: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    engine: Mapped[str | None] = mapped_column(String(300))
    features_at: Mapped[datetime] = mapped_column(server_default=sql("now()"))
    analysed_at: Mapped[datetime | None]
