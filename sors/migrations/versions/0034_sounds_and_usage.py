"""sounds, posts.sound_id, hashtag_uses, the daily usage rollups, idea_boilerplate

Revision ID: 0034
Revises: 0033
Create Date: 2026-11-28 14:00:00

A post's sound becomes an entity (`sounds`, one per platform and key) that posts point at;
`hashtag_uses` keeps who used which hashtag on which day (exact creator counts in a
window); ingest marks the publication days of every crawled post in `trend_dirty`
(append-only, so concurrent crawls never wait for each other) and a scheduled statement
rolls the marked days up into `sound_days`, `hashtag_days` and `niche_days`, which trends
of sounds and hashtags read. `idea_boilerplate` holds the hashtags and phrases the data
shows to say nothing about a niche. New tables and a nullable column: no rewrite of posts.
"""

import sqlalchemy as sa
from alembic import op

revision = "0034"
down_revision = "0033"
branch_labels = None
depends_on = None


def _counts() -> list[sa.Column]:
    return [sa.Column(n, sa.BigInteger(), nullable=False)
            for n in ("posts", "beat", "outliers", "scored")]


def upgrade() -> None:
    op.create_table(
        "sounds",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("sound_key", sa.String(length=300), nullable=False),
        sa.Column("title", sa.Text(), nullable=True),
        sa.Column("author", sa.Text(), nullable=True),
        sa.Column("is_original", sa.Boolean(), nullable=False),
        sa.Column("first_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_sounds"),
    )
    op.create_index("uq_sounds_key", "sounds", ["platform", "sound_key"], unique=True)
    op.add_column("posts", sa.Column("sound_id", sa.String(length=64), nullable=True))
    op.create_foreign_key("fk_posts_sound_id_sounds", "posts", "sounds", ["sound_id"], ["id"],
                          ondelete="SET NULL")
    op.create_index("ix_posts_sound", "posts", ["sound_id", "published_at"],
                    postgresql_include=["profile_id"],
                    postgresql_where=sa.text("sound_id IS NOT NULL"))
    op.create_table(
        "hashtag_uses",
        sa.Column("tag", sa.Text(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("profile_id", sa.String(length=64), nullable=False),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("niche", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(["profile_id"], ["profiles.id"], ondelete="CASCADE",
                                name="fk_hashtag_uses_profile_id_profiles"),
        sa.PrimaryKeyConstraint("tag", "day", "profile_id", name="pk_hashtag_uses"),
    )
    op.create_table(
        "trend_dirty",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("marked_at", sa.DateTime(timezone=True), server_default=sa.text("now()"),
                  nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_trend_dirty"),
    )
    op.create_index("ix_trend_dirty_day", "trend_dirty", ["day"])
    op.create_table(
        "sound_days",
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("niche", sa.String(length=64), nullable=False),
        sa.Column("sound_id", sa.String(length=64), nullable=False),
        sa.Column("creators", sa.BigInteger(), nullable=False),
        sa.Column("views", sa.BigInteger(), nullable=False),
        *_counts(),
        sa.ForeignKeyConstraint(["sound_id"], ["sounds.id"], ondelete="CASCADE",
                                name="fk_sound_days_sound_id_sounds"),
        sa.PrimaryKeyConstraint("day", "niche", "sound_id", name="pk_sound_days"),
    )
    op.create_index("ix_sound_days_sound", "sound_days", ["sound_id", "day"])
    op.create_table(
        "hashtag_days",
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("niche", sa.String(length=64), nullable=False),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("tag", sa.Text(), nullable=False),
        sa.Column("creators", sa.BigInteger(), nullable=False),
        *_counts(),
        sa.PrimaryKeyConstraint("day", "niche", "platform", "tag", name="pk_hashtag_days"),
    )
    op.create_table(
        "niche_days",
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("niche", sa.String(length=64), nullable=False),
        sa.Column("platform", sa.String(length=16), nullable=False),
        *_counts(),
        sa.PrimaryKeyConstraint("day", "niche", "platform", name="pk_niche_days"),
    )
    op.create_table(
        "idea_boilerplate",
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("idea", sa.Text(), nullable=False),
        sa.Column("population", sa.String(length=40), nullable=False),
        sa.Column("niches", sa.BigInteger(), nullable=False),
        sa.Column("share", sa.Float(), nullable=False),
        sa.Column("computed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("kind", "idea", name="pk_idea_boilerplate"),
    )


def downgrade() -> None:
    for table in ("idea_boilerplate", "niche_days", "hashtag_days", "sound_days"):
        op.drop_table(table)
    op.drop_index("ix_trend_dirty_day", table_name="trend_dirty")
    op.drop_table("trend_dirty")
    op.drop_table("hashtag_uses")
    op.drop_index("ix_posts_sound", table_name="posts")
    op.drop_constraint("fk_posts_sound_id_sounds", "posts", type_="foreignkey")
    op.drop_column("posts", "sound_id")
    op.drop_index("uq_sounds_key", table_name="sounds")
    op.drop_table("sounds")
