"""creator_curves, posts.rising_score / rising / projection, profiles.curves_at,
alerts.trigger: rising posts

Revision ID: 0027
Revises: 0026
Create Date: 2026-11-25 22:05:00

A creator's expected views by age (p10/p50/p90 per format group at fixed ages) are kept in
creator_curves by a scheduled set-based statement; each crawl projects the creator's young
posts against them and stores the projection on the post, so records, search and trends read
it without touching the snapshots. New nullable columns (and one with a constant default):
no table rewrite.
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None

_FILTERS = ["platform", "content_type", "published_at", "views", "owner_followers"]


def upgrade() -> None:
    op.create_table(
        "creator_curves",
        sa.Column("profile_id", sa.String(length=64), nullable=False),
        sa.Column("fmt", sa.String(length=16), nullable=False),
        sa.Column("age_hours", sa.BigInteger(), nullable=False),
        sa.Column("p10", sa.Float(), nullable=True),
        sa.Column("p50", sa.Float(), nullable=True),
        sa.Column("p90", sa.Float(), nullable=True),
        sa.Column("post_count", sa.BigInteger(), nullable=False),
        sa.Column("computed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["profile_id"], ["profiles.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("profile_id", "fmt", "age_hours"),
    )
    op.add_column("profiles", sa.Column("curves_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index(
        "ix_profiles_curves_due", "profiles", ["last_crawled_at"],
        postgresql_where=sa.text("curves_at IS NULL OR curves_at < last_crawled_at"),
    )
    op.add_column("posts", sa.Column("rising_score", sa.Float(), nullable=True))
    op.add_column("posts", sa.Column("rising", sa.Boolean(), server_default=sa.text("false"),
                                     nullable=False))
    op.add_column("posts", sa.Column("projection", postgresql.JSONB(astext_type=sa.Text()),
                                     nullable=True))
    op.create_index(
        "ix_posts_rising_score", "posts", [sa.text("rising_score DESC NULLS LAST"), "id"],
        postgresql_include=_FILTERS,
        postgresql_where=sa.text("rising_score IS NOT NULL"),
    )
    op.add_column("alerts", sa.Column("trigger", sa.String(length=8),
                                      server_default=sa.text("'score'"), nullable=False))
    op.create_index("ix_posts_rising", "posts", [sa.text("published_at DESC"), "id"],
                    postgresql_where=sa.text("rising"))


def downgrade() -> None:
    op.drop_column("alerts", "trigger")
    op.drop_index("ix_posts_rising", table_name="posts")
    op.drop_index("ix_posts_rising_score", table_name="posts")
    op.drop_column("posts", "projection")
    op.drop_column("posts", "rising")
    op.drop_column("posts", "rising_score")
    op.drop_index("ix_profiles_curves_due", table_name="profiles")
    op.drop_column("profiles", "curves_at")
    op.drop_table("creator_curves")
