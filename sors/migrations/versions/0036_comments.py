"""comments, comment_vectors: comments on posts typed as demand, and their texts' vectors;
a `comments` job type (fetching a post's comments through the configured source)

Revision ID: 0036
Revises: 0035
Create Date: 2026-11-28 14:00:00

Comments come from imports (an Instagram export's latestComments, Apify comment datasets,
yt-dlp `comments`, Data API commentThreads answers) and from `comments` jobs. One row per
platform comment id, so importing or fetching again updates in place. The job type is added
to whatever the constraint already lists, so this revision composes with others that add
types of their own.
"""

import re

import sqlalchemy as sa
from alembic import op

revision = "0036"
down_revision = "0035"
branch_labels = None
depends_on = None

_TYPE = "comments"


def _job_types() -> list[str]:
    definition = op.get_bind().exec_driver_sql(
        "SELECT pg_get_constraintdef(oid) FROM pg_constraint "
        "WHERE conname = 'ck_jobs_type_known'").scalar() or ""
    return re.findall(r"'([^']+)'", definition)


def _set_job_types(types: list[str]) -> None:
    listed = ",".join(f"'{t}'" for t in types)
    op.execute("ALTER TABLE jobs DROP CONSTRAINT IF EXISTS ck_jobs_type_known")
    op.execute(f"ALTER TABLE jobs ADD CONSTRAINT ck_jobs_type_known CHECK (type IN ({listed}))")


def upgrade() -> None:
    types = _job_types()
    if _TYPE not in types:
        _set_job_types([*types, _TYPE])
    op.create_table(
        "comments",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("post_id", sa.String(length=64), nullable=False),
        sa.Column("profile_id", sa.String(length=64), nullable=False),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("platform_comment_id", sa.String(length=128), nullable=False),
        sa.Column("parent_platform_id", sa.String(length=128), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("author_handle", sa.String(length=100), nullable=True),
        sa.Column("likes", sa.BigInteger(), nullable=True),
        sa.Column("replies", sa.BigInteger(), nullable=True),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("published_known", sa.Boolean(), server_default=sa.text("true"),
                  nullable=False),
        sa.Column("language", sa.String(length=8), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("noise", sa.String(length=16), nullable=True),
        sa.Column("labelled_by", sa.String(length=8), server_default=sa.text("'rules'"),
                  nullable=False),
        sa.Column("text_hash", sa.LargeBinary(length=16), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("first_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "kind IN ('question','request','part_two','confusion','objection','praise','other')",
            name=op.f("ck_comments_kind_known")),
        sa.CheckConstraint("noise IS NULL OR noise IN ('spam','emoji_only')",
                           name=op.f("ck_comments_noise_known")),
        sa.ForeignKeyConstraint(["post_id"], ["posts.id"], ondelete="CASCADE",
                                name=op.f("fk_comments_post_id_posts")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_comments")),
    )
    op.create_index("uq_comments_platform_id", "comments", ["platform", "platform_comment_id"],
                    unique=True)
    op.create_index("ix_comments_post", "comments", ["post_id"])
    op.create_index("ix_comments_demand_profile", "comments", ["profile_id", "published_at"],
                    postgresql_where=sa.text("noise IS NULL AND kind <> 'other'"))
    op.create_table(
        "comment_vectors",
        sa.Column("model", sa.String(length=100), nullable=False),
        sa.Column("text_hash", sa.LargeBinary(length=16), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("model", "text_hash", name=op.f("pk_comment_vectors")),
    )


def downgrade() -> None:
    op.drop_table("comment_vectors")
    op.drop_index("ix_comments_demand_profile", table_name="comments")
    op.drop_index("ix_comments_post", table_name="comments")
    op.drop_index("uq_comments_platform_id", table_name="comments")
    op.drop_table("comments")
    op.execute(f"DELETE FROM jobs WHERE type = '{_TYPE}'")
    _set_job_types([t for t in _job_types() if t != _TYPE])
