"""spend caps per API key: api_keys.daily_credit_cap and the per-key, per-UTC-day spend

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-23 05:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("api_keys", sa.Column("daily_credit_cap", sa.BigInteger(), nullable=True))
    op.create_check_constraint(
        op.f("ck_api_keys_cap_not_negative"), "api_keys", "daily_credit_cap >= 0"
    )
    op.create_table(
        "api_key_spend",
        sa.Column("key_id", sa.String(64), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("spent", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("spent >= 0", name=op.f("ck_api_key_spend_spent_not_negative")),
        sa.ForeignKeyConstraint(["key_id"], ["api_keys.id"], ondelete="CASCADE",
                                name=op.f("fk_api_key_spend_key_id_api_keys")),
        sa.PrimaryKeyConstraint("key_id", "day", name=op.f("pk_api_key_spend")),
    )


def downgrade() -> None:
    op.drop_table("api_key_spend")
    op.drop_constraint(op.f("ck_api_keys_cap_not_negative"), "api_keys", type_="check")
    op.drop_column("api_keys", "daily_credit_cap")
