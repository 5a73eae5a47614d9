"""Post analyses: each post's features and its breakdown against the creator's usual

Revision ID: 0020
Revises: 0019_subscriptions
Create Date: 2026-11-25 19:30:00

One row per post (`post_analyses`), written by `sors.analyses`: the features computed in
code (JSONB), the hook's type and text as columns for the hook library (an index on the
type), and the breakdown once someone asked for it. Jobs gain the `analysis` type.
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0020"
down_revision = "0019_subscriptions"
branch_labels = None
depends_on = None


_OLD_TYPES = "type IN ('crawl','refresh','transcription','media','remix','webhook')"
_NEW_TYPES = "type IN ('crawl','refresh','transcription','media','remix','webhook','analysis')"


def upgrade() -> None:
    op.drop_constraint(op.f("ck_jobs_type_known"), "jobs", type_="check")
    op.create_check_constraint(op.f("ck_jobs_type_known"), "jobs", _NEW_TYPES)
    op.create_table(
        "post_analyses",
        sa.Column("post_id", sa.String(length=64), nullable=False),
        sa.Column("features", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("hook_type", sa.String(length=20), nullable=True),
        sa.Column("hook_text", sa.Text(), nullable=True),
        sa.Column("analysis", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("engine", sa.String(length=300), nullable=True),
        sa.Column("features_at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False),
        sa.Column("analysed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["post_id"], ["posts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("post_id"),
    )
    op.create_index("ix_post_analyses_hook_type", "post_analyses", ["hook_type"])


def downgrade() -> None:
    op.drop_index("ix_post_analyses_hook_type", table_name="post_analyses")
    op.drop_table("post_analyses")
    op.execute("DELETE FROM jobs WHERE type = 'analysis'")
    op.drop_constraint(op.f("ck_jobs_type_known"), "jobs", type_="check")
    op.create_check_constraint(op.f("ck_jobs_type_known"), "jobs", _OLD_TYPES)
