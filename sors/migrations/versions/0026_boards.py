"""boards, board_items: posts and profiles an account keeps, with notes and a share link

Revision ID: 0026
Revises: 0025
Create Date: 2026-11-25 22:10:00

A strategist saves what they find on named boards (free, per account); a board can be
shared read-only through a signed link that stays valid while its token is the one kept on
the board. Each post or profile is on a board at most once (partial unique indexes).
"""

import sqlalchemy as sa
from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "boards",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("share_token", sa.String(length=255), nullable=True),
        sa.Column("shared_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE",
                                name=op.f("fk_boards_account_id_accounts")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_boards")),
    )
    op.create_index("ix_boards_account", "boards", ["account_id", "id"])
    op.create_table(
        "board_items",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("board_id", sa.String(length=64), nullable=False),
        sa.Column("post_id", sa.String(length=64), nullable=True),
        sa.Column("profile_id", sa.String(length=64), nullable=True),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("(post_id IS NULL) <> (profile_id IS NULL)",
                           name=op.f("ck_board_items_one_target")),
        sa.ForeignKeyConstraint(["board_id"], ["boards.id"], ondelete="CASCADE",
                                name=op.f("fk_board_items_board_id_boards")),
        sa.ForeignKeyConstraint(["post_id"], ["posts.id"], ondelete="CASCADE",
                                name=op.f("fk_board_items_post_id_posts")),
        sa.ForeignKeyConstraint(["profile_id"], ["profiles.id"], ondelete="CASCADE",
                                name=op.f("fk_board_items_profile_id_profiles")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_board_items")),
    )
    op.create_index("ix_board_items_board", "board_items", ["board_id", "id"])
    op.create_index("uq_board_items_post", "board_items", ["board_id", "post_id"], unique=True,
                    postgresql_where=sa.text("post_id IS NOT NULL"))
    op.create_index("uq_board_items_profile", "board_items", ["board_id", "profile_id"],
                    unique=True, postgresql_where=sa.text("profile_id IS NOT NULL"))


def downgrade() -> None:
    op.drop_index("uq_board_items_profile", table_name="board_items")
    op.drop_index("uq_board_items_post", table_name="board_items")
    op.drop_index("ix_board_items_board", table_name="board_items")
    op.drop_table("board_items")
    op.drop_index("ix_boards_account", table_name="boards")
    op.drop_table("boards")
