"""post_changes: captions and titles a crawl saw rewritten after publishing

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-25 21:30:00

Creators rewrite titles after publishing (A/B rotations) to lift a video's views per hour;
each rewrite a crawl sees is kept with the crawl's time and both versions, so a post's
history can show what the change did.
"""

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "post_changes",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("post_id", sa.String(length=64), nullable=False),
        sa.Column("field", sa.String(length=16), nullable=False),
        sa.Column("before", sa.Text(), nullable=True),
        sa.Column("after", sa.Text(), nullable=True),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["post_id"], ["posts.id"], ondelete="CASCADE",
                                name=op.f("fk_post_changes_post_id_posts")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_post_changes")),
    )
    op.create_index("ix_post_changes_post", "post_changes", ["post_id", "changed_at"])


def downgrade() -> None:
    op.drop_index("ix_post_changes_post", table_name="post_changes")
    op.drop_table("post_changes")
