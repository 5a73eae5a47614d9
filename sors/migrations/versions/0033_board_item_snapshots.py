"""board item snapshots: board_items.snapshot and saved_at

Revision ID: 0033
Revises: 0032
Create Date: 2026-12-02 09:30:00

Boards are free, reading a post or profile costs a credit: a board (or its key-less share
link) that showed each item's current record would be a free, repeatable read of the
catalog. An item now keeps the record as it was when saved (`snapshot`, JSONB) and when
(`saved_at`), and boards show that.

The records are built in code (scores, projections, categories), not in SQL, so the items
saved before this revision keep a null snapshot here; each takes its snapshot at its first
read after the upgrade (`saved_at` says when), once.
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0033"
down_revision = "0032"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "board_items",
        sa.Column("snapshot", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
    )
    op.add_column(
        "board_items", sa.Column("saved_at", sa.DateTime(timezone=True), nullable=True)
    )


def downgrade() -> None:
    op.drop_column("board_items", "saved_at")
    op.drop_column("board_items", "snapshot")
