"""posts.thumbnail_hash, thumbnail_checked_at: thumbnail changes by perceptual hash

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-25 21:40:00

Creators swap a video's thumbnail after publishing as they rewrite its title. A budgeted
scheduler check fetches the thumbnails of freshly crawled posts (YouTube first), keeps each
one's 64-bit perceptual hash, and records a change in post_changes when the new image is far
from the last one. Two nullable columns without defaults: no table rewrite.
"""

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("posts", sa.Column("thumbnail_hash", sa.String(length=32), nullable=True))
    op.add_column("posts", sa.Column("thumbnail_checked_at", sa.DateTime(timezone=True),
                                     nullable=True))


def downgrade() -> None:
    op.drop_column("posts", "thumbnail_checked_at")
    op.drop_column("posts", "thumbnail_hash")
