"""Idempotency keys belong to the API key that sent them

Revision ID: 0031
Revises: 0030
Create Date: 2026-11-28 13:40:00

A stored answer was found by (account, Idempotency-Key), so another key of the account that
reused a key and body got the first key's stored answer — for POST /keys, a key secret. Now
the sending key is part of the record's identity. The records held before (each the answer of
one request, kept 24 hours) are dropped: their sending key is not known, and a retry after
the upgrade runs as a new request, which every route takes safely once more.
"""

import sqlalchemy as sa
from alembic import op

revision = "0031"
down_revision = "0030"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DELETE FROM idempotency_keys")
    op.add_column("idempotency_keys", sa.Column("key_id", sa.String(length=64), nullable=False))
    op.drop_constraint("pk_idempotency_keys", "idempotency_keys", type_="primary")
    op.create_primary_key("pk_idempotency_keys", "idempotency_keys",
                          ["account_id", "key_id", "key"])


def downgrade() -> None:
    op.execute("DELETE FROM idempotency_keys")
    op.drop_constraint("pk_idempotency_keys", "idempotency_keys", type_="primary")
    op.drop_column("idempotency_keys", "key_id")
    op.create_primary_key("pk_idempotency_keys", "idempotency_keys", ["account_id", "key"])
